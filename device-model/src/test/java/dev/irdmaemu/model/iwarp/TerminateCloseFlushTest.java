package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.cqp.CqpErrorCode;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.IwarpTestDriver;
import dev.irdmaemu.model.IwarpTestDriver.Ae;
import dev.irdmaemu.model.IwarpTestDriver.Buffer;
import dev.irdmaemu.model.IwarpTestDriver.Completion;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.tcp.TcpState;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Terminate (RFC 5040 §4.8, irdma's split of the work on gen2), close, reset, flush and destroy, with the test
 * driver playing irdma's part: it reads Q2 after the error AE and builds the Terminate header the way
 * ctrl.c irdma_bld_terminate_hdr does, moves the QP to TERMINATE (irdma_terminate_connection), sends the FIN when
 * TERMINATE_SENT comes (irdma_terminate_send_fin), and flushes with irdma_flush_wqes' codes.
 */
class TerminateCloseFlushTest {
    private final IwarpPair pair = new IwarpPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private List<Ae> aes(IwarpTestDriver n, int qp, long nanos) {
        pair.run(nanos);
        List<Ae> l = new ArrayList<>(n.pollAes());
        l.removeIf(e -> e.qpId() != qp);
        return l;
    }

    private static List<Integer> codes(List<Ae> l) {
        return l.stream().map(Ae::code).toList();
    }

    @Test
    void terminateRoundTripWithTheDriverBuildingTheHeaderFromQ2() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        // A writes to an STag B never registered: its index (0x6666 & 0x3fff) lies beyond B's 256 MRs.
        Buffer src = pair.a.buffer(300, MemoryRegions.LOCAL_WRITE);
        pair.a.postWrite(c.active, new SgeList().add(src.gpa(), 300, src.stag()), 0x66_6600, 0x1000, SqWqe.SIGNALED);
        List<Ae> bAes = aes(pair.b, 6, 20_000_000L);
        assertEquals(List.of(AeCode.AMP_BAD_STAG_INDEX.code()), codes(bAes));
        assertEquals(1, bAes.get(0).q2Data());
        // irdma_bld_terminate_hdr: AMP_BAD_STAG_INDEX -> layer RDMAP, type remote operation (2), code invalid STag
        // (0), and the offending Write's ULPDU length and tagged DDP header copied behind it
        int termlen = new Q2Buffer().wrap(pair.b.store(), pair.b.off(c.passive.q2)).writeTerminate(
                Terminate.LAYER_RDMAP, Terminate.Rdmap.ETYPE_REMOTE_OPERATION, Terminate.Rdmap.INVALID_STAG, true);
        assertEquals(4 + 2 + 14, termlen);
        assertTrue(pair.b.terminate(c.passive, 1, termlen), "Modify QP TERMINATE, IRDMAQP_TERM_SEND_TERM_ONLY");
        bAes = aes(pair.b, 6, 20_000_000L);
        assertEquals(List.of(AeCode.TERMINATE_SENT.code()), codes(bAes));
        assertEquals(QpState.TERMINATE.code(), bAes.get(0).iwarpState());
        assertEquals(1, c.passive.engine().stats().terminatesSent());
        // A receives it: LLP_TERMINATE_RECEIVED, the QP goes to TERMINATE, the Terminate in A's Q2.
        List<Ae> aAes = aes(pair.a, 5, 1_000_000L);
        assertEquals(List.of(AeCode.LLP_TERMINATE_RECEIVED.code()), codes(aAes));
        assertEquals(QpState.TERMINATE.code(), aAes.get(0).iwarpState());
        assertEquals(QpState.TERMINATE, c.active.state());
        BytesStore<?, ?> s = pair.a.store();
        long frame = pair.a.off(c.active.q2) + 72;
        long mpa = frame - 72 + new Q2Buffer().wrap(s, frame - 72).locateMpa();
        // What irdma_terminate_received checks, then the header at mpa[5].
        assertEquals(0x40, s.readUnsignedByte(mpa + 2) & 0xc0, "untagged, L");
        assertEquals(1, s.readUnsignedByte(mpa + 2) & 0x03, "DDP version 1");
        assertEquals(2, NetworkOrder.u32(s, mpa + 8), "QN 2");
        assertEquals(1, NetworkOrder.u32(s, mpa + 12), "MSN 1");
        assertEquals(0, NetworkOrder.u32(s, mpa + 16), "MO 0");
        assertEquals(0x40, s.readUnsignedByte(mpa + 3) & 0xc0, "RDMAP version 1");
        Terminate t = new Terminate().wrap(s, mpa + 20, 40);
        assertTrue(t.validate().accepted());
        assertEquals(Terminate.LAYER_RDMAP, t.layer());
        assertEquals(Terminate.Rdmap.ETYPE_REMOTE_OPERATION, t.errorType());
        assertEquals(Terminate.Rdmap.INVALID_STAG, t.errorCode());
        assertTrue(t.hasDdpSegmentLength() && t.hasDdpHeader());
        DdpHeader copied = new DdpHeader().wrap(s, t.ddpHeaderOffset(), t.ddpHeaderLength());
        assertEquals(0x66_6600, copied.stag(), "the offending Write's STag");
        assertEquals(0x1000, copied.taggedOffset());
        // irdma_terminate_send_fin on B: Modify QP TERMINATE with FIN only. A's TCP sees the FIN.
        assertTrue(pair.b.terminate(c.passive, 2, 0));
        aAes = aes(pair.a, 5, 100_000_000L);
        assertEquals(List.of(AeCode.LLP_FIN_RECEIVED.code()), codes(aAes));
        // irdma_terminate_done on A: ERROR with the reset (term_flags set): RESET_SENT on A, reset on B.
        assertTrue(pair.a.error(c.active, true));
        assertEquals(List.of(AeCode.RESET_SENT.code()), codes(aes(pair.a, 5, 1_000_000L)));
        List<Ae> b2 = aes(pair.b, 6, 10_000_000L);
        assertEquals(List.of(AeCode.LLP_CONNECTION_RESET.code()), codes(b2));
        assertEquals(TcpState.CLOSED.hardwareCode(), b2.get(0).tcpState());
    }

    @Test
    void aGracefulCloseExchangesFinsAndRaisesFinReceivedAndCloseCompleteOnBothSides() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        assertTrue(pair.a.modify(c.active, QpState.CLOSING));
        List<Ae> b = aes(pair.b, 6, 100_000_000L);
        assertEquals(List.of(AeCode.LLP_FIN_RECEIVED.code()), codes(b));
        assertEquals(TcpState.CLOSE_WAIT.hardwareCode(), b.get(0).tcpState());
        assertEquals(QpState.RTS.code(), b.get(0).iwarpState());
        // hw.c: FIN_RECEIVED in RTS -> irdma_next_iw_state(CLOSING).
        assertTrue(pair.b.modify(c.passive, QpState.CLOSING));
        List<Ae> a = aes(pair.a, 5, 200_000_000L);
        assertEquals(List.of(AeCode.LLP_FIN_RECEIVED.code(), AeCode.LLP_CLOSE_COMPLETE.code()), codes(a));
        assertEquals(TcpState.TIME_WAIT.hardwareCode(), a.get(1).tcpState());
        b = aes(pair.b, 6, 200_000_000L);
        assertEquals(List.of(AeCode.LLP_CLOSE_COMPLETE.code()), codes(b));
        assertEquals(TcpState.CLOSED.hardwareCode(), b.get(0).tcpState());
        // The driver then moves both to ERROR without a reset (the connection is gone) and destroys them.
        assertTrue(pair.a.error(c.active, false));
        assertTrue(pair.b.error(c.passive, false));
        assertTrue(aes(pair.a, 5, 1_000_000L).isEmpty());
        assertTrue(pair.a.destroy(c.active));
        assertTrue(pair.b.destroy(c.passive));
        assertEquals(0, pair.a.dev().iwarp().liveEngines());
        assertEquals(0, pair.b.dev().iwarp().liveEngines());
    }

    @Test
    void anErrorWithTheResetFlagSendsAnRstAndRaisesResetSentAndThePeerSeesTheReset() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        assertTrue(pair.a.error(c.active, true));
        List<Ae> a = aes(pair.a, 5, 1_000_000L);
        assertEquals(List.of(AeCode.RESET_SENT.code()), codes(a));
        assertEquals(QpState.ERROR.code(), a.get(0).iwarpState());
        List<Ae> b = aes(pair.b, 6, 10_000_000L);
        assertEquals(List.of(AeCode.LLP_CONNECTION_RESET.code()), codes(b));
        assertTrue(c.passive.engine().halted());
        // A second reset finds the connection gone.
        assertTrue(pair.a.error(c.active, true));
        assertEquals(List.of(AeCode.RESET_NOT_SENT.code()), codes(aes(pair.a, 5, 1_000_000L)));
    }

    @Test
    void flushCompletesOutstandingWorkWithTheFlushErrorOncePerQueueAndReportsWhichQueues() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer remote = pair.b.buffer(1 << 20, MemoryRegions.REMOTE_READ);
        Buffer sink = pair.a.buffer(1 << 20, MemoryRegions.LOCAL_WRITE);
        Buffer rbuf = pair.a.buffer(256, MemoryRegions.LOCAL_WRITE);
        int rq0 = pair.a.postRecv(c.active, new SgeList().add(rbuf.gpa(), 128, rbuf.stag()));
        pair.a.postRecv(c.active, new SgeList().add(rbuf.gpa() + 128, 128, rbuf.stag()));
        // A large Read in flight and a Send queued behind it (no receive posted on B for it).
        int read = pair.a.postRead(c.active, new SgeList().add(sink.gpa(), 1 << 20, sink.stag()), remote.stag(),
                remote.gpa(), SqWqe.SIGNALED);
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(rbuf.gpa(), 16, rbuf.stag()), SqWqe.SIGNALED,
                0);
        pair.run(20_000L);
        assertTrue(c.active.engine().readsOutstanding() > 0, "the Read is outstanding");
        assertTrue(pair.a.error(c.active, true));
        pair.a.pollAes();
        IwarpTestDriver.CqpDone done = pair.a.flush(c.active, true, true);
        assertFalse(done.error());
        assertEquals(0, done.major());
        assertEquals(IwarpDataPath.COMPL_BOTH_FLUSHED, done.minor());
        List<Completion> cqes = pair.a.pollAll(c.aCq);
        assertEquals(2, cqes.size(), cqes::toString);
        Completion sq = cqes.stream().filter(Completion::sq).findFirst().orElseThrow();
        Completion rq = cqes.stream().filter(x -> !x.sq()).findFirst().orElseThrow();
        for (Completion x : cqes) {
            assertTrue(x.error());
            assertEquals(Cqe.MAJOR_FLUSH, x.major(), "user.h IRDMA_FLUSH_MAJOR_ERR");
            assertEquals(1, x.minor(), "FLUSH_GENERAL_ERR");
            assertEquals(c.active.completionContext, x.context());
        }
        assertEquals(read, sq.wqeIndex());
        assertEquals(SqOpcode.RDMA_READ.code(), sq.opType());
        assertEquals(rq0, rq.wqeIndex());
        // Nothing left: a second flush answers "Flush No WQE Pending".
        IwarpTestDriver.CqpDone again = pair.a.flush(c.active, true, true);
        assertTrue(again.error());
        assertEquals(CqpErrorCode.Pair.FLUSH_NO_WQE_PENDING.major(), again.major());
        assertEquals(CqpErrorCode.Pair.FLUSH_NO_WQE_PENDING.minor(), again.minor());
        assertTrue(pair.a.pollAll(c.aCq).isEmpty());
    }

    @Test
    void flushOfOneQueueReportsThatQueueAndGenerateAeRaisesTheAskedAe() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer rbuf = pair.b.buffer(256, MemoryRegions.LOCAL_WRITE);
        pair.b.postRecv(c.passive, new SgeList().add(rbuf.gpa(), 128, rbuf.stag()));
        assertTrue(pair.b.error(c.passive, true));
        IwarpTestDriver.CqpDone sqOnly = pair.b.flush(c.passive, true, false);
        assertTrue(sqOnly.error(), "B's SQ has nothing outstanding");
        IwarpTestDriver.CqpDone rqOnly = pair.b.flush(c.passive, false, true);
        assertFalse(rqOnly.error());
        assertEquals(CqpErrorCode.COMPL_RQ_WQE_FLUSHED, rqOnly.minor());
        assertEquals(1, pair.b.pollAll(c.bCq).size());
        // irdma_gen_ae (hw.c irdma_hw_modify_qp's failure path): IRDMA_AE_BAD_CLOSE, source 0.
        pair.b.pollAes();
        assertFalse(pair.b.generateAe(c.passive, AeCode.BAD_CLOSE.code(), 0).error());
        List<Ae> l = pair.b.pollAes();
        assertEquals(1, l.size());
        assertEquals(AeCode.BAD_CLOSE.code(), l.get(0).code());
        assertEquals(6, l.get(0).qpId());
        // Only an SQ flush on A: minor 3 (IRDMA_CQP_COMPL_SQ_WQE_FLUSHED).
        Buffer s = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        assertTrue(pair.a.error(c.active, false));
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 64, s.stag()), 0, 0);
        IwarpTestDriver.CqpDone sq = pair.a.flush(c.active, true, false);
        assertFalse(sq.error());
        assertEquals(CqpErrorCode.COMPL_SQ_WQE_FLUSHED, sq.minor());
    }

    @Test
    void aQpThatNeverRanFlushesWhatWasPostedOnItsRings() {
        IwarpTestDriver.Cq cq = pair.a.createCq(70, 64);
        IwarpTestDriver.QpSpec spec = IwarpTestDriver.QpSpec.connection(30, cq, 0, 0, 0, 0, 0, IwarpPair.ARP_INDEX);
        IwarpTestDriver.Qp qp = pair.a.createQp(spec);
        Buffer b = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        pair.a.postRecv(qp, new SgeList().add(b.gpa(), 64, b.stag()));
        assertTrue(pair.a.error(qp, false));
        IwarpTestDriver.CqpDone done = pair.a.flush(qp, true, true);
        assertFalse(done.error());
        assertEquals(CqpErrorCode.COMPL_RQ_WQE_FLUSHED, done.minor());
        assertEquals(1, pair.a.pollAll(cq).size());
    }

    @Test
    void destroyReleasesTheEngineItsTimersAndItsBuffers() {
        long nativeBefore = OS.memory().nativeMemoryUsed();
        int timersBefore = pair.scheduler.pendingTimers();
        IwarpPair.Conn c = pair.connect(5, 6, false);
        assertTrue(OS.memory().nativeMemoryUsed() > nativeBefore, "the engines hold off-heap rings");
        Buffer src = pair.a.buffer(100_000, MemoryRegions.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(100_000, MemoryRegions.REMOTE_WRITE);
        pair.a.postWrite(c.active, new SgeList().add(src.gpa(), 100_000, src.stag()), dst.stag(), dst.gpa(),
                SqWqe.SIGNALED);
        pair.run(1_000_000L);
        assertTrue(pair.a.error(c.active, true));
        assertTrue(pair.b.error(c.passive, false));
        assertTrue(pair.a.destroy(c.active));
        assertTrue(pair.b.destroy(c.passive));
        assertNull(c.active.engine());
        assertEquals(0, pair.a.dev().iwarp().liveEngines());
        assertEquals(1, pair.a.dev().iwarp().enginesReleased());
        assertEquals(1, pair.b.dev().iwarp().enginesReleased());
        pair.run(100_000_000L);
        assertEquals(timersBefore, pair.scheduler.pendingTimers(), "no timer of the engines left armed");
        // Chronicle frees native stores on its background releaser thread: wait for what is queued there.
        BackgroundResourceReleaser.releasePendingResources();
        assertEquals(nativeBefore, OS.memory().nativeMemoryUsed(), "every off-heap buffer of the engines freed");
    }

    @Test
    void aPeerThatStopsAnsweringEndsInTooManyRetries() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        // A's frames no longer reach the wire.
        pair.a.dev().port().setTransmitter((s, o, l) -> { });
        Buffer s = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(s.gpa(), 64, s.stag()), SqWqe.SIGNALED, 0);
        List<Ae> got = new ArrayList<>();
        pair.runUntil(() -> {
            got.addAll(pair.a.pollAes());
            return !got.isEmpty();
        }, 600_000_000_000L);
        assertEquals(AeCode.LLP_TOO_MANY_RETRIES.code(), got.get(0).code());
        assertEquals(5, got.get(0).qpId());
        assertEquals(TcpState.CLOSED.hardwareCode(), got.get(0).tcpState());
        assertTrue(c.active.engine().halted());
        assertEquals(9, c.active.engine().tcp().timeouts(), "IRDMA_DEFAULT_REXMIT_THRESH (8) back-offs, then the end");
        assertTrue(pair.a.pollAll(c.aCq).isEmpty(), "the Send never completes by itself");
    }
}
