package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IwarpConnection;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.VerbsException;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.tcp.TcpState;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The connection WQEs irdma writes before RTS (ctrl.c irdma_sc_send_lsmm, irdma_sc_send_rtt, irdma_sc_gen_rts_ae;
 * uk.c irdma_setup_connection_wqes) as the E810 works them: the passive side's LSMM goes raw on the stream and its
 * SQ then waits for the peer's first FPDU; the active side's RTR is a zero-length Write or Read; each side raises
 * IRDMA_AE_LLP_CONNECTION_ESTABLISHED after the NOP with local fence, the passive side first. A zero-length RTR
 * takes no RQ WQE and makes no CQE (RFC 6581 §5); user WQEs start at SQ index 3.
 */
class ConnectionWqeTest {
    private final DriverPair pair = new DriverPair(16L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    /** The completion context the driver gave {@code qp} (its host context's IRDMAQPC_QPCOMPCTX). */
    private static long completionContext(DriverPair.Node n, QueuePair qp) {
        return new QpContext().wrap(n.store(), n.off(qp.hostContextAddress()), QpContext.SIZE).qpComplCtx();
    }

    @ParameterizedTest(name = "RTR as a zero-length {0}")
    @ValueSource(strings = {"write", "read"})
    void lsmmThenRtrThenConnectionEstablishedOnBothSidesPassiveFirst(String rtr) {
        boolean read = rtr.equals("read");
        // A posted receive on the passive side: the RTR must not take it.
        Buffer rbuf = pair.b.buffer(256, Access.LOCAL_WRITE);
        DriverPair.Conn c = pair.connect(read);
        assertNotNull(c.activeEstablished);
        assertNotNull(c.passiveEstablished);
        // The passive side is established as soon as the RTR arrived; the active side once its RTR completed
        // (the Write acknowledged, or the zero-length Read Response back).
        assertTrue(c.passiveEstablished.time() <= c.activeEstablished.time(), "passive before active");
        for (DriverPair.Ae e : List.of(c.activeEstablished, c.passiveEstablished)) {
            assertEquals(QpState.RTS.code(), e.iwarpState());
            assertEquals(TcpState.ESTABLISHED.hardwareCode(), e.tcpState());
            assertEquals(2, e.wqeIndex(), "raised by the GEN_RTS_AE WQE at SQ index 2");
            assertEquals(AeSource.SQ, e.source());
        }
        assertEquals(completionContext(pair.a, c.active), c.activeEstablished.context());
        assertEquals(completionContext(pair.b, c.passive), c.passiveEstablished.context());
        assertTrue(c.active.rtsAeReceived() && c.passive.rtsAeReceived(), "the driver took the RTS AE");
        // Nothing else was raised and no CQE was written: none of the connection WQEs is signaled.
        assertEquals(1, c.aAes.size(), () -> "A AEs " + c.aAes);
        assertEquals(1, c.bAes.size(), () -> "B AEs " + c.bAes);
        assertTrue(pair.a.pollAll(c.aCq).isEmpty());
        assertTrue(pair.b.pollAll(c.bCq).isEmpty());
        // The LSMM went out as stream bytes, the RTR as one FPDU of the right kind.
        assertEquals(DriverPair.MPA_REPLY.length, pair.b.engine(c.passive).stats().streamBytesSent());
        assertEquals(1, pair.a.engine(c.active).stats().fpdusSent());
        RecordingTraceSink.Recorded rtrFpdu = pair.a.traceSink().of(TraceKind.FPDU_TX).get(0);
        assertEquals(read ? "RDMA_READ_REQUEST" : "RDMA_WRITE", rtrFpdu.get("op"));
        assertEquals("0", rtrFpdu.get("payload"));
        if (read) {
            assertEquals(1, pair.b.engine(c.passive).stats().readResponsesSent());
            assertEquals(0, pair.a.engine(c.active).readsOutstanding());
        }
        // The RTR took no RQ WQE: the first Send lands in the first posted buffer, with MSN 1.
        pair.b.postRecv(c.passive, rbuf.gpa(), 256, rbuf.stag());
        Buffer sbuf = pair.a.buffer(64, Access.LOCAL_WRITE);
        pair.a.fill(sbuf.gpa(), 64, 1);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(sbuf.gpa(), 64, sbuf.stag()));
        pair.runUntil(() -> !pair.b.pollAll(c.bCq).isEmpty(), 100_000_000L);
        pair.runUntil(() -> !pair.a.pollAll(c.aCq).isEmpty(), 100_000_000L);
        assertEquals(List.of(3), pair.a.cqeWqeIndexes(c.active, true), "user WQEs start at SQ index 3");
        byte[] sent = new byte[64];
        byte[] got = new byte[64];
        pair.a.store().read(pair.a.off(sbuf.gpa()), sent, 0, 64);
        pair.b.store().read(pair.b.off(rbuf.gpa()), got, 0, 64);
        assertArrayEquals(sent, got);
        assertEquals(List.of(0), pair.b.cqeWqeIndexes(c.passive, false));
    }

    @Test
    void theLsmmBytesGoOnTheStreamRawAndTheActiveCmReadsThemOnItsIlq() {
        CompletionQueue cq = pair.b.verbs.createCq(64);
        QueuePair qp = pair.b.verbs.createQp(new DriverPair.Options().init(pair.b, cq));
        DriverPair.steerToIlq(pair.a, 40099, DriverPair.IP_B, 20099);
        DriverPair.steerToIlq(pair.b, 20099, DriverPair.IP_A, 40099);
        MpaOutcome mpa = new MpaOutcome(1, 8, 8, Rdma0.WRITE, false, DriverPair.MPA_REPLY);
        IwarpConnection.writeLsmm(qp, mpa);
        IwarpConnection.writeContext(qp, DriverPair.tcp(pair.b, 20099, DriverPair.IP_A, DriverPair.MAC_A, 40099,
                5000, 9000), mpa, DriverPair.ARP_INDEX);
        IwarpConnection.moveToRts(qp, (q, e) -> { });
        byte[][] got = new byte[1][];
        pair.runUntil(() -> (got[0] = pair.a.pollIlqPayload()) != null, 50_000_000L);
        assertArrayEquals(DriverPair.MPA_REPLY, got[0]);
        // The SQ now waits for the peer's first FPDU: no AE, the NOP and GEN_RTS_AE not yet done.
        pair.run(20_000_000L);
        assertTrue(pair.b.pollAes().isEmpty());
        assertEquals(1, pair.b.engine(qp).sqOutstanding() + 0, "the LSMM, waiting for its acknowledgment");
        assertFalse(qp.rtsAeReceived());
    }

    @Test
    void aQpWithoutItsArpEntryRaisesInvalidArpEntryAndGoesToError() {
        CompletionQueue cq = pair.a.verbs.createCq(64);
        QueuePair qp = pair.a.verbs.createQp(new DriverPair.Options().init(pair.a, cq));
        // ARP index 7: no entry there
        IwarpConnection.writeRtr(qp, Rdma0.WRITE);
        IwarpConnection.writeContext(qp, DriverPair.tcp(pair.a, 40500, DriverPair.IP_B, DriverPair.MAC_B, 20500, 0,
                0), new MpaOutcome(1, 8, 8, Rdma0.WRITE, true, null), 7);
        IwarpConnection.moveToRts(qp, (q, e) -> { });
        List<DriverPair.Ae> aes = new java.util.ArrayList<>();
        pair.runUntil(() -> {
            aes.addAll(pair.a.pollAes());
            return !aes.isEmpty();
        }, 10_000_000L);
        pair.run(10_000_000L);
        aes.addAll(pair.a.pollAes());
        assertEquals(1, aes.size(), aes::toString);
        assertEquals(AeCode.INVALID_ARP_ENTRY.code(), aes.get(0).code());
        assertEquals(QpState.ERROR.code(), aes.get(0).iwarpState());
        assertEquals(QpState.ERROR, pair.a.dev().qps().get(qp.id()).state());
        assertEquals(0, pair.a.dev().iwarp().liveEngines());
    }

    @Test
    void aContextAskingForMpaMarkersIsRefusedWithAnErrorCompletion() {
        CompletionQueue cq = pair.a.verbs.createCq(64);
        QueuePair qp = pair.a.verbs.createQp(new DriverPair.Options().init(pair.a, cq));
        IwarpConnection.writeRtr(qp, Rdma0.WRITE);
        MpaOutcome mpa = new MpaOutcome(1, 8, 8, Rdma0.WRITE, true, null);
        IwarpConnection.writeContext(qp, DriverPair.tcp(pair.a, 40501, DriverPair.IP_B, DriverPair.MAC_B, 20501, 0,
                0), mpa, DriverPair.ARP_INDEX);
        // cm.c sets the marker bits when MPA negotiated markers; the E810 does not implement them
        DriverPair.rewriteIwarpHalf(pair.a, qp, DriverPair::markers);
        VerbsException refused = assertThrows(VerbsException.class, () -> IwarpConnection.moveToRts(qp, (q, e) -> { }));
        CqpException cause = (CqpException) refused.getCause();
        assertEquals(CqpException.Kind.OP_ERROR, cause.kind());
        assertEquals(0xffff, cause.major());
        assertEquals(QpState.IDLE, pair.a.dev().qps().get(qp.id()).state());
        assertFalse(pair.a.dev().iwarp().liveEngines() > 0);
    }
}
