package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * FPDU alignment on the wire (RFC 5044 §8): every data segment the model sends, first transmissions and
 * retransmissions alike, carries a whole number of FPDUs, small ones packed together, none split; so the peer's
 * receive path never has to stage an FPDU across segments on a clean link, and the IEQ sees nothing.
 */
class FpduAlignmentTest {
    private final List<byte[]> payloads = new ArrayList<>();
    private final TcpPacket view = new TcpPacket();
    private DriverPair pair;

    @AfterEach
    void close() {
        pair.close();
    }

    private void tap(BytesStore<?, ?> s, long o, int l) {
        if (!view.wrap(s, o, l).validate().accepted() || view.tcpPayloadLength() == 0) {
            return;
        }
        // only the connection of the QPs under test (A's port 40000 <-> B's 20000), after the LSMM
        int src = view.tcp().sourcePort();
        if (src != 40000) {
            return;
        }
        byte[] b = new byte[(int) view.tcpPayloadLength()];
        s.read(o + view.tcpPayloadOffset(), b, 0, b.length);
        payloads.add(b);
    }

    private static boolean wholeFpdus(byte[] p) {
        int at = 0;
        while (at + 2 <= p.length) {
            at += Fpdu.totalLengthFor((p[at] & 0xff) << 8 | p[at + 1] & 0xff);
        }
        return at == p.length;
    }

    private void workload() {
        DriverPair.Conn c = pair.connect(false);
        Buffer src = pair.a.buffer(64 * 1024, Access.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(64 * 1024, Access.REMOTE_WRITE);
        Buffer rbuf = pair.b.buffer(4096, Access.LOCAL_WRITE);
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 12; i++) {
                pair.b.postRecv(c.passive, rbuf.gpa(), 4096, rbuf.stag());
            }
            for (int i = 0; i < 10; i++) {
                pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).sge(src.gpa(), 64, src.stag()));
            }
            pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE)
                    .sge(src.gpa(), 4096 * (round % 5 + 1), src.stag()).remote(dst.gpa(), dst.stag()));
            pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .sge(src.gpa(), 3000, src.stag()));
            int[] done = {0};
            // B's consumer polls its receives (irdma_poll_cq frees their RQ slots)
            pair.runUntil(() -> (done[0] += pair.a.pollAll(c.aCq).size()) >= 1, 5_000_000_000L);
            pair.b.consume(c.bCq);
        }
        assertTrue(payloads.size() > 100, "segments seen: " + payloads.size());
        for (byte[] p : payloads) {
            assertTrue(wholeFpdus(p), "a segment of " + p.length + " bytes splits an FPDU");
        }
        assertTrue(payloads.stream().anyMatch(p -> countFpdus(p) >= 5),
                "small FPDUs are packed into one segment");
    }

    private static int countFpdus(byte[] p) {
        int n = 0;
        int at = 0;
        while (at + 2 <= p.length) {
            at += Fpdu.totalLengthFor((p[at] & 0xff) << 8 | p[at + 1] & 0xff);
            n++;
        }
        return n;
    }

    @Test
    void everySegmentCarriesWholeFpdusAndTheIeqSeesNothing() {
        pair = new DriverPair(16L << 20, FaultProfile.NONE, FaultProfile.NONE, 5, (t, s, o, l) -> tap(s, o, l));
        workload();
        assertEquals(0, pair.b.dev().iwarp().ieqPartial());
        assertEquals(0, pair.b.dev().iwarp().ieqOutOfOrder());
    }

    @Test
    void retransmissionsOverALossyLinkKeepTheAlignment() {
        FaultProfile lossy = FaultProfile.delay(10_000).withLoss(0.05).withReordering(0.03, 20_000);
        pair = new DriverPair(16L << 20, lossy, lossy, 9, (t, s, o, l) -> tap(s, o, l));
        workload();
        assertTrue(pair.link.framesLost() > 0);
        assertTrue(pair.b.dev().iwarp().ieqOutOfOrder() > 0, "reordered segments are shown to the IEQ");
    }
}
