package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.fw.cqp.CqpErrorCode;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * AEs of a connected QP handled as hw.c irdma_process_aeq does, with the terminate handling of ctrl.c / utils.c
 * and the disconnect work of cm.c irdma_cm_disconn_true: the Modify QP, Flush WQEs and Q2 bytes the driver
 * produces, what the connection hears and what the consumer's event handler gets. The device is scripted: it
 * accepts the ops and raises the AEs the test names.
 */
class AsyncEventHandlingTest {
    private static final int RTS = QueuePair.STATE_RTS;
    private static final int TERMINATE = QueuePair.STATE_TERMINATE;
    private static final int ESTABLISHED = QueuePair.TCP_ESTABLISHED;

    private final Rig r = new Rig();
    private final List<QpEvent> cm = new ArrayList<>();
    private final List<QpEventType> consumer = new ArrayList<>();
    private QueuePair qp;

    @AfterEach
    void close() {
        r.close();
    }

    private QueuePair connected() {
        qp = VerbsControlPathTest.qp(r);
        qp.onEvent((q, e) -> consumer.add(e));
        IwarpConnection.writeRtr(qp, Rdma0.WRITE);
        IwarpConnection.writeContext(qp, ConnectionWqesTest.tcp(true, 0xffff),
                new MpaOutcome(2, 8, 8, Rdma0.WRITE, true, null), 0);
        IwarpConnection.moveToRts(qp, (q, e) -> cm.add(e));
        r.device.raiseAe(qp.id(), AeCode.LLP_CONNECTION_ESTABLISHED.code(), 0, RTS, ESTABLISHED, 0);
        r.settle();
        cm.clear();
        r.device.ops.clear();
        return qp;
    }

    private CqpWqe lastModify() {
        ScriptedDevice.Op op = r.device.last(CqpOpcode.MODIFY_QP);
        assertNotNull(op, "a Modify QP");
        return op.wqe();
    }

    private QpFlushFields lastFlush() {
        ScriptedDevice.Op op = r.device.last(CqpOpcode.FLUSH_WQES);
        assertNotNull(op, "a Flush WQEs");
        return new QpFlushFields().readFrom(op.wqe());
    }

    private BytesStore<?, ?> q2() {
        return r.driver.store();
    }

    private long q2Offset() {
        return r.driver.offsetOf(qp.q2Address());
    }

    @Test
    void anErrorAeInRtsTerminatesWithTheHeaderInQ2ThenErrorFlushAndTheEvents() {
        connected();
        // the device copied the offending RDMA Write into Q2 and raised a bounds violation from the inbound path
        BytesStore<?, ?> frame = BytesStore.nativeStoreWithFixedCapacity(Q2Buffer.SIZE);
        frame.zeroOut(0, Q2Buffer.SIZE);
        TerminateBuilderTest.writeFrame(frame, TerminateBuilderTest.Frame.TAGGED_WRITE);
        q2().write(q2Offset() + Q2Buffer.BAD_FRAME_OFFSET, frame, Q2Buffer.BAD_FRAME_OFFSET, Q2Buffer.FRAME_CAPACITY);
        r.device.raiseAe(qp.id(), AeCode.AMP_BOUNDS_VIOLATION.code(), AeSource.IN_RR_WR, RTS, ESTABLISHED, 1);
        r.settle(0);
        // ctrl.c irdma_terminate_connection: header + 16 copied bytes, Modify QP to TERMINATE sending the Terminate
        CqpWqe m = lastModify();
        assertEquals(TERMINATE, m.qpNextIwarpState());
        assertEquals(1, m.qpTermActions(), "IRDMAQP_TERM_SEND_TERM_ONLY");
        assertEquals(4 + 16, qp.lastTerminate().termLength());
        // IRDMA_CQPSQ_QP_TERMLEN is 4 bits (defs.h GENMASK_ULL(51, 48)): FIELD_PREP keeps the low 4 bits of 20
        assertEquals((4 + 16) & 0xf, m.qpTermLength());
        assertFalse(m.qpResetConnection());
        assertEquals(0x11, q2().readUnsignedByte(q2Offset()), "DDP layer, tagged buffer");
        assertEquals(0x01, q2().readUnsignedByte(q2Offset() + 1), "base or bounds");
        assertEquals(0xc0, q2().readUnsignedByte(q2Offset() + 2));
        assertEquals(QueuePair.TERM_SENT, qp.termFlags());
        assertEquals(FlushCode.PROT_ERR, qp.flushCode());
        assertTrue(cm.isEmpty(), "nothing for the CM until the terminate is done");
        // no CLOSE_COMPLETE within a second: the terminate timer (irdma_terminate_start_timer, HZ) ends it
        r.device.ops.clear();
        r.scheduler.runFor(QueuePair.TERMINATE_TIMEOUT_NANOS + 1);
        r.settle();
        CqpWqe err = lastModify();
        assertEquals(QueuePair.STATE_ERROR, err.qpNextIwarpState());
        assertTrue(err.qpResetConnection(), "a terminate under way: reset_tcp_conn");
        assertTrue(err.qpRemoveHashEntry(), "hte_added: the hash entry goes");
        QpFlushFields f = lastFlush();
        assertEquals(qp.id(), f.qpId);
        assertTrue(f.flushSq);
        assertTrue(f.flushRq);
        assertTrue(f.userFlushCode);
        assertEquals(FlushCode.FLUSH_MAJOR_ERR, f.sqMajor);
        assertEquals(FlushCode.GENERAL_ERR, f.sqMinor, "the AE named neither queue (IN_RR_WR)");
        assertEquals(List.of(QpEvent.TERMINATED), cm);
        assertEquals(List.of(QpEventType.QP_ACCESS_ERR), consumer);
        assertTrue(qp.flushIssued());
        assertFalse(qp.connected());
    }

    @Test
    void anRqErrorNamesTheRqWqeInTheContextAndFlushesTheRqWithTheFlushCode() {
        connected();
        r.device.raiseAe(qp.id(), AeCode.DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER.code(), AeSource.RQ, RTS,
                ESTABLISHED, 0);
        r.settle(0);
        assertEquals(TERMINATE, lastModify().qpNextIwarpState());
        dev.irdmaemu.fw.qp.QpContext c = new dev.irdmaemu.fw.qp.QpContext().wrap(r.driver.store(),
                r.driver.offsetOf(qp.hostContextAddress()), 256);
        assertTrue(c.errRqIdxValid(), "irdma_process_aeq: err_rq_idx_valid = info->rq");
        // the peer's FIN-ACK closes the terminate: CLOSE_COMPLETE with term_flags set is irdma_terminate_done
        r.device.raiseAe(qp.id(), AeCode.LLP_CLOSE_COMPLETE.code(), 0, TERMINATE, QueuePair.TCP_CLOSED, 0);
        r.settle();
        QpFlushFields f = lastFlush();
        assertEquals(FlushCode.LOC_LEN_ERR, f.rqMinor, "the RQ gets the QP's flush code");
        assertEquals(FlushCode.GENERAL_ERR, f.sqMinor);
        // irdma_cm_disconn_true clears term_flags in the closed-TCP branch before the flush: no QP event then
        assertEquals(List.of(QpEvent.TERMINATED), cm);
        assertTrue(consumer.isEmpty());
    }

    @Test
    void terminateSentAsksTheDeviceForTheFinOnly() {
        connected();
        r.device.raiseAe(qp.id(), AeCode.TERMINATE_SENT.code(), 0, TERMINATE, ESTABLISHED, 0);
        r.settle(0);
        CqpWqe m = lastModify();
        assertEquals(TERMINATE, m.qpNextIwarpState());
        assertEquals(2, m.qpTermActions(), "IRDMAQP_TERM_SEND_FIN_ONLY");
        assertEquals(0, m.qpTermLength());
    }

    /** A Terminate from the peer in Q2: untagged, last, version 1, QN 2, MSN 1, MO 0, RDMAP version 1. */
    private void peerTerminate(int qn, int layerEtype) {
        long o = q2Offset() + Q2Buffer.BAD_FRAME_OFFSET;
        BytesStore<?, ?> s = q2();
        s.zeroOut(o, o + Q2Buffer.FRAME_CAPACITY);
        s.writeUnsignedByte(o + 14, 0x45);
        s.writeUnsignedByte(o + 34 + 12, 0x50);
        long mpa = o + 54;
        s.writeUnsignedByte(mpa + 1, 28);
        s.writeUnsignedByte(mpa + 2, 0x41);
        s.writeUnsignedByte(mpa + 3, 0x47);
        s.writeUnsignedByte(mpa + 11, qn);
        s.writeUnsignedByte(mpa + 15, 1);
        s.writeUnsignedByte(mpa + 20, layerEtype);
    }

    @Test
    void aTerminateFromThePeersRdmapEndsTheQpAtOnce() {
        connected();
        peerTerminate(2, 0x01);
        r.device.raiseAe(qp.id(), AeCode.LLP_TERMINATE_RECEIVED.code(), 0, TERMINATE, ESTABLISHED, 1);
        r.settle(0);
        // irdma_terminate_received: RDMAP remote protection -> irdma_terminate_done
        CqpWqe m = lastModify();
        assertEquals(QueuePair.STATE_ERROR, m.qpNextIwarpState());
        assertTrue(m.qpResetConnection());
        r.settle();
        assertEquals(List.of(QpEvent.TERMINATED), cm);
        assertEquals(List.of(QpEventType.QP_FATAL), consumer, "IRDMA_QP_EVENT_CATASTROPHIC");
        assertNotNull(r.device.last(CqpOpcode.FLUSH_WQES));
        assertTrue((qp.termFlags() & QueuePair.TERM_RCVD) != 0);
    }

    @Test
    void aTerminateFromThePeersDdpLayerIsAnsweredWithTheFinAndTheTimer() {
        connected();
        peerTerminate(2, 0x12);
        r.device.raiseAe(qp.id(), AeCode.LLP_TERMINATE_RECEIVED.code(), 0, TERMINATE, ESTABLISHED, 1);
        r.settle(0);
        CqpWqe m = lastModify();
        assertEquals(TERMINATE, m.qpNextIwarpState());
        assertEquals(2, m.qpTermActions(), "the FIN only");
        assertTrue(cm.isEmpty());
        r.scheduler.runFor(QueuePair.TERMINATE_TIMEOUT_NANOS + 1);
        r.settle();
        assertEquals(List.of(QpEvent.TERMINATED), cm);
    }

    @Test
    void aMalformedTerminateIsAnsweredWithATerminate() {
        connected();
        peerTerminate(1, 0x01);
        r.device.raiseAe(qp.id(), AeCode.LLP_TERMINATE_RECEIVED.code(), 0, TERMINATE, ESTABLISHED, 1);
        r.settle(0);
        CqpWqe m = lastModify();
        assertEquals(TERMINATE, m.qpNextIwarpState());
        assertEquals(1, m.qpTermActions(), "a Terminate back");
        // DDP untagged, invalid QN
        assertEquals(0x12, q2().readUnsignedByte(q2Offset()));
        assertEquals(0x01, q2().readUnsignedByte(q2Offset() + 1));
        assertEquals(QueuePair.TERM_SENT, qp.termFlags() & QueuePair.TERM_SENT);
    }

    @Test
    void theFinMakesTheQpCloseAndTheCloseCompleteEndsIt() {
        connected();
        r.device.raiseAe(qp.id(), AeCode.LLP_FIN_RECEIVED.code(), 0, RTS, QueuePair.TCP_CLOSE_WAIT, 0);
        r.settle();
        assertEquals(QueuePair.STATE_CLOSING, lastModify().qpNextIwarpState(), "irdma_next_iw_state(CLOSING)");
        assertEquals(List.of(QpEvent.FIN_RECEIVED), cm);
        assertEquals(QueuePair.STATE_CLOSING, qp.iwarpState());
        // a second FIN changes nothing (close_timer_started)
        r.device.ops.clear();
        r.device.raiseAe(qp.id(), AeCode.LLP_FIN_RECEIVED.code(), 0, RTS, QueuePair.TCP_CLOSE_WAIT, 0);
        r.settle();
        assertTrue(r.device.ops.isEmpty());
        // the CM's graceful close on a QP already CLOSING is no new op (irdma_modify_qp SQD)
        qp.modify(IbQpState.SQD);
        assertTrue(r.device.ops.isEmpty());
        r.device.raiseAe(qp.id(), AeCode.LLP_CLOSE_COMPLETE.code(), 0, QueuePair.STATE_CLOSING,
                QueuePair.TCP_TIME_WAIT, 0);
        r.settle();
        assertEquals(List.of(QpEvent.FIN_RECEIVED, QpEvent.CLOSE_COMPLETE), cm);
        assertNotNull(r.device.last(CqpOpcode.FLUSH_WQES), "closed: the WQEs are flushed");
        assertTrue(consumer.isEmpty(), "no QP event without a terminate");
    }

    @Test
    void resetSentMovesTheQpToErrorWithoutItsHashEntry() {
        connected();
        r.device.raiseAe(qp.id(), AeCode.RESET_SENT.code(), 0, QueuePair.STATE_ERROR, QueuePair.TCP_CLOSED, 0);
        r.settle();
        ScriptedDevice.Op first = r.device.ops.get(0);
        assertEquals(CqpOpcode.MODIFY_QP, first.opcode());
        assertEquals(QueuePair.STATE_ERROR, first.wqe().qpNextIwarpState());
        assertTrue(first.wqe().qpRemoveHashEntry());
        assertEquals(List.of(QpEvent.RESET_SENT), cm);
    }

    @Test
    void aResetFromThePeerIsReportedUnlessACloseIsUnderWay() {
        connected();
        r.device.raiseAe(qp.id(), AeCode.LLP_CONNECTION_RESET.code(), 0, QueuePair.STATE_ERROR,
                QueuePair.TCP_CLOSED, 0);
        r.settle();
        assertEquals(List.of(QpEvent.CONNECTION_RESET), cm);
        assertNotNull(r.device.last(CqpOpcode.FLUSH_WQES));
    }

    @Test
    void aResetDuringACloseIsLeftToTheCloseTimer() {
        connected();
        r.device.raiseAe(qp.id(), AeCode.LLP_FIN_RECEIVED.code(), 0, RTS, QueuePair.TCP_CLOSE_WAIT, 0);
        r.settle();
        cm.clear();
        r.device.raiseAe(qp.id(), AeCode.LLP_CONNECTION_RESET.code(), 0, QueuePair.STATE_ERROR,
                QueuePair.TCP_CLOSED, 0);
        r.settle();
        assertTrue(cm.isEmpty());
    }

    @Test
    void anErrorAeOutsideRtsMovesTheQpToErrorWithoutATerminate() {
        connected();
        r.device.raiseAe(qp.id(), AeCode.LLP_TOO_MANY_RETRIES.code(), 0, QueuePair.STATE_CLOSING,
                QueuePair.TCP_CLOSED, 0);
        r.settle();
        assertTrue(r.device.ops(CqpOpcode.MODIFY_QP).stream().noneMatch(o -> o.wqe().qpNextIwarpState() == TERMINATE));
        assertEquals(QueuePair.STATE_ERROR, r.device.ops(CqpOpcode.MODIFY_QP).get(0).wqe().qpNextIwarpState());
        assertEquals(List.of(QpEvent.CLOSE_COMPLETE), cm, "TCP closed: irdma_cm_disconn_true closes");
        assertEquals(0, qp.termFlags());
    }

    @Test
    void aTerminateTheDeviceRefusesEndsInErrorAsIfTheDeviceHadSaidBadClose() {
        connected();
        r.device.fail(CqpOpcode.MODIFY_QP, 1, CqpErrorCode.MAJ_ERROR, 0x8002);
        r.device.raiseAe(qp.id(), AeCode.AMP_INVALID_STAG.code(), AeSource.IN_RR_WR, RTS, ESTABLISHED, 0);
        r.settle();
        List<ScriptedDevice.Op> mods = r.device.ops(CqpOpcode.MODIFY_QP);
        assertEquals(TERMINATE, mods.get(0).wqe().qpNextIwarpState());
        assertEquals(QueuePair.STATE_ERROR, mods.get(1).wqe().qpNextIwarpState(), "the generated BAD_CLOSE");
        assertTrue(mods.get(1).wqe().qpResetConnection());
        assertEquals(List.of(QpEvent.TERMINATED), cm);
    }

    @Test
    void anAeForAQpThatIsNotTheVerbsIsCountedAndIgnored() {
        connected();
        r.device.raiseAe(40, AeCode.LLP_FIN_RECEIVED.code(), 0, RTS, QueuePair.TCP_CLOSE_WAIT, 0);
        r.device.raiseAe(1, AeCode.LLP_FIN_RECEIVED.code(), 0, RTS, QueuePair.TCP_CLOSE_WAIT, 0);
        r.settle();
        assertEquals(2, r.verbs.unknownQpEvents());
        assertTrue(cm.isEmpty());
        assertTrue(r.device.ops.isEmpty());
    }

    @Test
    void whenTheDeviceRefusesTheFlushTheDriverGeneratesTheFlushedCompletions() {
        connected();
        ProtectionDomain pd = qp.pd();
        long buf = r.verbs.allocateBuffer(4096);
        MemoryRegion mr = r.verbs.registerBuffer(pd, buf, 4096, Access.LOCAL_WRITE);
        SendWorkRequest s = new SendWorkRequest();
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        assertEquals(PostStatus.OK, qp.postSend(s.clear().wrId(1).opcode(WrOpcode.SEND)
                .flags(SendWorkRequest.SIGNALED).sge(buf, 100, mr.lkey())));
        assertEquals(PostStatus.OK, qp.postSend(s.clear().wrId(2).opcode(WrOpcode.RDMA_WRITE).sge(buf, 8, mr.lkey())
                .remote(0x9000, 0x1234)));
        assertEquals(PostStatus.OK, qp.postRecv(rr.clear().wrId(3).sge(buf, 4096, mr.lkey())));
        r.device.fail(CqpOpcode.FLUSH_WQES, 1, CqpErrorCode.MAJ_ERROR, 0x9002);
        r.device.raiseAe(qp.id(), AeCode.LLP_CONNECTION_RESET.code(), 0, QueuePair.STATE_ERROR,
                QueuePair.TCP_CLOSED, 0);
        r.settle();
        assertNotNull(r.device.last(CqpOpcode.FLUSH_WQES));
        // irdma_flush_worker after IRDMA_FLUSH_DELAY_MS: the CQ is empty, so every outstanding WR completes
        WorkCompletion wc = new WorkCompletion();
        CompletionQueue cq = qp.sendCq();
        List<String> got = new ArrayList<>();
        while (cq.poll(wc)) {
            got.add(wc.wrId() + " " + wc.status() + " " + wc.opcode());
        }
        assertEquals(List.of("1 WR_FLUSH_ERR SEND", "2 WR_FLUSH_ERR RDMA_WRITE", "3 WR_FLUSH_ERR RECV"), got);
    }

    @Test
    void anArmedCqsHandlerRunsOnItsCompletionEvent() {
        connected();
        CompletionQueue cq = qp.sendCq();
        int[] calls = new int[1];
        cq.onCompletion(c -> calls[0]++);
        r.device.raiseCeqe(cq.id());
        r.settle();
        assertEquals(0, calls[0], "not armed: no call");
        assertFalse(cq.requestNotify(false));
        assertEquals(cq.id(), r.device.lastCqArm);
        long arm = r.driver.store().readLong(r.driver.offsetOf(cq.shadowAreaAddress()) + 32);
        assertEquals(1, arm >>> 16 & 3, "arm sequence number 1");
        assertTrue((arm & 1L << 14) != 0, "IRDMA_CQ_DBSA_ARM_NEXT for any completion");
        assertTrue((arm & 1L << 15) != 0, "uk.c always sets IRDMA_CQ_DBSA_ARM_NEXT_SE");
        r.device.raiseCeqe(cq.id());
        r.device.raiseCeqe(cq.id());
        r.settle();
        assertEquals(1, calls[0], "one arm, one call");
        // a solicited-only arm leaves ARM_NEXT clear
        cq.requestNotify(true);
        arm = r.driver.store().readLong(r.driver.offsetOf(cq.shadowAreaAddress()) + 32);
        assertEquals(0, arm & 1L << 14);
        assertEquals(2, arm >>> 16 & 3);
    }
}
