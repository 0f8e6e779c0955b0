package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.irdmaemu.driver.verbs.ConnectionWqesTest.tcp;

import dev.irdmaemu.cm.CmHardwarePort;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.OffloadResult;
import dev.irdmaemu.cm.driver.ModelHardwarePort;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.queue.AeCode;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The CM's port on the driver ({@link ModelHardwarePort}) hands a connection to a consumer's QP as cm.c does, on the
 * driver module's scripted device (its test jar: {@link Rig}, {@link ScriptedDevice}). In the driver's test package
 * to reach the rig; lives in cm because the port is cm's.
 */
class ModelHardwarePortConnectionTest {
    private static final long VALID = 1L << 63;

    /** The port whose verbs the rig's are (192.0.2.1 on the port). */
    private ModelHardwarePort port;

    private Rig rigWithPort() {
        return new Rig(d -> { }, d -> {
            port = new ModelHardwarePort(d, Rig.MAC, List.of(LocalAddress.untagged("192.0.2.1")));
            return port.verbs();
        });
    }

    /** The QP an offload answered, -1 when it was refused (what the tests compare with). */
    private static int qpnOf(OffloadResult r) {
        return r instanceof OffloadResult.Offloaded o ? o.qpn() : -1;
    }

    private static long sq(Rig r, QueuePair qp, int index, int qword) {
        return r.driver.store().readLong(r.driver.offsetOf(qp.sqWqeAddress(index)) + qword * 8L);
    }

    private static MpaOutcome passive(int pdLength) {
        byte[] reply = new byte[24 + pdLength];
        for (int i = 0; i < reply.length; i++) {
            reply[i] = (byte) (0x40 + i);
        }
        return new MpaOutcome(2, 16, 8, Rdma0.READ, false, reply);
    }

    @Test
    void theModelPortOffloadsOntoTheConsumersQpAndLeavesItToTheConsumerAfterwards() {
        try (Rig r = rigWithPort()) {
            QueuePair qp = VerbsControlPathTest.qp(r);
            List<String> toCm = new ArrayList<>();
            port.attach(new CmHardwarePort.Receiver() {
                @Override
                public void receive(BytesStore<?, ?> frame, long offset, int length) {
                }

                @Override
                public void qpEvent(int qpn, QpEvent event) {
                    toCm.add(qpn + " " + event);
                }
            });
            r.device.ops.clear();
            int qpn = qpnOf(port.offload(tcp(true, 0xffff), passive(4), qp.id()));
            assertEquals(qp.id(), qpn);
            // the neighbour's ARP entry, the LSMM's region (irdma_accept), then RTS with the TCP context: no qhash
            // op, the device takes the four-tuple over (verbs.c irdma_modify_qp sets hte_added)
            List<CqpOpcode> order = r.device.ops.stream().map(ScriptedDevice.Op::opcode).toList();
            assertEquals(List.of(CqpOpcode.MANAGE_ARP, CqpOpcode.REG_MR, CqpOpcode.MODIFY_QP), order);
            assertTrue(r.device.last(CqpOpcode.MODIFY_QP).wqe().qpTcpContextValid());
            assertTrue(port.reportsEstablished());
            assertEquals(-1, qpnOf(port.offload(tcp(true, 0xffff), passive(4), qp.id())), "one connection per QP");
            r.device.raiseAe(qp.id(), AeCode.LLP_CONNECTION_ESTABLISHED.code(), 0, 2, 5, 0);
            r.settle();
            assertEquals(List.of(qp.id() + " ESTABLISHED"), toCm);
            // graceful close: Modify QP to CLOSING, the device sends the FIN
            port.closeQp(qpn, false);
            assertEquals(3, r.device.last(CqpOpcode.MODIFY_QP).wqe().qpNextIwarpState());
            // the CM is done with it: the consumer's QP stays, unbound
            port.destroyQp(qpn);
            assertNotNull(r.verbs.qp(qp.id()));
            assertFalse(qp.connected());
            assertEquals(0, port.qpCount());
        }
    }

    @Test
    void destroyingAQpThatStillCarriesAConnectionEndsTheConnectionForTheCm() {
        try (Rig r = rigWithPort()) {
            QueuePair qp = VerbsControlPathTest.qp(r);
            List<String> toCm = new ArrayList<>();
            port.attach(new CmHardwarePort.Receiver() {
                @Override
                public void receive(BytesStore<?, ?> frame, long offset, int length) {
                }

                @Override
                public void qpEvent(int qpn, QpEvent event) {
                    toCm.add(qpn + " " + event);
                }
            });
            int qpn = qpnOf(port.offload(tcp(true, 0xffff), new MpaOutcome(2, 4, 4, Rdma0.WRITE, true, null), qp.id()));
            qp.destroy();
            CqpWqe err = r.device.ops(CqpOpcode.MODIFY_QP).get(1).wqe();
            assertEquals(6, err.qpNextIwarpState());
            assertTrue(err.qpResetConnection(), "the TCP connection is reset");
            r.settle();
            assertEquals(List.of(qpn + " RESET_SENT"), toCm);
        }
    }

    @Test
    void anAbortiveCloseIsModifyQpToErrorWithTheResetFlag() {
        try (Rig r = rigWithPort()) {
            QueuePair qp = VerbsControlPathTest.qp(r);
            int qpn = qpnOf(port.offload(tcp(true, 0xffff), new MpaOutcome(2, 4, 4, Rdma0.WRITE, true, null), qp.id()));
            port.closeQp(qpn, true);
            CqpWqe w = r.device.last(CqpOpcode.MODIFY_QP).wqe();
            assertEquals(6, w.qpNextIwarpState());
            assertTrue(w.qpResetConnection(), "verbs.c: reset_tcp_conn with the TCP connection up");
        }
    }

    @Test
    void aConnectionWithoutAConsumerQpGetsOneOfThePortsOwnDestroyedWithIt() {
        try (Rig r = rigWithPort()) {
            int qpn = qpnOf(port.offload(tcp(true, 0xffff), new MpaOutcome(2, 4, 4, Rdma0.READ, true, null)));
            QueuePair qp = r.verbs.qp(qpn);
            assertNotNull(qp);
            assertEquals(1, r.verbs.cqsInUse(), "the port's one CQ");
            assertEquals(VALID | 0xabcdL, sq(r, qp, 0, 1), "its RTR went in");
            port.destroyQp(qpn);
            assertTrue(qp.isDestroyed());
            assertEquals(0, r.verbs.qpsInUse());
        }
    }
}
