package dev.irdmaemu.model.roce.rc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.PathMtu;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The requester's limits and its gather/scatter (IBA Vol. 1 §9.7.7, rxe_req.c): no more READs outstanding than
 * the ORD, a SEND gathered from several fragments and scattered into several RQ fragments whose boundaries fall
 * inside packets, and the solicited bit and immediate only on a message's last packet.
 */
class RcRequesterTest {
    private static final int BTH = 14 + 20 + 8;

    @Test
    void noMoreReadsOutstandingThanTheOrd() {
        RcPair pair = new RcPair(21, PathMtu.MTU_1024, 0, 0);
        pair.a.path.reads(2, 16);
        pair.up();
        SendRequest r = new SendRequest();
        for (int i = 0; i < 4; i++) {
            r.reset(SendOpcode.RDMA_READ, i, true).add(RcPair.va(RcPair.SINK) + i * 4096L, 3000, RcPair.SINK);
            r.remote(RcPair.va(RcPair.EXPOSED) + i * 4096L, RcPair.EXPOSED);
            pair.a.engine.post(r);
        }
        pair.a.engine.service(0, 100);
        List<byte[]> sent = pair.a.out.drain();
        assertEquals(2, sent.size(), "two READ requests, then the ORD holds the rest");
        for (byte[] f : sent) {
            assertEquals(BthOpcode.RC_RDMA_READ_REQUEST.code(), f[BTH] & 0xff);
        }
        assertEquals(6, Psn.diff(pair.a.engine.nextPsn(), 0), "each READ took three PSNs");
        sent.forEach(f -> pair.a.out.transmit(net.openhft.chronicle.bytes.BytesStore.wrap(f), 0, f.length));
        assertTrue(pair.run(() -> pair.a.done.sends.size() == 4, 10_000));
        pair.a.done.sends.forEach(s -> assertEquals(RcStatus.SUCCESS, s.status()));
    }

    @Test
    void aSendIsGatheredFromFragmentsAndScatteredIntoFragments() {
        RcPair pair = new RcPair(22, PathMtu.MTU_256, 0, 0).up();
        byte[] data = new byte[1000];
        new java.util.SplittableRandom(5).nextBytes(data);
        pair.a.store(RcPair.SOURCE).write(100, data, 0, 300);
        pair.a.store(RcPair.SOURCE).write(5000, data, 300, 1);
        pair.a.store(RcPair.SOURCE).write(9000, data, 301, 699);
        SendRequest s = new SendRequest();
        ScatterGatherList g = s.reset(SendOpcode.SEND_WITH_IMMEDIATE, 1, true);
        g.add(RcPair.va(RcPair.SOURCE) + 100, 300, RcPair.SOURCE);
        g.add(RcPair.va(RcPair.SOURCE) + 5000, 1, RcPair.SOURCE);
        g.add(RcPair.va(RcPair.SOURCE) + 9000, 699, RcPair.SOURCE);
        s.solicited(true).immediate(0x0bad_cafe);
        TestReceiveQueue rq = pair.b.rq;
        rq.post(7, 0, 0, 0); // replaced below by a three-fragment WQE
        RcReceiveQueue threeFragments = new RcReceiveQueue() {
            @Override
            public boolean peek(ReceiveWqe into) {
                ScatterGatherList l = into.reset(7);
                l.add(RcPair.va(RcPair.RECEIVE) + 10, 257, RcPair.RECEIVE);
                l.add(RcPair.va(RcPair.RECEIVE) + 20_000, 3, RcPair.RECEIVE);
                l.add(RcPair.va(RcPair.RECEIVE) + 40_000, 1000, RcPair.RECEIVE);
                return true;
            }

            @Override
            public void consume() {
                rq.consume();
            }
        };
        pair.b.engine = new RcEngine(pair.b.path, pair.b.regions, threeFragments, pair.b.done, pair.b.done, pair.b.out,
                16);
        pair.b.engine.modify(RcState.READY_TO_RECEIVE, 0);
        pair.b.engine.modify(RcState.READY_TO_SEND, 0);
        pair.a.engine.post(s);
        pair.a.engine.service(0, 100);
        List<byte[]> sent = pair.a.out.drain();
        assertEquals(4, sent.size());
        for (int i = 0; i < 4; i++) {
            boolean se = (sent.get(i)[BTH + 1] & 0x80) != 0;
            assertEquals(i == 3, se, "SE only on the last packet");
        }
        assertEquals(BthOpcode.RC_SEND_LAST_WITH_IMMEDIATE.code(), sent.get(3)[BTH] & 0xff);
        sent.forEach(f -> pair.a.out.transmit(net.openhft.chronicle.bytes.BytesStore.wrap(f), 0, f.length));
        assertTrue(pair.run(() -> pair.a.done.sends.size() == 1, 10_000));
        RecordedCompletions.Receive r = pair.b.done.receives.get(0);
        assertEquals(1000, r.bytes());
        assertEquals(0x0bad_cafe, r.immediate());
        byte[] got = new byte[1000];
        pair.b.store(RcPair.RECEIVE).read(10, got, 0, 257);
        pair.b.store(RcPair.RECEIVE).read(20_000, got, 257, 3);
        pair.b.store(RcPair.RECEIVE).read(40_000, got, 260, 740);
        assertArrayEquals(data, got);
    }
}
