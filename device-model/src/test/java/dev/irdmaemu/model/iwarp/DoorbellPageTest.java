package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.IwarpTestDriver;
import dev.irdmaemu.model.IwarpTestDriver.Buffer;
import dev.irdmaemu.model.IwarpTestDriver.Completion;
import dev.irdmaemu.model.IwarpTestDriver.Qp;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The user doorbell page (verbs.c irdma_alloc_ucontext / irdma_mmap: BAR0 + 8 MiB - 64 KiB) rings the same
 * doorbells as PFPE_WQEALLOC (+0x00, the QP id) and PFPE_CQARM (+0x40, libirdma's IRDMA_DB_CQ_OFFSET, the CQ id),
 * and the device writes its consumed SQ tail into quadword 0 of the QP shadow area (IRDMA_QP_DBSA_HW_SQ_TAIL) as
 * it fetches SQ WQEs.
 */
class DoorbellPageTest {
    private static final long WQE_ALIAS = IwarpTestDriver.USER_DB_PAGE + Gen2Registers.DB_PAGE_WQE_ALLOC;
    private static final long ARM_ALIAS = IwarpTestDriver.USER_DB_PAGE + Gen2Registers.DB_PAGE_CQ_ARM;

    private final IwarpPair pair = new IwarpPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private Completion next(IwarpTestDriver n, IwarpTestDriver.Cq cq) {
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = n.poll(cq)) != null, 500_000_000L);
        return got[0];
    }

    private static int shadowTail(IwarpTestDriver n, Qp qp) {
        return Gen2Registers.qpShadowSqTailOf(n.store().readLong(n.off(qp.shadowArea)));
    }

    /** A signaled Send written into the SQ as uk.c does, without a doorbell. */
    private static int writeSend(IwarpTestDriver n, Qp qp, Buffer s, int len) {
        SgeList sges = new SgeList().add(s.gpa(), len, s.stag());
        int quanta = SqWqe.fragmentQuanta(sges.count());
        int idx = n.reserve(qp, quanta);
        n.wqeAt(qp, idx, quanta).writeSend(qp.sqPolarity, SqOpcode.RDMA_SEND, sges, SqWqe.SIGNALED, 0, 0);
        return idx;
    }

    @Test
    void aSendRungThroughTheUserPageIsFetchedSentAndCompletedAsWithWqeAlloc() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer s = pair.a.buffer(300, MemoryRegions.LOCAL_WRITE);
        pair.a.fill(s.gpa(), 300, 7);
        Buffer r = pair.b.buffer(512, MemoryRegions.LOCAL_WRITE);
        pair.b.postRecv(c.passive, new SgeList().add(r.gpa(), 512, r.stag()));
        int idx = writeSend(pair.a, c.active, s, 300);
        pair.run(50_000_000L);
        assertEquals(0, pair.b.dev().iwarp().engine(c.passive.id()).stats().rqWqesCompleted(),
                "no doorbell yet: nothing fetched");
        pair.a.traceSink().clear();
        pair.a.ringThroughUserPage(c.active);
        List<RecordingTraceSink.Recorded> writes = pair.a.traceSink().of(TraceKind.REG_WRITE);
        assertEquals(1, writes.size());
        assertEquals("DB_PAGE_WQEALLOC", writes.get(0).get("reg"));
        assertEquals("wqe_alloc", writes.get(0).get("handler"));
        Completion rc = next(pair.b, c.bCq);
        assertNotNull(rc);
        assertEquals(300, rc.bytes());
        assertArrayEquals(pair.a.read(s.gpa(), 300), pair.b.read(r.gpa(), 300));
        Completion sc = next(pair.a, c.aCq);
        assertNotNull(sc);
        assertTrue(sc.sq());
        assertEquals(idx, sc.wqeIndex());
        assertFalse(sc.error());
        assertEquals(0, pair.a.dev().wqeAllocIgnored());
        assertEquals(0, pair.a.dev().registers().unknownWrites());
    }

    @Test
    void aCqArmedThroughTheUserPageRaisesItsEventOnTheNextCompletion() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer s = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64, MemoryRegions.LOCAL_WRITE);
        pair.b.postRecv(c.passive, new SgeList().add(r.gpa(), 64, r.stag()));
        pair.b.postRecv(c.passive, new SgeList().add(r.gpa(), 64, r.stag()));
        long before = pair.b.dev().cqs().get(c.bCq.id).notifications();
        // Not armed: a completion raises no event.
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 64, s.stag()), 0, 0);
        assertNotNull(next(pair.b, c.bCq));
        assertEquals(before, pair.b.dev().cqs().get(c.bCq.id).notifications());
        pair.b.traceSink().clear();
        pair.b.armThroughUserPage(c.bCq, false);
        List<RecordingTraceSink.Recorded> writes = pair.b.traceSink().of(TraceKind.REG_WRITE);
        assertEquals(1, writes.size());
        assertEquals("DB_PAGE_CQARM", writes.get(0).get("reg"));
        assertEquals("cq_arm", writes.get(0).get("handler"));
        assertTrue(pair.b.traceSink().of(TraceKind.CQE).stream()
                .noneMatch(e -> "arm_ignored".equals(e.get("action"))));
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 64, s.stag()), 0, 0);
        assertNotNull(next(pair.b, c.bCq));
        assertEquals(before + 1, pair.b.dev().cqs().get(c.bCq.id).notifications(), "the CEQ was told");
    }

    @Test
    void hostileIdsOnTheUserPageAreIgnoredCountedAndTracedAsOnTheRegisters() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        E810RdmaFunction dev = pair.a.dev();
        pair.a.traceSink().clear();
        int[] hostile = {-1, 0x7fff_ffff, dev.qps().capacity(), 77};
        for (int id : hostile) {
            dev.write32(WQE_ALIAS, id);
        }
        assertEquals(hostile.length, dev.wqeAllocIgnored());
        List<RecordingTraceSink.Recorded> ignored = pair.a.traceSink().of(TraceKind.DOORBELL);
        assertEquals(hostile.length, ignored.size());
        assertTrue(ignored.stream().allMatch(e -> "wqe_alloc_ignored".equals(e.get("action"))));
        assertEquals("no_qp", ignored.get(3).get("reason"));
        // The same values through PFPE_WQEALLOC: the same answer.
        for (int id : hostile) {
            dev.write32(Gen2Register.WQEALLOC.offset(), id);
        }
        assertEquals(2L * hostile.length, dev.wqeAllocIgnored());
        for (int id : new int[] {-1, 0x7fff_ffff, 4096, 99}) {
            dev.write32(ARM_ALIAS, id);
        }
        assertEquals(4, pair.a.traceSink().of(TraceKind.CQE).stream()
                .filter(e -> "arm_ignored".equals(e.get("action"))).count());
        // The connection is untouched: a Send still goes through.
        Buffer s = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64, MemoryRegions.LOCAL_WRITE);
        pair.b.postRecv(c.passive, new SgeList().add(r.gpa(), 64, r.stag()));
        writeSend(pair.a, c.active, s, 64);
        pair.a.ringThroughUserPage(c.active);
        assertNotNull(next(pair.b, c.bCq));
        assertEquals(0, dev.registers().unknownWrites());
    }

    @Test
    void theUserPageReadsZeroAndOnlyTheFirstReadIsNoted() {
        E810RdmaFunction dev = pair.a.dev();
        pair.a.traceSink().clear();
        assertEquals(0, dev.read32(WQE_ALIAS));
        assertEquals(0, dev.read32(ARM_ALIAS));
        assertEquals(0, dev.read32(WQE_ALIAS));
        assertEquals(3, dev.doorbellPageReads());
        List<RecordingTraceSink.Recorded> noted = pair.a.traceSink().of(TraceKind.DOORBELL);
        assertEquals(1, noted.size());
        assertEquals("db_page_read", noted.get(0).get("action"));
        // The rest of the page is not backed: 0, traced once per offset as any unknown offset.
        assertEquals(0, dev.read32(IwarpTestDriver.USER_DB_PAGE + 0x80));
        assertEquals(0, dev.read32(IwarpTestDriver.USER_DB_PAGE + 0x80));
        assertEquals(1, pair.a.traceSink().of(TraceKind.REG_UNKNOWN).size());
    }

    @Test
    void theConsumedSqTailIsWrittenToTheShadowAreaAndWraps() {
        // A 32-quantum SQ: the three connection WQEs, then 1-quantum RDMA Writes around the ring twice.
        IwarpPair.Conn c = pair.connect(5, 6, false, s -> s.sqQuanta = 32, s -> { });
        assertEquals(SqWqe.CONNECTION_WQES, shadowTail(pair.a, c.active));
        assertEquals(SqWqe.CONNECTION_WQES, shadowTail(pair.b, c.passive));
        Buffer src = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(64, MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_WRITE);
        IwarpCounters st = c.active.engine().stats();
        boolean wrapped = false;
        int last = shadowTail(pair.a, c.active);
        for (int batch = 0; batch < 8; batch++) {
            long done = st.sqWqesCompleted();
            for (int i = 0; i < 8; i++) {
                pair.a.postWrite(c.active, new SgeList().add(src.gpa(), 64, src.stag()), dst.stag(), dst.gpa(),
                        i == 7 ? SqWqe.SIGNALED : 0);
            }
            pair.runUntil(() -> st.sqWqesCompleted() >= done + 8, 500_000_000L);
            assertNotNull(pair.a.poll(c.aCq));
            int tail = shadowTail(pair.a, c.active);
            assertEquals(c.active.sqHead, tail, "the tail is where the driver will post next");
            wrapped |= tail < last;
            last = tail;
        }
        assertTrue(wrapped);
        assertEquals(SqWqe.CONNECTION_WQES + 64, st.shadowTailWrites());
        assertEquals(0, st.shadowTailFaults());
        long q0 = pair.a.store().readLong(pair.a.off(c.active.shadowArea));
        assertEquals(0, q0 & ~Gen2Registers.QP_DBSA_HW_SQ_TAIL, "only HW_SQ_TAIL is written");
    }

    @Test
    void anUnmappedShadowAreaIsCountedTracedOnceAndTheSqGoesOn() {
        long unmapped = 0x7_0000_0000L;
        IwarpPair.Conn c = pair.connect(5, 6, false, s -> s.shadowArea = unmapped, s -> { });
        IwarpCounters st = c.active.engine().stats();
        assertEquals(SqWqe.CONNECTION_WQES, st.shadowTailFaults());
        assertEquals(0, st.shadowTailWrites());
        Buffer s = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64, MemoryRegions.LOCAL_WRITE);
        pair.b.postRecv(c.passive, new SgeList().add(r.gpa(), 64, r.stag()));
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 64, s.stag()), SqWqe.SIGNALED, 0);
        assertNotNull(next(pair.b, c.bCq));
        Completion sc = next(pair.a, c.aCq);
        assertNotNull(sc);
        assertFalse(sc.error());
        assertEquals(SqWqe.CONNECTION_WQES + 1, st.shadowTailFaults());
        List<RecordingTraceSink.Recorded> t = pair.a.traceSink().of(TraceKind.SQ_WQE).stream()
                .filter(e -> "shadow_tail_unmapped".equals(e.get("action"))).toList();
        assertEquals(1, t.size());
        assertEquals(String.valueOf(c.active.id()), t.get(0).get("qp"));
    }
}
