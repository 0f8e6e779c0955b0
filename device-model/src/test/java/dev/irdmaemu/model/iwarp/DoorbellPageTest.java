package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.DriverNode;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The user doorbell page (verbs.c irdma_alloc_ucontext / irdma_mmap: BAR0 + 8 MiB - 64 KiB) rings the same
 * doorbells as PFPE_WQEALLOC (+0x00, the QP id) and PFPE_CQARM (+0x40, libirdma's IRDMA_DB_CQ_OFFSET, the CQ id),
 * and the device writes its consumed SQ tail into quadword 0 of the QP shadow area (IRDMA_QP_DBSA_HW_SQ_TAIL) as
 * it fetches SQ WQEs. The connections are the real driver's ({@link DriverPair}); what libirdma does in user space
 * (the write to the mapped doorbell page, the CQ arm word) is done here through MMIO and the fw.reg codecs, after
 * the verbs wrote the WQE without ringing (uk.c post_sq false).
 */
class DoorbellPageTest {
    /** BAR0 offset of the user doorbell page (verbs.c irdma_mmap: BAR0 + ICRDMA_DB_ADDR_OFFSET). */
    private static final long USER_DB_PAGE = Gen2Register.DB_ADDR_OFFSET.offset();
    private static final long WQE_ALIAS = USER_DB_PAGE + Gen2Registers.DB_PAGE_WQE_ALLOC;
    private static final long ARM_ALIAS = USER_DB_PAGE + Gen2Registers.DB_PAGE_CQ_ARM;

    private final DriverPair pair = new DriverPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private Completion next(DriverPair.Node n, CompletionQueue cq) {
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = n.poll(cq)) != null, 500_000_000L);
        return got[0];
    }

    private static int shadowTail(DriverPair.Node n, QueuePair qp) {
        return Gen2Registers.qpShadowSqTailOf(n.store().readLong(n.off(n.dev().qps().get(qp.id()).shadowArea())));
    }

    /** A signaled Send written into the SQ by the verbs as uk.c does with post_sq false: no doorbell. */
    private static long writeSend(DriverPair.Node n, QueuePair qp, Buffer s, int len) {
        SendWorkRequest wr = n.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED).sge(s.gpa(), len, s.stag());
        assertEquals(PostStatus.OK, qp.postSend(wr, false));
        return wr.wrId();
    }

    /** libirdma's irdma_uk_qp_post_wr in user space: the QP id written to the mapped doorbell page. */
    private static void ringThroughUserPage(DriverPair.Node n, QueuePair qp) {
        n.dev().write32(WQE_ALIAS, Gen2Registers.wqeAllocDoorbell(qp.id()));
    }

    /**
     * libirdma's irdma_uk_cq_request_notification in user space: the arm word in the CQ's shadow area (sequence
     * number + 1, the SW CQ select kept, ARM_NEXT_SE always, ARM_NEXT for any completion), then the CQ id written
     * to the mapped doorbell page.
     */
    private static void armThroughUserPage(DriverPair.Node n, CompletionQueue cq, boolean solicitedOnly) {
        long o = n.off(cq.shadowAreaAddress()) + Gen2Registers.CQ_SHADOW_ARM_OFFSET;
        long w = n.store().readLong(o);
        int seq = Bits.getInt(w, Gen2Registers.CQ_DBSA_ARM_SEQ_NUM) + 1;
        int swSelect = Bits.getInt(w, Gen2Registers.CQ_DBSA_SW_CQ_SELECT);
        n.store().writeLong(o, Gen2Registers.cqArmWord(seq & 3, swSelect, true, !solicitedOnly));
        n.dev().write32(ARM_ALIAS, Gen2Registers.cqArmDoorbell(cq.id()));
    }

    @Test
    void aSendRungThroughTheUserPageIsFetchedSentAndCompletedAsWithWqeAlloc() {
        DriverPair.Conn c = pair.connect(false);
        Buffer s = pair.a.buffer(300, Access.LOCAL_WRITE);
        pair.a.fill(s.gpa(), 300, 7);
        Buffer r = pair.b.buffer(512, Access.LOCAL_WRITE);
        long rqId = pair.b.postRecv(c.passive, r.gpa(), 512, r.stag());
        int idx = c.active.sqHead();
        long wrId = writeSend(pair.a, c.active, s, 300);
        pair.run(50_000_000L);
        assertEquals(0, pair.b.dev().iwarp().engine(c.passive.id()).stats().rqWqesCompleted(),
                "no doorbell yet: nothing fetched");
        pair.a.traceSink().clear();
        ringThroughUserPage(pair.a, c.active);
        List<RecordingTraceSink.Recorded> writes = pair.a.traceSink().of(TraceKind.REG_WRITE);
        assertEquals(1, writes.size());
        assertEquals("DB_PAGE_WQEALLOC", writes.get(0).get("reg"));
        assertEquals("wqe_alloc", writes.get(0).get("handler"));
        Completion rc = next(pair.b, c.bCq);
        assertNotNull(rc);
        assertEquals(rqId, rc.wrId());
        assertEquals(300, rc.bytes());
        assertArrayEquals(pair.a.read(s.gpa(), 300), pair.b.read(r.gpa(), 300));
        Completion sc = next(pair.a, c.aCq);
        assertNotNull(sc);
        assertTrue(sc.sq());
        assertEquals(wrId, sc.wrId());
        assertEquals(List.of(idx), pair.a.cqeWqeIndexes(c.active, true), "the CQE names the WQE's index");
        assertFalse(sc.error());
        assertEquals(0, pair.a.dev().wqeAllocIgnored());
        assertEquals(0, pair.a.dev().registers().unknownWrites());
    }

    @Test
    void aCqArmedThroughTheUserPageRaisesItsEventOnTheNextCompletion() {
        DriverPair.Conn c = pair.connect(false);
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64, Access.LOCAL_WRITE);
        pair.b.postRecv(c.passive, r.gpa(), 64, r.stag());
        pair.b.postRecv(c.passive, r.gpa(), 64, r.stag());
        long before = pair.b.dev().cqs().get(c.bCq.id()).notifications();
        // Not armed: a completion raises no event.
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).sge(s.gpa(), 64, s.stag()));
        assertNotNull(next(pair.b, c.bCq));
        assertEquals(before, pair.b.dev().cqs().get(c.bCq.id()).notifications());
        pair.b.traceSink().clear();
        armThroughUserPage(pair.b, c.bCq, false);
        List<RecordingTraceSink.Recorded> writes = pair.b.traceSink().of(TraceKind.REG_WRITE);
        assertEquals(1, writes.size());
        assertEquals("DB_PAGE_CQARM", writes.get(0).get("reg"));
        assertEquals("cq_arm", writes.get(0).get("handler"));
        assertTrue(pair.b.traceSink().of(TraceKind.CQE).stream()
                .noneMatch(e -> "arm_ignored".equals(e.get("action"))));
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).sge(s.gpa(), 64, s.stag()));
        assertNotNull(next(pair.b, c.bCq));
        assertEquals(before + 1, pair.b.dev().cqs().get(c.bCq.id()).notifications(), "the CEQ was told");
    }

    @Test
    void hostileIdsOnTheUserPageAreIgnoredCountedAndTracedAsOnTheRegisters() {
        DriverPair.Conn c = pair.connect(false);
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
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64, Access.LOCAL_WRITE);
        pair.b.postRecv(c.passive, r.gpa(), 64, r.stag());
        writeSend(pair.a, c.active, s, 64);
        ringThroughUserPage(pair.a, c.active);
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
        assertEquals(0, dev.read32(USER_DB_PAGE + 0x80));
        assertEquals(0, dev.read32(USER_DB_PAGE + 0x80));
        assertEquals(1, pair.a.traceSink().of(TraceKind.REG_UNKNOWN).size());
    }

    @Test
    void theConsumedSqTailIsWrittenToTheShadowAreaAndWraps() {
        // the smallest SQ the verbs make (uk.c irdma_get_sqdepth: 32 WRs of 4 quanta + 258 reserved, rounded up
        // to 512 quanta): the three connection WQEs, then 1-quantum RDMA Writes around the ring more than once
        DriverPair.Conn c = pair.connect(false, o -> o.maxSendWr = 32, o -> { });
        assertEquals(512, c.active.sqDepth());
        assertEquals(SqWqe.CONNECTION_WQES, shadowTail(pair.a, c.active));
        assertEquals(SqWqe.CONNECTION_WQES, shadowTail(pair.b, c.passive));
        Buffer src = pair.a.buffer(64, Access.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(64, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        IwarpCounters st = pair.a.engine(c.active).stats();
        boolean wrapped = false;
        int last = shadowTail(pair.a, c.active);
        int batches = 72;
        for (int batch = 0; batch < batches; batch++) {
            long done = st.sqWqesCompleted();
            for (int i = 0; i < 8; i++) {
                pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).sge(src.gpa(), 64, src.stag())
                        .remote(dst.gpa(), dst.stag()).flags(i == 7 ? SendWorkRequest.SIGNALED : 0));
            }
            pair.runUntil(() -> st.sqWqesCompleted() >= done + 8, 500_000_000L);
            assertNotNull(pair.a.poll(c.aCq));
            int tail = shadowTail(pair.a, c.active);
            assertEquals(c.active.sqHead(), tail, "the tail is where the driver will post next");
            wrapped |= tail < last;
            last = tail;
        }
        assertTrue(wrapped);
        assertEquals(SqWqe.CONNECTION_WQES + 8L * batches, st.shadowTailWrites());
        assertEquals(0, st.shadowTailFaults());
        long q0 = pair.a.store().readLong(pair.a.off(pair.a.dev().qps().get(c.active.id()).shadowArea()));
        assertEquals(0, q0 & ~Gen2Registers.QP_DBSA_HW_SQ_TAIL, "only HW_SQ_TAIL is written");
    }

    @Test
    void anUnmappedShadowAreaIsCountedTracedOnceAndTheSqGoesOn() {
        DriverPair.Conn c = pair.connect(false, o -> o.shadowArea = DriverNode.UNMAPPED, o -> { });
        assertEquals(DriverNode.UNMAPPED, pair.a.dev().qps().get(c.active.id()).shadowArea());
        IwarpCounters st = pair.a.engine(c.active).stats();
        assertEquals(SqWqe.CONNECTION_WQES, st.shadowTailFaults());
        assertEquals(0, st.shadowTailWrites());
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        Buffer r = pair.b.buffer(64, Access.LOCAL_WRITE);
        pair.b.postRecv(c.passive, r.gpa(), 64, r.stag());
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(s.gpa(), 64, s.stag()));
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
