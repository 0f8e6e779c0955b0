package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.IwarpTestDriver;
import dev.irdmaemu.model.IwarpTestDriver.Buffer;
import dev.irdmaemu.model.IwarpTestDriver.Completion;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RDMA Write and RDMA Read (RFC 5040 §4.3-4.5) between two model nodes: tagged placement with REMOTE_WRITE,
 * Read Requests answered by the peer's responder from REMOTE_READ regions into the LOCAL_WRITE sinks, the ORD
 * limit (further Reads wait), read fence and local fence, inline Writes, Local Invalidate and Fast Register, and
 * the SQ completions in SQ order.
 */
class RdmaWriteReadTest {
    private final IwarpPair pair = new IwarpPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private List<Completion> completions(IwarpTestDriver n, IwarpTestDriver.Cq cq, int count) {
        List<Completion> got = new ArrayList<>();
        pair.runUntil(() -> {
            got.addAll(n.pollAll(cq));
            return got.size() >= count;
        }, 2_000_000_000L);
        return got;
    }

    @Test
    void anRdmaWriteLandsAtTheRemoteStagAndOffsetAndCompletes() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer src = pair.a.buffer(10_000, MemoryRegions.LOCAL_WRITE);
        pair.a.fill(src.gpa(), 10_000, 21);
        Buffer dst = pair.b.buffer(20_000, MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_WRITE);
        int idx = pair.a.postWrite(c.active, new SgeList().add(src.gpa(), 4000, src.stag())
                .add(src.gpa() + 4000, 6000, src.stag()), dst.stag(), dst.gpa() + 1000, SqWqe.SIGNALED);
        Completion done = completions(pair.a, c.aCq, 1).get(0);
        assertTrue(done.sq());
        assertFalse(done.error());
        assertEquals(idx, done.wqeIndex());
        assertEquals(SqOpcode.RDMA_WRITE.code(), done.opType());
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
        assertEquals(10_000, c.passive.engine().stats().bytesPlaced());
    }

    /**
     * The sink's region is a user VA over three scattered pages (its PBLEs name them in reverse order): the Write's
     * bytes land where the page list says, not where the VA would point in a flat address space, and the Read back
     * gathers them through the same PBLEs.
     */
    @Test
    void aWriteToAScatteredRegionLandsInThePagesItsPageListNames() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        long[] pages = new long[3];
        for (int i = 0; i < 3; i++) {
            pages[2 - i] = pair.b.alloc(2 * 4096);
            for (int j = 0; j < 2 * 4096; j++) {
                pair.b.store().writeByte(pair.b.off(pages[2 - i]) + j, (byte) 0xee);
            }
        }
        long va = 0x7f00_1234_0000L;
        int stag = pair.b.registerPages(va, pages, 3 * 4096, MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_WRITE
                | MemoryRegions.REMOTE_READ);
        Buffer src = pair.a.buffer(3 * 4096, MemoryRegions.LOCAL_WRITE);
        pair.a.fill(src.gpa(), 3 * 4096, 77);
        pair.a.postWrite(c.active, new SgeList().add(src.gpa() + 100, 3 * 4096 - 200, src.stag()), stag, va + 100,
                SqWqe.SIGNALED);
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
        Buffer sink = pair.a.buffer(3 * 4096, MemoryRegions.LOCAL_WRITE);
        pair.a.postRead(c.active, new SgeList().add(sink.gpa(), 3 * 4096 - 200, sink.stag()), stag, va + 100,
                SqWqe.SIGNALED);
        assertFalse(completions(pair.a, c.aCq, 1).get(0).error());
        byte[] back = pair.a.read(sink.gpa(), 3 * 4096 - 200);
        for (int i = 0; i < back.length; i++) {
            assertEquals(sent[100 + i], back[i], "read back byte " + i);
        }
    }

    @Test
    void inlineWriteCarriesTheWqesBytes() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer dst = pair.b.buffer(256, MemoryRegions.REMOTE_WRITE);
        BytesStore<?, Void> data = BytesStore.nativeStoreWithFixedCapacity(101);
        try {
            for (int i = 0; i < 90; i++) {
                data.writeByte(i, (byte) (255 - i));
            }
            pair.a.postInlineWrite(c.active, data, 0, 90, dst.stag(), dst.gpa() + 7, SqWqe.SIGNALED);
            completions(pair.a, c.aCq, 1);
            byte[] expect = new byte[90];
            data.read(0, expect, 0, 90);
            assertArrayEquals(expect, pair.b.read(dst.gpa() + 7, 90));
        } finally {
            data.releaseLast();
        }
    }

    @Test
    void anRdmaReadIntoTwoSinkSgesIsAnsweredByThePeerAndCompletes() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer remote = pair.b.buffer(50_000, MemoryRegions.REMOTE_READ);
        pair.b.fill(remote.gpa(), 50_000, 33);
        Buffer s1 = pair.a.buffer(3000, MemoryRegions.LOCAL_WRITE);
        Buffer s2 = pair.a.buffer(9000, MemoryRegions.LOCAL_WRITE);
        int idx = pair.a.postRead(c.active, new SgeList().add(s1.gpa(), 3000, s1.stag()).add(s2.gpa(), 9000,
                s2.stag()), remote.stag(), remote.gpa() + 500, SqWqe.SIGNALED);
        Completion done = completions(pair.a, c.aCq, 1).get(0);
        assertFalse(done.error());
        assertEquals(idx, done.wqeIndex());
        assertEquals(SqOpcode.RDMA_READ.code(), done.opType());
        assertArrayEquals(pair.b.read(remote.gpa() + 500, 3000), pair.a.read(s1.gpa(), 3000));
        assertArrayEquals(pair.b.read(remote.gpa() + 3500, 9000), pair.a.read(s2.gpa(), 9000));
        // One Read Request per sink SGE (MSN 1 and 2 on queue 1) and Read Responses to each sink STag.
        List<RecordingTraceSink.Recorded> rreq = new ArrayList<>(pair.a.traceSink().of(TraceKind.FPDU_TX));
        rreq.removeIf(e -> !"RDMA_READ_REQUEST".equals(e.get("op")));
        assertEquals(2, rreq.size());
        assertEquals("1", rreq.get(0).get("qn"));
        assertEquals("1", rreq.get(0).get("msn"));
        assertEquals("2", rreq.get(1).get("msn"));
        assertEquals(2, c.passive.engine().stats().readResponsesSent());
        assertEquals(0, c.active.engine().readsOutstanding());
    }

    @Test
    void theOrdLimitHoldsFurtherReadsAndTheSqBehindThem() {
        IwarpPair.Conn c = pair.connect(5, 6, false, s -> s.ord = 2, s -> { });
        Buffer remote = pair.b.buffer(64 * 1024, MemoryRegions.REMOTE_READ);
        pair.b.fill(remote.gpa(), 64 * 1024, 5);
        Buffer sink = pair.a.buffer(64 * 1024, MemoryRegions.LOCAL_WRITE);
        for (int i = 0; i < 6; i++) {
            pair.a.postRead(c.active, new SgeList().add(sink.gpa() + 8192L * i, 8192, sink.stag()), remote.stag(),
                    remote.gpa() + 8192L * i, SqWqe.SIGNALED);
        }
        int maxOutstanding = 0;
        List<Completion> got = new ArrayList<>();
        while (got.size() < 6) {
            pair.scheduler.runNext();
            maxOutstanding = Math.max(maxOutstanding, c.active.engine().readsOutstanding());
            got.addAll(pair.a.pollAll(c.aCq));
        }
        assertEquals(2, maxOutstanding, "never more than ORD Read Requests outstanding");
        for (int i = 0; i < 6; i++) {
            assertEquals(3 + i, got.get(i).wqeIndex(), "completions in SQ order");
        }
        assertArrayEquals(pair.b.read(remote.gpa(), 48 * 1024), pair.a.read(sink.gpa(), 48 * 1024));
    }

    @Test
    void aReadFenceWaitsForEarlierReadsAndALocalFenceForEverything() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer remote = pair.b.buffer(32 * 1024, MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE);
        pair.b.fill(remote.gpa(), 16 * 1024, 77);
        Buffer sink = pair.a.buffer(16 * 1024, MemoryRegions.LOCAL_WRITE);
        // Read 16 KiB, then a Write with READFENCE that copies the sink (what it must only do once the Read
        // landed) back to the remote buffer's second half.
        pair.a.postRead(c.active, new SgeList().add(sink.gpa(), 16 * 1024, sink.stag()), remote.stag(),
                remote.gpa(), 0);
        pair.a.postWrite(c.active, new SgeList().add(sink.gpa(), 16 * 1024, sink.stag()), remote.stag(),
                remote.gpa() + 16 * 1024, SqWqe.SIGNALED | SqWqe.READ_FENCE);
        completions(pair.a, c.aCq, 1);
        assertArrayEquals(pair.b.read(remote.gpa(), 16 * 1024), pair.b.read(remote.gpa() + 16 * 1024, 16 * 1024));
        // A NOP with LOCALFENCE behind an unacknowledged Send starts only once the Send completed.
        Buffer rbuf = pair.b.buffer(64, MemoryRegions.LOCAL_WRITE);
        pair.b.postRecv(c.passive, new SgeList().add(rbuf.gpa(), 64, rbuf.stag()));
        Buffer s = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 64, s.stag()), 0, 0);
        int nop = pair.a.reserve(c.active, 1);
        pair.a.wqeAt(c.active, nop, 1).writeNop(c.active.sqPolarity, true);
        long nopHeader = pair.a.store().readLong(pair.a.off(c.active.sq + nop * 32L + 24)) | 1L << SqWqe.BIT_LOCALFENCE;
        pair.a.store().writeLong(pair.a.off(c.active.sq + nop * 32L + 24), nopHeader);
        pair.a.ring(c.active);
        pair.run(50_000L);
        assertEquals(1, c.active.engine().sqOutstanding(), "the Send waits for its ACK; the fenced NOP not started");
        assertTrue(pair.a.pollAll(c.aCq).isEmpty());
        Completion n = completions(pair.a, c.aCq, 1).get(0);
        assertEquals(nop, n.wqeIndex());
        assertEquals(SqOpcode.NOP.code(), n.opType());
    }

    @Test
    void localInvalidateAndFastRegisterChangeWhatThePeerMayWrite() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer target = pair.b.buffer(4096, MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_WRITE);
        pair.b.postLocalInvalidate(c.passive, target.stag(), SqWqe.SIGNALED);
        Completion inv = completions(pair.b, c.bCq, 1).get(0);
        assertEquals(SqOpcode.LOCAL_INVALIDATE.code(), inv.opType());
        assertFalse(pair.b.stagValid(target.stag()));
        // Fast Register a new STag over the same memory (irdma_alloc_mr, then IB_WR_REG_MR with key 0x77), then the
        // peer writes into it.
        IwarpTestDriver.FastRegion region = pair.b.allocateFastRegister(1);
        int stag = IwarpTestDriver.fastRegisteredStag(region, 0x77);
        assertFalse(pair.b.stagValid(stag), "allocated, not valid before the Fast Register");
        pair.b.postFastRegister(c.passive, region, 0x77, target.gpa(), 4096,
                MemoryRegions.REMOTE_WRITE | MemoryRegions.LOCAL_WRITE, SqWqe.SIGNALED);
        Completion fr = completions(pair.b, c.bCq, 1).get(0);
        assertEquals(SqOpcode.FAST_REGISTER.code(), fr.opType());
        assertFalse(fr.error());
        assertTrue(pair.b.stagValid(stag));
        Buffer src = pair.a.buffer(100, MemoryRegions.LOCAL_WRITE);
        pair.a.fill(src.gpa(), 100, 9);
        pair.a.postWrite(c.active, new SgeList().add(src.gpa(), 100, src.stag()), stag, target.gpa() + 50,
                SqWqe.SIGNALED);
        completions(pair.a, c.aCq, 1);
        assertArrayEquals(pair.a.read(src.gpa(), 100), pair.b.read(target.gpa() + 50, 100));
    }

    @Test
    void readResponsesTheSourceOwesAreInterleavedWithItsOwnSqWork() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        // A reads 1 MiB from B while B writes 1 MiB to A: B's responder and B's SQ share B's transmit.
        Buffer remote = pair.b.buffer(1 << 20, MemoryRegions.REMOTE_READ | MemoryRegions.LOCAL_WRITE);
        Buffer sink = pair.a.buffer(2 << 20, MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_WRITE);
        pair.a.postRead(c.active, new SgeList().add(sink.gpa(), 1 << 20, sink.stag()), remote.stag(), remote.gpa(),
                SqWqe.SIGNALED);
        pair.run(200_000L);
        pair.b.postWrite(c.passive, new SgeList().add(remote.gpa(), 1 << 20, remote.stag()), sink.stag(),
                sink.gpa() + (1 << 20), SqWqe.SIGNALED);
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
