package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.PudaLayout;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Two model nodes on one simulated link: what A's ILQ sends, B's classifier hands to B's ILQ. */
class TwoNodeWireTest {
    @Test
    void ilqSendOnOneNodeArrivesInTheOtherNodesIlq() {
        SimScheduler sched = new SimScheduler(11);
        List<Long> tapped = new ArrayList<>();
        Link link = new Link(sched, (t, s, o, l) -> tapped.add(t));
        try (TestDriver a = new TestDriver(16L << 20, sched); TestDriver b = new TestDriver(16L << 20, sched)) {
            a.dev.attach(link, BringUpTest.MAC_REMOTE, FaultProfile.NONE);
            b.dev.attach(link, BringUpTest.MAC_LOCAL, FaultProfile.NONE);
            TestDriver.Puda ilqA = BringUpTest.bringUp(a);
            TestDriver.Puda ilqB = BringUpTest.bringUp(b);
            BytesStore<?, Void> f = BytesStore.nativeStoreWithFixedCapacity(2048);
            TcpPacketBuilder pb = new TcpPacketBuilder().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                    .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
            pb.tcp().ports(45000, 20000).sequenceNumber(0xabcdef01L).flags(TcpHeader.SYN).window(1000).mss(1460);
            int len = pb.build(f, 0);
            // gen2: the buffer begins at the TCP header; A's device adds Ethernet and IPv4 from the AH
            a.ilqAh(0, BringUpTest.MAC_REMOTE, BringUpTest.REMOTE, BringUpTest.MAC_LOCAL, BringUpTest.LOCAL, 0);
            long buf = a.tcpSegmentOf(f, len);
            f.releaseLast();
            long t0 = sched.now();
            a.pudaSend(ilqA, buf, len - 34, 24, 0);
            a.run();
            Cqe sent = a.pollPuda(ilqA);
            assertNotNull(sent);
            assertTrue(sent.sq());
            Cqe got = b.pollPuda(ilqB);
            assertNotNull(got);
            assertEquals(1, got.qpId());
            long mem = b.off(ilqB.buffers[0]);
            assertEquals(45000, NetworkOrder.u16(b.store(), mem + PudaLayout.TCP_OFFSET));
            assertEquals(0xabcdef01L, NetworkOrder.u32(b.store(), mem + PudaLayout.TCP_OFFSET + 4));
            assertEquals(1, a.dev.port().txFrames());
            assertEquals(1, b.dev.port().rxPuda());
            assertEquals(1, tapped.size());
            assertTrue(sched.now() > t0);
        }
    }
}
