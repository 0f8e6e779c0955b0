package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RDMA Write and RDMA Read (RFC 5040 §4.3-4.5) between two model nodes: tagged placement with REMOTE_WRITE,
 * Read Requests answered by the peer's responder from REMOTE_READ regions into the LOCAL_WRITE sinks, the ORD
 * limit (further Reads wait), read fence and local fence, inline Writes, Local Invalidate and Fast Register, and
 * the SQ completions in SQ order.
 */
class RdmaWriteReadTest {
    private final DriverPair pair = new DriverPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private List<Completion> completions(DriverPair.Node n, CompletionQueue cq, int count) {
        List<Completion> got = new ArrayList<>();
        pair.runUntil(() -> {
            got.addAll(n.pollAll(cq));
            return got.size() >= count;
        }, 2_000_000_000L);
        return got;
    }

    @Test
    void anRdmaWriteLandsAtTheRemoteStagAndOffsetAndCompletes() {
        DriverPair.Conn c = pair.connect(false);
        Buffer src = pair.a.buffer(10_000, Access.LOCAL_WRITE);
        pair.a.fill(src.gpa(), 10_000, 21);
        Buffer dst = pair.b.buffer(20_000, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        long id = pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa(), 4000, src.stag()).sge(src.gpa() + 4000, 6000, src.stag())
                .remote(dst.gpa() + 1000, dst.stag()));
        Completion done = completions(pair.a, c.aCq, 1).get(0);
        assertTrue(done.sq());
        assertFalse(done.error());
        assertEquals(id, done.wrId());
        assertEquals(List.of(3), pair.a.cqeWqeIndexes(c.active, true));
        assertEquals(WcOpcode.RDMA_WRITE, done.opcode());
        assertArrayEquals(pair.a.read(src.gpa(), 10_000), pair.b.read(dst.gpa() + 1000, 10_000));
        assertEquals(0, pair.b.store().readLong(pair.b.off(dst.gpa())), "nothing before the offset");
        assertTrue(pair.b.pollAll(c.bCq).isEmpty(), "an RDMA Write completes nothing at the Data Sink");
        // Tagged FPDUs: TO advancing by 1440 (MULPDU 1454 less the 14-byte tagged header), L on the last.
        List<RecordingTraceSink.Recorded> w = new ArrayList<>(pair.a.traceSink().of(TraceKind.FPDU_TX));
        w.removeIf(e -> !"RDMA_WRITE".equals(e.get("op")) || "0".equals(e.get("payload")));
        assertEquals(7, w.size());
        assertEquals(Long.toHexString(dst.gpa() + 1000), w.get(0).get("to").substring(2));
        assertEquals(Long.toHexString(dst.gpa() + 1000 + 1440), w.get(1).get("to").substring(2));
        assertEquals("true", w.get(6).get("last"));
        assertEquals(10_000, pair.b.engine(c.passive).stats().bytesPlaced());
    }

    /**
     * The sink's region is a user VA over three scattered pages (its PBLEs name them in reverse order): the Write's
     * bytes land where the page list says, not where the VA would point in a flat address space, and the Read back
     * gathers them through the same PBLEs.
     */
    @Test
    void aWriteToAScatteredRegionLandsInThePagesItsPageListNames() {
        DriverPair.Conn c = pair.connect(false);
        long[] pages = new long[3];
        for (int i = 0; i < 3; i++) {
            pages[2 - i] = pair.b.alloc(2 * 4096);
            for (int j = 0; j < 2 * 4096; j++) {
                pair.b.store().writeByte(pair.b.off(pages[2 - i]) + j, (byte) 0xee);
            }
        }
        long va = 0x7f00_1234_0000L;
        MemoryRegion region = pair.b.verbs.registerPages(pair.b.pd, va, pages, 3 * 4096,
                Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        assertEquals(1, region.pbleLevel(), "a level-1 PBL naming the three pages");
        int stag = region.rkey();
        Buffer src = pair.a.buffer(3 * 4096, Access.LOCAL_WRITE);
        pair.a.fill(src.gpa(), 3 * 4096, 77);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa() + 100, 3 * 4096 - 200, src.stag()).remote(va + 100, stag));
        assertFalse(completions(pair.a, c.aCq, 1).get(0).error());
        byte[] sent = pair.a.read(src.gpa(), 3 * 4096);
        for (int p = 0; p < 3; p++) {
            byte[] page = pair.b.read(pages[p], 2 * 4096);
            for (int j = 0; j < 4096; j++) {
                int at = p * 4096 + j;
                byte want = at < 100 || at >= 3 * 4096 - 100 ? (byte) 0xee : sent[at];
                assertEquals(want, page[j], "page " + p + " byte " + j);
                assertEquals((byte) 0xee, page[4096 + j], "nothing in the gap after page " + p);
            }
        }
        // and back: A reads the region into a fresh sink through the same page list
        Buffer sink = pair.a.buffer(3 * 4096, Access.LOCAL_WRITE);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .sge(sink.gpa(), 3 * 4096 - 200, sink.stag()).remote(va + 100, stag));
        assertFalse(completions(pair.a, c.aCq, 1).get(0).error());
        byte[] back = pair.a.read(sink.gpa(), 3 * 4096 - 200);
        for (int i = 0; i < back.length; i++) {
            assertEquals(sent[100 + i], back[i], "read back byte " + i);
        }
    }

    @Test
    void inlineWriteCarriesTheWqesBytes() {
        DriverPair.Conn c = pair.connect(false);
        Buffer dst = pair.b.buffer(256, Access.REMOTE_WRITE);
        // irdma_post_send IB_WR_RDMA_WRITE with IB_SEND_INLINE: the bytes copied from the SGE into the WQE
        Buffer data = pair.a.buffer(101, Access.LOCAL_WRITE);
        for (int i = 0; i < 90; i++) {
            pair.a.store().writeByte(pair.a.off(data.gpa()) + i, (byte) (255 - i));
        }
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE)
                .flags(SendWorkRequest.SIGNALED | SendWorkRequest.INLINE).sge(data.gpa(), 90, data.stag())
                .remote(dst.gpa() + 7, dst.stag()));
        completions(pair.a, c.aCq, 1);
        assertArrayEquals(pair.a.read(data.gpa(), 90), pair.b.read(dst.gpa() + 7, 90));
    }

    @Test
    void anRdmaReadIntoTwoSinkSgesIsAnsweredByThePeerAndCompletes() {
        DriverPair.Conn c = pair.connect(false);
        Buffer remote = pair.b.buffer(50_000, Access.REMOTE_READ);
        pair.b.fill(remote.gpa(), 50_000, 33);
        Buffer s1 = pair.a.buffer(3000, Access.LOCAL_WRITE);
        Buffer s2 = pair.a.buffer(9000, Access.LOCAL_WRITE);
        long id = pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .sge(s1.gpa(), 3000, s1.stag()).sge(s2.gpa(), 9000, s2.stag()).remote(remote.gpa() + 500,
                        remote.stag()));
        Completion done = completions(pair.a, c.aCq, 1).get(0);
        assertFalse(done.error());
        assertEquals(id, done.wrId());
        assertEquals(List.of(3), pair.a.cqeWqeIndexes(c.active, true));
        assertEquals(WcOpcode.RDMA_READ, done.opcode());
        assertArrayEquals(pair.b.read(remote.gpa() + 500, 3000), pair.a.read(s1.gpa(), 3000));
        assertArrayEquals(pair.b.read(remote.gpa() + 3500, 9000), pair.a.read(s2.gpa(), 9000));
        // One Read Request per sink SGE (MSN 1 and 2 on queue 1) and Read Responses to each sink STag.
        List<RecordingTraceSink.Recorded> rreq = new ArrayList<>(pair.a.traceSink().of(TraceKind.FPDU_TX));
        rreq.removeIf(e -> !"RDMA_READ_REQUEST".equals(e.get("op")));
        assertEquals(2, rreq.size());
        assertEquals("1", rreq.get(0).get("qn"));
        assertEquals("1", rreq.get(0).get("msn"));
        assertEquals("2", rreq.get(1).get("msn"));
        assertEquals(2, pair.b.engine(c.passive).stats().readResponsesSent());
        assertEquals(0, pair.a.engine(c.active).readsOutstanding());
    }

    @Test
    void theOrdLimitHoldsFurtherReadsAndTheSqBehindThem() {
        DriverPair.Conn c = pair.connect(false, o -> o.ord = 2, o -> { });
        Buffer remote = pair.b.buffer(64 * 1024, Access.REMOTE_READ);
        pair.b.fill(remote.gpa(), 64 * 1024, 5);
        Buffer sink = pair.a.buffer(64 * 1024, Access.LOCAL_WRITE);
        for (int i = 0; i < 6; i++) {
            pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                    .sge(sink.gpa() + 8192L * i, 8192, sink.stag()).remote(remote.gpa() + 8192L * i, remote.stag()));
        }
        int maxOutstanding = 0;
        List<Completion> got = new ArrayList<>();
        while (got.size() < 6) {
            pair.scheduler.runNext();
            maxOutstanding = Math.max(maxOutstanding, pair.a.engine(c.active).readsOutstanding());
            got.addAll(pair.a.pollAll(c.aCq));
        }
        assertEquals(2, maxOutstanding, "never more than ORD Read Requests outstanding");
        assertEquals(List.of(3, 4, 5, 6, 7, 8), pair.a.cqeWqeIndexes(c.active, true), "completions in SQ order");
        for (int i = 1; i < 6; i++) {
            assertEquals(got.get(0).wrId() + i, got.get(i).wrId(), "completions in SQ order");
        }
        assertArrayEquals(pair.b.read(remote.gpa(), 48 * 1024), pair.a.read(sink.gpa(), 48 * 1024));
    }

    @Test
    void aReadFenceWaitsForEarlierReadsAndALocalFenceForEverything() {
        DriverPair.Conn c = pair.connect(false);
        Buffer remote = pair.b.buffer(32 * 1024, Access.REMOTE_READ | Access.REMOTE_WRITE);
        pair.b.fill(remote.gpa(), 16 * 1024, 77);
        Buffer sink = pair.a.buffer(16 * 1024, Access.LOCAL_WRITE);
        // Read 16 KiB, then a Write with READFENCE that copies the sink (what it must only do once the Read
        // landed) back to the remote buffer's second half.
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).sge(sink.gpa(), 16 * 1024, sink.stag())
                .remote(remote.gpa(), remote.stag()));
        // verbs.c irdma_post_send: IB_SEND_FENCE is the WQE's READFENCE
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE)
                .flags(SendWorkRequest.SIGNALED | SendWorkRequest.FENCE).sge(sink.gpa(), 16 * 1024, sink.stag())
                .remote(remote.gpa() + 16 * 1024, remote.stag()));
        completions(pair.a, c.aCq, 1);
        assertArrayEquals(pair.b.read(remote.gpa(), 16 * 1024), pair.b.read(remote.gpa() + 16 * 1024, 16 * 1024));
        // A Local Invalidate (verbs.c sets LOCALFENCE on every IB_WR_LOCAL_INV) behind an unacknowledged Send starts
        // only once the Send completed.
        Buffer rbuf = pair.b.buffer(64, Access.LOCAL_WRITE);
        pair.b.postRecv(c.passive, rbuf.gpa(), 64, rbuf.stag());
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        Buffer spare = pair.a.buffer(64, Access.LOCAL_WRITE);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).sge(s.gpa(), 64, s.stag()));
        long inv = pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.LOCAL_INV).flags(SendWorkRequest.SIGNALED)
                .invalidate(spare.stag()));
        pair.run(50_000L);
        assertEquals(1, pair.a.engine(c.active).sqOutstanding(),
                "the Send waits for its ACK; the fenced Local Invalidate not started");
        assertTrue(pair.a.pollAll(c.aCq).isEmpty());
        assertTrue(pair.a.stagValid(spare.stag()));
        Completion n = completions(pair.a, c.aCq, 1).get(0);
        assertEquals(inv, n.wrId());
        assertEquals(WcOpcode.LOCAL_INV, n.opcode());
        List<Integer> sq = pair.a.cqeWqeIndexes(c.active, true);
        assertEquals(6, sq.get(sq.size() - 1), "Read 3, Write 4, Send 5 (unsignaled), Local Invalidate 6");
        assertFalse(pair.a.stagValid(spare.stag()));
    }

    @Test
    void localInvalidateAndFastRegisterChangeWhatThePeerMayWrite() {
        DriverPair.Conn c = pair.connect(false);
        Buffer target = pair.b.buffer(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        pair.b.post(c.passive, pair.b.wr().opcode(WrOpcode.LOCAL_INV).flags(SendWorkRequest.SIGNALED)
                .invalidate(target.stag()));
        Completion inv = completions(pair.b, c.bCq, 1).get(0);
        assertEquals(WcOpcode.LOCAL_INV, inv.opcode());
        assertFalse(pair.b.stagValid(target.stag()));
        // Fast Register a new STag over the same memory (irdma_alloc_mr, ib_map_mr_sg, then IB_WR_REG_MR with key
        // 0x77), then the peer writes into it.
        MemoryRegion region = pair.b.verbs.allocateFastRegister(pair.b.pd, 1, 0);
        int stag = region.rkey() & ~0xff | 0x77;
        assertFalse(pair.b.stagValid(stag), "allocated, not valid before the Fast Register");
        assertEquals(1, region.map(target.gpa(), 4096));
        pair.b.post(c.passive, pair.b.wr().opcode(WrOpcode.REG_MR).flags(SendWorkRequest.SIGNALED)
                .register(region, stag, Access.REMOTE_WRITE | Access.LOCAL_WRITE));
        Completion fr = completions(pair.b, c.bCq, 1).get(0);
        assertEquals(WcOpcode.REG_MR, fr.opcode());
        assertFalse(fr.error());
        assertTrue(pair.b.stagValid(stag));
        Buffer src = pair.a.buffer(100, Access.LOCAL_WRITE);
        pair.a.fill(src.gpa(), 100, 9);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa(), 100, src.stag()).remote(target.gpa() + 50, stag));
        completions(pair.a, c.aCq, 1);
        assertArrayEquals(pair.a.read(src.gpa(), 100), pair.b.read(target.gpa() + 50, 100));
    }

    @Test
    void readResponsesTheSourceOwesAreInterleavedWithItsOwnSqWork() {
        DriverPair.Conn c = pair.connect(false);
        // A reads 1 MiB from B while B writes 1 MiB to A: B's responder and B's SQ share B's transmit.
        Buffer remote = pair.b.buffer(1 << 20, Access.REMOTE_READ | Access.LOCAL_WRITE);
        Buffer sink = pair.a.buffer(2 << 20, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .sge(sink.gpa(), 1 << 20, sink.stag()).remote(remote.gpa(), remote.stag()));
        pair.run(200_000L);
        pair.b.post(c.passive, pair.b.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(remote.gpa(), 1 << 20, remote.stag()).remote(sink.gpa() + (1 << 20), sink.stag()));
        completions(pair.a, c.aCq, 1);
        completions(pair.b, c.bCq, 1);
        List<RecordingTraceSink.Recorded> tx = new ArrayList<>(pair.b.traceSink().of(TraceKind.FPDU_TX));
        tx.removeIf(e -> !"RDMA_WRITE".equals(e.get("op")) && !"RDMA_READ_RESPONSE".equals(e.get("op")));
        int firstWrite = -1;
        int lastResponse = -1;
        for (int i = 0; i < tx.size(); i++) {
            if (firstWrite < 0 && "RDMA_WRITE".equals(tx.get(i).get("op"))) {
                firstWrite = i;
            }
            if ("RDMA_READ_RESPONSE".equals(tx.get(i).get("op"))) {
                lastResponse = i;
            }
        }
        assertTrue(firstWrite >= 0 && firstWrite < lastResponse, "B's Write started before the responses ended");
        int switches = 0;
        for (int i = firstWrite + 1; i <= lastResponse; i++) {
            if (!tx.get(i).get("op").equals(tx.get(i - 1).get("op"))) {
                switches++;
            }
        }
        assertTrue(switches > 100, "FPDU by FPDU turns, not one message after the other: " + switches);
    }
}
