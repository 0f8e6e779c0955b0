package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The per-segment paths allocate nothing once warm: the CM's receive path (irdma_receive_ilq down to the state
 * handler), the device's steering in front of it, and the link carrying frames.
 */
class ReceivePathAllocationTest {
    private static final int WARMUP = 50_000;
    private static final int MEASURED = 100_000;
    /** Slack for the measurement itself (the MX bean call); far below one byte per segment. */
    private static final long SLACK = 4_096;

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private static CmNode waitingForReply(CmPair p) {
        p.b.listen(CmPair.B_V4.withPort(4791), 4, e -> { });
        CmNode n = p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(4791),
                ConnectParams.of(new byte[8], 4, 4), e -> { });
        p.runFor(1_000_000);
        assertEquals(CmState.MPAREQ_SENT, n.state());
        return n;
    }

    private static int ackFor(CmNode n, BytesStore<?, ?> buf) {
        TcpPacketBuilder tx = new TcpPacketBuilder();
        IpEndpoint from = n.remote();
        IpEndpoint to = n.local();
        tx.reset().ethernet(CmPair.MAC_A, CmPair.MAC_B).addresses(from.addressHi(), from.addressLo(),
                to.addressHi(), to.addressLo());
        tx.tcp().reset().ports(from.port(), to.port()).sequenceNumber(n.rcvNxt).acknowledgmentNumber(n.locSeq)
                .flags(TcpHeader.ACK).window(0xffff);
        return tx.build(buf, 0);
    }

    @Test
    void cmReceivePathAllocatesNothingPerSegment() {
        CmPair p = new CmPair();
        CmNode n = waitingForReply(p);
        BytesStore<?, ?> buf = BytesStore.wrap(new byte[256]);
        int len = ackFor(n, buf);
        for (int i = 0; i < WARMUP; i++) {
            p.a.receive(buf, 0, len);
        }
        long before = allocated();
        for (int i = 0; i < MEASURED; i++) {
            p.a.receive(buf, 0, len);
        }
        long bytes = allocated() - before;
        assertTrue(bytes < SLACK, bytes + " bytes for " + MEASURED + " segments");
        assertEquals(CmState.MPAREQ_SENT, n.state());
    }

    @Test
    void deviceSteeringAndLinkAllocateNothingPerFrame() {
        CmPair p = new CmPair();
        p.deviceA.quiet();
        p.deviceB.quiet();
        CmNode n = waitingForReply(p);
        BytesStore<?, ?> buf = BytesStore.wrap(new byte[256]);
        int len = ackFor(n, buf);
        for (int i = 0; i < WARMUP; i++) {
            p.deviceA.receive(buf, 0, len);
        }
        long before = allocated();
        for (int i = 0; i < MEASURED; i++) {
            p.deviceA.receive(buf, 0, len);
        }
        long steering = allocated() - before;
        assertTrue(steering < SLACK, steering + " bytes for " + MEASURED + " frames through the device");

        // frames over the link: B's device sends them to A, which steers them to the CM
        dev.irdmaemu.fw.wire.LinkPort sender = p.link.attach(0x02_00_00_00_00_ccL,
                dev.irdmaemu.fw.wire.FaultProfile.NONE, (s, o, l) -> { });
        for (int i = 0; i < WARMUP; i++) {
            sender.transmit(buf, 0, len);
            p.scheduler.runNext();
        }
        before = allocated();
        for (int i = 0; i < MEASURED; i++) {
            sender.transmit(buf, 0, len);
            p.scheduler.runNext();
        }
        long carried = allocated() - before;
        assertTrue(carried < SLACK, carried + " bytes for " + MEASURED + " frames over the link");
    }
}
