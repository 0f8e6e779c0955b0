package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.cqp.CqpErrorCode;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.model.DriverNode;
import dev.irdmaemu.model.iwarp.DriverPair.Ae;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.tcp.TcpState;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Terminate (RFC 5040 §4.8, irdma's split of the work on gen2), close, reset, flush and destroy, with the real
 * driver playing irdma's part: on the error AE it reads Q2 and builds the Terminate header (ctrl.c
 * irdma_bld_terminate_hdr), moves the QP to TERMINATE (irdma_terminate_connection), sends the FIN when
 * TERMINATE_SENT comes (irdma_terminate_send_fin), ends with ERROR once the connection closed
 * (irdma_terminate_done), and flushes with irdma_flush_wqes' codes. What irdma would not send (a second reset, a
 * flush of one queue, a generated AE) is posted behind the verbs' back with the firmware-iface writers.
 */
class TerminateCloseFlushTest {
    private final DriverPair pair = new DriverPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private List<Ae> aes(DriverPair.Node n, QueuePair qp, long nanos) {
        pair.run(nanos);
        List<Ae> l = new ArrayList<>(n.pollAes());
        l.removeIf(e -> e.qpId() != qp.id());
        return l;
    }

    private static List<Integer> codes(List<Ae> l) {
        return l.stream().map(Ae::code).toList();
    }

    private static List<Integer> codes(AeCode... c) {
        return java.util.Arrays.stream(c).map(AeCode::code).toList();
    }

    @Test
    void terminateRoundTripWithTheDriverBuildingTheHeaderFromQ2() {
        DriverPair.Conn c = pair.connect(false);
        // A writes to an STag B never allocated. (The real driver commits a power of two of at least 2^14 MRs,
        // so every index the STag can carry is in range: AMP_BAD_STAG_INDEX is mr.AccessFaultTest's.)
        int badStag = 0x66_6600;
        assertFalse(pair.b.dev().stags().inUse(pair.b.dev().stags().indexOf(badStag >>> 8)));
        Buffer src = pair.a.buffer(300, Access.LOCAL_WRITE);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa(), 300, src.stag()).remote(0x1000, badStag));
        List<Ae> bAes = new ArrayList<>();
        pair.runUntil(() -> {
            bAes.addAll(pair.b.pollAes());
            return bAes.size() >= 2;
        }, 20_000_000L);
        // B: the unallocated STag (Q2 holds the frame), then, once the driver built the Terminate from Q2 and moved the QP
        // to TERMINATE (IRDMAQP_TERM_SEND_TERM_ONLY), TERMINATE_SENT
        assertEquals(codes(AeCode.AMP_UNALLOCATED_STAG, AeCode.TERMINATE_SENT), codes(bAes));
        assertEquals(1, bAes.get(0).q2Data());
        assertEquals(QpState.TERMINATE.code(), bAes.get(1).iwarpState());
        assertEquals(1, pair.b.engine(c.passive).stats().terminatesSent());
        // A receives it: LLP_TERMINATE_RECEIVED, the QP in TERMINATE, the Terminate in A's Q2.
        List<Ae> aAes = new ArrayList<>();
        pair.runUntil(() -> {
            aAes.addAll(pair.a.pollAes());
            return !aAes.isEmpty();
        }, 1_000_000L);
        assertEquals(AeCode.LLP_TERMINATE_RECEIVED.code(), aAes.get(0).code());
        assertEquals(QpState.TERMINATE.code(), aAes.get(0).iwarpState());
        assertEquals(1, aAes.get(0).q2Data());
        assertEquals(QpState.TERMINATE, pair.a.dev().qps().get(c.active.id()).state());
        BytesStore<?, ?> s = pair.a.store();
        long q2 = pair.a.off(c.active.q2Address());
        long mpa = q2 + new Q2Buffer().wrap(s, q2).locateMpa();
        // What irdma_terminate_received checks, then the header at mpa[5].
        assertEquals(18 + 4 + 2 + 14, NetworkOrder.u16(s, mpa),
                "ULPDU: the untagged header and irdma's Terminate (header, DDP segment length, tagged DDP header)");
        assertEquals(0x40, s.readUnsignedByte(mpa + 2) & 0xc0, "untagged, L");
        assertEquals(1, s.readUnsignedByte(mpa + 2) & 0x03, "DDP version 1");
        assertEquals(2, NetworkOrder.u32(s, mpa + 8), "QN 2");
        assertEquals(1, NetworkOrder.u32(s, mpa + 12), "MSN 1");
        assertEquals(0, NetworkOrder.u32(s, mpa + 16), "MO 0");
        assertEquals(0x40, s.readUnsignedByte(mpa + 3) & 0xc0, "RDMAP version 1");
        Terminate t = new Terminate().wrap(s, mpa + 20, 40);
        assertTrue(t.validate().accepted());
        // irdma_bld_terminate_hdr: AMP_UNALLOCATED_STAG on an RDMA Write -> layer DDP, tagged buffer, invalid STag
        assertEquals(Terminate.LAYER_DDP, t.layer());
        assertEquals(Terminate.Ddp.ETYPE_TAGGED_BUFFER, t.errorType());
        assertEquals(Terminate.Ddp.TAGGED_INVALID_STAG, t.errorCode());
        assertTrue(t.hasDdpSegmentLength() && t.hasDdpHeader());
        DdpHeader copied = new DdpHeader().wrap(s, t.ddpHeaderOffset(), t.ddpHeaderLength());
        assertEquals(badStag, copied.stag(), "the offending Write's STag");
        assertEquals(0x1000, copied.taggedOffset());
        // irdma_terminate_send_fin on B: FIN only. A's TCP sees the FIN, both close, and irdma_terminate_done ends
        // each QP in ERROR with a reset that finds the connection closed.
        aAes.addAll(aes(pair.a, c.active, 100_000_000L));
        assertEquals(codes(AeCode.LLP_TERMINATE_RECEIVED, AeCode.LLP_FIN_RECEIVED, AeCode.LLP_CLOSE_COMPLETE,
                AeCode.RESET_NOT_SENT), codes(aAes));
        assertEquals(TcpState.CLOSE_WAIT.hardwareCode(), aAes.get(1).tcpState());
        assertEquals(QpState.ERROR.code(), aAes.get(3).iwarpState());
        List<Ae> b2 = aes(pair.b, c.passive, 10_000_000L);
        assertEquals(codes(AeCode.LLP_FIN_RECEIVED, AeCode.LLP_CLOSE_COMPLETE, AeCode.RESET_NOT_SENT), codes(b2));
        assertEquals(TcpState.TIME_WAIT.hardwareCode(), b2.get(1).tcpState());
        assertEquals(List.of(QpEvent.ESTABLISHED, QpEvent.TERMINATED), c.aEvents);
        assertEquals(List.of(QpEvent.ESTABLISHED, QpEvent.TERMINATED), c.bEvents);
    }

    @Test
    void aGracefulCloseExchangesFinsAndRaisesFinReceivedAndCloseCompleteOnBothSides() {
        DriverPair.Conn c = pair.connect(false);
        // ib_modify_qp(SQD): irdma_modify_qp moves the QP to CLOSING, the device sends the FIN
        c.active.modify(IbQpState.SQD);
        List<Ae> b = new ArrayList<>();
        pair.runUntil(() -> {
            b.addAll(pair.b.pollAes());
            return !b.isEmpty();
        }, 100_000_000L);
        assertEquals(codes(AeCode.LLP_FIN_RECEIVED), codes(b));
        assertEquals(TcpState.CLOSE_WAIT.hardwareCode(), b.get(0).tcpState());
        assertEquals(QpState.RTS.code(), b.get(0).iwarpState());
        // hw.c: FIN_RECEIVED in RTS -> irdma_next_iw_state(CLOSING), done by B's driver.
        List<Ae> a = aes(pair.a, c.active, 200_000_000L);
        assertEquals(codes(AeCode.LLP_FIN_RECEIVED, AeCode.LLP_CLOSE_COMPLETE), codes(a));
        assertEquals(TcpState.TIME_WAIT.hardwareCode(), a.get(1).tcpState());
        List<Ae> b2 = aes(pair.b, c.passive, 200_000_000L);
        assertEquals(codes(AeCode.LLP_CLOSE_COMPLETE), codes(b2));
        assertEquals(TcpState.CLOSED.hardwareCode(), b2.get(0).tcpState());
        assertEquals(List.of(QpEvent.ESTABLISHED, QpEvent.CLOSE_COMPLETE), c.aEvents);
        assertEquals(List.of(QpEvent.ESTABLISHED, QpEvent.FIN_RECEIVED, QpEvent.CLOSE_COMPLETE), c.bEvents);
        // The consumer then moves both to ERROR, without a reset (the connection is gone), and destroys them.
        c.active.modify(IbQpState.ERR);
        c.passive.modify(IbQpState.ERR);
        assertTrue(aes(pair.a, c.active, 1_000_000L).isEmpty());
        c.active.destroy();
        c.passive.destroy();
        assertEquals(0, pair.a.dev().iwarp().liveEngines());
        assertEquals(0, pair.b.dev().iwarp().liveEngines());
    }

    @Test
    void anErrorWithTheResetFlagSendsAnRstAndRaisesResetSentAndThePeerSeesTheReset() {
        DriverPair.Conn c = pair.connect(false);
        // ib_modify_qp(ERR) with the connection up: irdma_modify_qp sets reset_tcp_conn
        c.active.modify(IbQpState.ERR);
        List<Ae> a = aes(pair.a, c.active, 1_000_000L);
        assertEquals(codes(AeCode.RESET_SENT), codes(a));
        assertEquals(QpState.ERROR.code(), a.get(0).iwarpState());
        List<Ae> b = aes(pair.b, c.passive, 10_000_000L);
        assertEquals(codes(AeCode.LLP_CONNECTION_RESET), codes(b));
        assertTrue(pair.b.engine(c.passive).halted());
        assertEquals(List.of(QpEvent.ESTABLISHED, QpEvent.CONNECTION_RESET), c.bEvents);
        // A second reset (irdma sends none: the QP is in ERROR) finds the connection gone.
        assertFalse(pair.a.rawModifyQp(c.active, QpState.ERROR.code(), true).error());
        assertEquals(codes(AeCode.RESET_NOT_SENT), codes(aes(pair.a, c.active, 1_000_000L)));
    }

    @Test
    void flushCompletesOutstandingWorkWithTheFlushErrorOncePerQueueAndReportsWhichQueues() {
        DriverPair.Conn c = pair.connect(false);
        Buffer remote = pair.b.buffer(1 << 20, Access.REMOTE_READ);
        Buffer sink = pair.a.buffer(1 << 20, Access.LOCAL_WRITE);
        Buffer rbuf = pair.a.buffer(256, Access.LOCAL_WRITE);
        long rq0 = pair.a.postRecv(c.active, rbuf.gpa(), 128, rbuf.stag());
        long rq1 = pair.a.postRecv(c.active, rbuf.gpa() + 128, 128, rbuf.stag());
        // A large Read in flight and a Send queued behind it (no receive posted on B for it).
        long read = pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .sge(sink.gpa(), 1 << 20, sink.stag()).remote(remote.gpa(), remote.stag()));
        long send = pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(rbuf.gpa(), 16, rbuf.stag()));
        pair.run(20_000L);
        assertTrue(pair.a.engine(c.active).readsOutstanding() > 0, "the Read is outstanding");
        // ib_modify_qp(ERR): the reset, then the driver's irdma_flush_wqes of both queues
        c.active.modify(IbQpState.ERR);
        pair.run(50_000_000L);
        assertTrue(pair.a.cqpOps("FLUSH_WQES").stream().anyMatch(e -> e.kind().name().equals("CQP_OP")),
                "the driver's flush completed without error");
        assertEquals(IwarpDataPath.COMPL_BOTH_FLUSHED, pair.a.lastFlushed(c.active), "both queues flushed");
        List<Completion> cqes = pair.a.pollAll(c.aCq);
        assertEquals(4, cqes.size(), cqes::toString);
        for (Completion x : cqes) {
            assertTrue(x.error());
            assertEquals(WcStatus.WR_FLUSH_ERR, x.status());
            assertEquals(c.active.id(), x.qpNum());
        }
        // the first of each queue is the device's flushed CQE (IRDMA_FLUSH_MAJOR_ERR, FLUSH_GENERAL_ERR); the
        // rest the driver's worker generated (irdma_generate_flush_completions)
        Completion sq = cqes.stream().filter(Completion::sq).findFirst().orElseThrow();
        Completion rq = cqes.stream().filter(x -> !x.sq()).findFirst().orElseThrow();
        for (Completion x : List.of(sq, rq)) {
            assertEquals(Cqe.MAJOR_FLUSH, x.major(), "user.h IRDMA_FLUSH_MAJOR_ERR");
            assertEquals(1, x.minor(), "FLUSH_GENERAL_ERR");
        }
        assertEquals(read, sq.wrId());
        assertEquals(WcOpcode.RDMA_READ, sq.opcode());
        assertEquals(rq0, rq.wrId());
        assertEquals(List.of(read, send), cqes.stream().filter(Completion::sq).map(Completion::wrId).toList());
        assertEquals(List.of(rq0, rq1), cqes.stream().filter(x -> !x.sq()).map(Completion::wrId).toList());
        // Nothing left: another flush answers "Flush No WQE Pending".
        DriverNode.Completion again = pair.a.rawFlush(c.active, true, true);
        assertTrue(again.error());
        assertEquals(CqpFault.FLUSH_NO_WQE_PENDING.major(), again.major());
        assertEquals(CqpFault.FLUSH_NO_WQE_PENDING.minor(), again.minor());
        assertTrue(pair.a.pollAll(c.aCq).isEmpty());
    }

    @Test
    void flushOfOneQueueReportsThatQueueAndGenerateAeRaisesTheAskedAe() {
        DriverPair.Conn c = pair.connect(false);
        Buffer rbuf = pair.b.buffer(256, Access.LOCAL_WRITE);
        pair.b.postRecv(c.passive, rbuf.gpa(), 128, rbuf.stag());
        // A Send of A's that never leaves (A's frames no longer reach the wire)
        pair.a.dev().port().setTransmitter((f, o, l) -> { });
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).sge(s.gpa(), 64, s.stag()));
        // ERROR with the reset: the driver flushes both queues, the device reports only the RQ flushed
        c.passive.modify(IbQpState.ERR);
        pair.run(50_000_000L);
        assertEquals(CqpErrorCode.COMPL_RQ_WQE_FLUSHED, pair.b.lastFlushed(c.passive));
        assertEquals(1, pair.b.pollAll(c.bCq).size());
        // a flush of the SQ alone (irdma flushes both): nothing outstanding there
        DriverNode.Completion sqOnly = pair.b.rawFlush(c.passive, true, false);
        assertTrue(sqOnly.error(), "B's SQ has nothing outstanding");
        // irdma_gen_ae (hw.c irdma_hw_modify_qp's failure path): IRDMA_AE_BAD_CLOSE, source 0.
        pair.b.pollAes();
        assertFalse(pair.b.generateAe(c.passive, AeCode.BAD_CLOSE.code(), 0).error());
        List<Ae> l = new ArrayList<>();
        pair.runUntil(() -> {
            l.addAll(pair.b.pollAes());
            return !l.isEmpty();
        }, 1_000_000L);
        assertEquals(1, l.size());
        assertEquals(AeCode.BAD_CLOSE.code(), l.get(0).code());
        assertEquals(c.passive.id(), l.get(0).qpId());
        // A heard B's reset and its driver flushed both queues (cm.c irdma_cm_disconn_true): only its SQ had work,
        // the Send its lost transmitter never got out: minor 3 (IRDMA_CQP_COMPL_SQ_WQE_FLUSHED).
        assertEquals(CqpErrorCode.COMPL_SQ_WQE_FLUSHED, pair.a.lastFlushed(c.active));
    }

    @Test
    void aQpThatNeverRanFlushesWhatWasPostedOnItsRings() {
        CompletionQueue cq = pair.a.verbs.createCq(64);
        QueuePair qp = pair.a.verbs.createQp(new DriverPair.Options().init(pair.a, cq));
        Buffer b = pair.a.buffer(64, Access.LOCAL_WRITE);
        long posted = pair.a.postRecv(qp, b.gpa(), 64, b.stag());
        // ib_modify_qp(ERR) on a QP that never connected: ERROR, no reset (irdma_modify_qp), no flush of its own
        qp.modify(IbQpState.ERR);
        DriverNode.Completion done = pair.a.rawFlush(qp, true, true);
        assertFalse(done.error());
        assertEquals(CqpErrorCode.COMPL_RQ_WQE_FLUSHED, done.minor());
        List<Completion> got = pair.a.pollAll(cq);
        assertEquals(1, got.size());
        assertEquals(posted, got.get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, got.get(0).status());
    }

    @Test
    void destroyReleasesTheEngineItsTimersAndItsBuffers() {
        pair.run(100_000_000L); // the bring-up's own timers settle first
        long nativeBefore = OS.memory().nativeMemoryUsed();
        int timersBefore = pair.scheduler.pendingTimers();
        DriverPair.Conn c = pair.connect(false);
        assertTrue(OS.memory().nativeMemoryUsed() > nativeBefore, "the engines hold off-heap rings");
        Buffer src = pair.a.buffer(100_000, Access.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(100_000, Access.REMOTE_WRITE);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa(), 100_000, src.stag()).remote(dst.gpa(), dst.stag()));
        pair.run(1_000_000L);
        c.active.modify(IbQpState.ERR);
        pair.run(1_000_000L);
        c.passive.modify(IbQpState.ERR);
        c.active.destroy();
        c.passive.destroy();
        assertNull(pair.a.engine(c.active));
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
        DriverPair.Conn c = pair.connect(false);
        // A's frames no longer reach the wire.
        pair.a.dev().port().setTransmitter((s, o, l) -> { });
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(s.gpa(), 64, s.stag()));
        List<Ae> got = new ArrayList<>();
        pair.runUntil(() -> {
            got.addAll(pair.a.pollAes());
            return !got.isEmpty();
        }, 600_000_000_000L);
        assertEquals(AeCode.LLP_TOO_MANY_RETRIES.code(), got.get(0).code());
        assertEquals(c.active.id(), got.get(0).qpId());
        assertEquals(TcpState.CLOSED.hardwareCode(), got.get(0).tcpState());
        assertTrue(pair.a.engine(c.active).halted());
        assertEquals(9, pair.a.engine(c.active).tcp().counters().timeouts(),
                "IRDMA_DEFAULT_REXMIT_THRESH (8) back-offs, then the end");
        pair.run(100_000_000L);
        assertTrue(pair.a.pollAll(c.aCq).stream().noneMatch(x -> x.status() == WcStatus.SUCCESS),
                "the Send never completes by itself (the driver's flush ends it in error)");
    }
}
