package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.IwarpTestDriver;
import dev.irdmaemu.model.mr.MemoryRegions;
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
    private final IwarpPair pair = new IwarpPair(16L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    @ParameterizedTest(name = "RTR as a zero-length {0}")
    @ValueSource(strings = {"write", "read"})
    void lsmmThenRtrThenConnectionEstablishedOnBothSidesPassiveFirst(String rtr) {
        boolean read = rtr.equals("read");
        // A posted receive on the passive side: the RTR must not take it.
        IwarpTestDriver.Buffer rbuf = pair.b.buffer(256, MemoryRegions.LOCAL_WRITE);
        IwarpPair.Conn c = pair.connect(1 + 4, 1 + 5, read, s -> { }, s -> { });
        assertNotNull(c.activeEstablished);
        assertNotNull(c.passiveEstablished);
        // The passive side is established as soon as the RTR arrived; the active side once its RTR completed
        // (the Write acknowledged, or the zero-length Read Response back).
        assertTrue(c.passiveEstablished.time() <= c.activeEstablished.time(), "passive before active");
        for (IwarpTestDriver.Ae e : List.of(c.activeEstablished, c.passiveEstablished)) {
            assertEquals(QpState.RTS.code(), e.iwarpState());
            assertEquals(TcpState.ESTABLISHED.hardwareCode(), e.tcpState());
            assertEquals(2, e.wqeIndex(), "raised by the GEN_RTS_AE WQE at SQ index 2");
            assertEquals(AeSource.SQ, e.source());
        }
        assertEquals(c.active.completionContext, c.activeEstablished.context());
        assertEquals(c.passive.completionContext, c.passiveEstablished.context());
        // Nothing else was raised and no CQE was written: none of the connection WQEs is signaled.
        assertEquals(1, c.aAes.size(), () -> "A AEs " + c.aAes);
        assertEquals(1, c.bAes.size(), () -> "B AEs " + c.bAes);
        assertTrue(pair.a.pollAll(c.aCq).isEmpty());
        assertTrue(pair.b.pollAll(c.bCq).isEmpty());
        // The LSMM went out as stream bytes, the RTR as one FPDU of the right kind.
        assertEquals(IwarpPair.MPA_REPLY.length, c.passive.engine().stats().streamBytesSent());
        assertEquals(1, c.active.engine().stats().fpdusSent());
        RecordingTraceSink.Recorded rtrFpdu = pair.a.traceSink().of(TraceKind.FPDU_TX).get(0);
        assertEquals(read ? "RDMA_READ_REQUEST" : "RDMA_WRITE", rtrFpdu.get("op"));
        assertEquals("0", rtrFpdu.get("payload"));
        if (read) {
            assertEquals(1, c.passive.engine().stats().readResponsesSent());
            assertEquals(0, c.active.engine().readsOutstanding());
        }
        // The RTR took no RQ WQE: the first Send lands in the first posted buffer, with MSN 1.
        SgeList one = new SgeList().add(rbuf.gpa(), 256, rbuf.stag());
        int rqIndex = pair.b.postRecv(c.passive, one);
        IwarpTestDriver.Buffer sbuf = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        pair.a.fill(sbuf.gpa(), 64, 1);
        int sqIndex = pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(sbuf.gpa(), 64, sbuf.stag()),
                SqWqe.SIGNALED, 0);
        assertEquals(3, sqIndex, "user WQEs start at SQ index 3");
        pair.runUntil(() -> !pair.b.pollAll(c.bCq).isEmpty() || false, 100_000_000L);
        byte[] sent = new byte[64];
        byte[] got = new byte[64];
        pair.a.store().read(pair.a.off(sbuf.gpa()), sent, 0, 64);
        pair.b.store().read(pair.b.off(rbuf.gpa()), got, 0, 64);
        assertArrayEquals(sent, got);
        assertEquals(0, rqIndex);
    }

    @Test
    void theLsmmBytesGoOnTheStreamRawAndTheActiveCmReadsThemOnItsIlq() {
        IwarpTestDriver.Buffer reply = pair.b.buffer(IwarpPair.MPA_REPLY.length, MemoryRegions.LOCAL_WRITE);
        pair.b.store().write(pair.b.off(reply.gpa()), IwarpPair.MPA_REPLY);
        IwarpTestDriver.Cq cq = pair.b.createCq(50, 64);
        IwarpTestDriver.QpSpec s = IwarpTestDriver.QpSpec.connection(9, cq, 20099, IwarpPair.IP_A, 40099, 5000, 9000,
                IwarpPair.ARP_INDEX);
        IwarpTestDriver.Qp qp = pair.b.createQp(s);
        assertTrue(pair.a.qhash(IwarpTestDriver.QHASH_ADD, 40099, IwarpPair.IP_B, 20099, 1));
        pair.b.writeLsmm(qp, reply.gpa(), IwarpPair.MPA_REPLY.length, reply.stag());
        assertTrue(pair.b.modify(qp, QpState.RTS));
        byte[][] got = new byte[1][];
        pair.runUntil(() -> (got[0] = pair.a.pollIlqPayload()) != null, 50_000_000L);
        assertArrayEquals(IwarpPair.MPA_REPLY, got[0]);
        // The SQ now waits for the peer's first FPDU: no AE, the NOP and GEN_RTS_AE not yet done.
        pair.run(20_000_000L);
        assertTrue(pair.b.pollAes().isEmpty());
        assertEquals(1, qp.engine().sqOutstanding() + 0, "the LSMM, waiting for its acknowledgment");
    }

    @Test
    void aQpWithoutItsArpEntryRaisesInvalidArpEntryAndGoesToError() {
        IwarpTestDriver.Cq cq = pair.a.createCq(51, 64);
        // ARP index 7: no entry there
        IwarpTestDriver.QpSpec s = IwarpTestDriver.QpSpec.connection(12, cq, 40500, IwarpPair.IP_B, 20500, 0, 0, 7);
        IwarpTestDriver.Qp qp = pair.a.createQp(s);
        pair.a.writeRtr(qp, false);
        assertTrue(pair.a.modify(qp, QpState.RTS));
        List<IwarpTestDriver.Ae> aes = pair.a.pollAes();
        assertEquals(1, aes.size());
        assertEquals(AeCode.INVALID_ARP_ENTRY.code(), aes.get(0).code());
        assertEquals(QpState.ERROR.code(), aes.get(0).iwarpState());
        assertEquals(QpState.ERROR, qp.state());
        assertEquals(0, pair.a.dev().iwarp().liveEngines());
    }

    @Test
    void aContextAskingForMpaMarkersIsRefusedWithAnErrorCompletion() {
        IwarpTestDriver.Cq cq = pair.a.createCq(52, 64);
        IwarpTestDriver.QpSpec s = IwarpTestDriver.QpSpec.connection(13, cq, 40501, IwarpPair.IP_B, 20501, 0, 0,
                IwarpPair.ARP_INDEX);
        s.markers = true;
        IwarpTestDriver.Qp qp = pair.a.createQp(s);
        IwarpTestDriver.CqpDone done = pair.a.modifyQp(qp, QpState.RTS, f -> { });
        assertTrue(done.error());
        assertEquals(0xffff, done.major());
        assertEquals(QpState.IDLE, qp.state());
        assertFalse(pair.a.dev().iwarp().liveEngines() > 0);
    }
}
