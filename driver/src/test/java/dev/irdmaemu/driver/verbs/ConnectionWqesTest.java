package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.StagAccess;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.queue.AeCode;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * What cm.c does with the consumer's QP when the CM hands it a connection, byte for byte against ctrl.c
 * irdma_sc_send_lsmm / irdma_sc_send_rtt / irdma_sc_gen_rts_ae, cm.c irdma_cm_init_tsa_conn / irdma_init_tcp_ctx,
 * and verbs.c irdma_modify_qp to RTS. The expected quadwords are built here from the kernel's field definitions
 * (defs.h IRDMAQPSQ_*), independently of the fw.queue writers.
 */
class ConnectionWqesTest {
    private static final long VALID = 1L << 63;
    private static final long OPCODE_SHIFT = 32;

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
    void thePassiveSidesLsmmGoesAtSqZeroFromAPhysicallyRegisteredBuffer() {
        try (Rig r = new Rig()) {
            QueuePair qp = VerbsControlPathTest.qp(r);
            MpaOutcome mpa = passive(10);
            IwarpConnection.writeLsmm(qp, mpa);
            // irdma_accept: private data + IRDMA_MAX_IETF_SIZE registered, local write, its address as VA
            CqpWqe reg = r.device.last(CqpOpcode.REG_MR).wqe();
            assertEquals(10 + 32, reg.stagLength());
            assertEquals(0, reg.pblChunkSize());
            long buffer = reg.stagRegAddress();
            assertEquals(buffer, reg.stagVaOrFbo());
            assertEquals(StagAccess.LOCAL_READ | StagAccess.LOCAL_WRITE, reg.stagAccessRights());
            assertEquals(qp.pd().id(), reg.stagPdId());
            byte[] copied = new byte[34];
            r.driver.store().read(r.driver.offsetOf(buffer), copied, 0, 34);
            assertEquals(new String(mpa.lsmm(), java.nio.charset.StandardCharsets.ISO_8859_1),
                    new String(copied, java.nio.charset.StandardCharsets.ISO_8859_1));
            int lkey = (int) (reg.stagIndex() << 8 | reg.stagKey());
            // ctrl.c irdma_sc_send_lsmm (gen2): fragment, then a Send in stream mode waiting for the peer's PDU
            assertEquals(buffer, sq(r, qp, 0, 0));
            assertEquals(VALID | 34L << 32 | (lkey & 0xffff_ffffL), sq(r, qp, 0, 1));
            assertEquals(0, sq(r, qp, 0, 2));
            assertEquals(VALID | 1L << 59 | 1L << 58 | 0x03L << OPCODE_SHIFT, sq(r, qp, 0, 3));
            assertRtsAeWqes(r, qp);
        }
    }

    /** ctrl.c irdma_sc_gen_rts_ae: only quadword 3 of SQ[1] (NOP, local fence) and SQ[2] (GEN_RTS_AE). */
    private static void assertRtsAeWqes(Rig r, QueuePair qp) {
        assertEquals(VALID | 1L << 61 | 0x0cL << OPCODE_SHIFT, sq(r, qp, 1, 3));
        assertEquals(VALID | 0x30L << OPCODE_SHIFT, sq(r, qp, 2, 3));
        assertEquals(0, sq(r, qp, 1, 0), "the rest of the quantum untouched");
        assertEquals(0, sq(r, qp, 2, 1));
    }

    @ParameterizedTest(name = "read0 = {0}")
    @ValueSource(booleans = {true, false})
    void theActiveSidesRtrIsAZeroLengthReadOrWriteAtSqZero(boolean read) {
        try (Rig r = new Rig()) {
            QueuePair qp = VerbsControlPathTest.qp(r);
            IwarpConnection.writeRtr(qp, read ? Rdma0.READ : Rdma0.WRITE);
            assertEquals(0, sq(r, qp, 0, 0));
            assertEquals(0, sq(r, qp, 0, 2));
            if (read) {
                // irdma_sc_send_rtt: local STag 0xabcd, remote STag 0x1234, RDMA Read
                assertEquals(VALID | 0xabcdL, sq(r, qp, 0, 1));
                assertEquals(VALID | 0x01L << OPCODE_SHIFT | 0x1234L, sq(r, qp, 0, 3));
            } else {
                assertEquals(VALID, sq(r, qp, 0, 1));
                assertEquals(VALID, sq(r, qp, 0, 3), "RDMA Write is opcode 0");
            }
            assertRtsAeWqes(r, qp);
            assertTrue(r.device.ops(CqpOpcode.REG_MR).isEmpty(), "no buffer for the RTR");
        }
    }

    static TcpOffloadContext tcp(boolean ipv4, int vlan) {
        // 192.0.2.1 / .2 IPv4-mapped (::ffff:c000:201), or 2001:db8::1 / ::2, as the CM's IpEndpoint holds them
        long localHi = ipv4 ? 0 : 0x2001_0db8_0000_0000L;
        long localLo = ipv4 ? 0x0000_ffff_c000_0201L : 1;
        long remoteHi = localHi;
        long remoteLo = ipv4 ? 0x0000_ffff_c000_0202L : 2;
        return new TcpOffloadContext(ipv4, localHi, localLo, 50000, remoteHi, remoteLo, 4791, Rig.MAC, 0x02_00_00_00_00_0bL, vlan, 5, vlan < 4096, 0x40, 0x20,
                1000, 1000, 1000, 77_000, 64_000, 64_000, 0x3fffc, 7, 2, 1460, 2920, 77_000, 1000, 6,
                0x3fff_ffffL, 8, false);
    }

    @ParameterizedTest(name = "IPv4 = {0}")
    @ValueSource(booleans = {true, false})
    void theContextGetsTheTcpConnectionAsIrdmaInitTcpCtxFillsIt(boolean ipv4) {
        try (Rig r = new Rig()) {
            QueuePair qp = VerbsControlPathTest.qp(r);
            TcpOffloadContext t = tcp(ipv4, ipv4 ? 100 : 0xffff);
            IwarpConnection.writeContext(qp, t, passive(0), 3);
            QpContext c = new QpContext().wrap(r.driver.store(), r.driver.offsetOf(qp.hostContextAddress()),
                    QpContext.SIZE);
            assertTrue(c.validate(true).accepted(), c.validate(true).describe());
            assertEquals(ipv4, c.ipv4());
            assertEquals(5, c.tcpState(), "IRDMA_TCP_STATE_ESTABLISHED");
            assertTrue(c.wscale());
            assertTrue(c.ignoreTcpOpt());
            assertTrue(c.ignoreTcpUnsOpt());
            assertTrue(c.dropOooSeg(), "iw_ooo is off: drop_ooo_seg");
            assertFalse(c.noNagle());
            assertEquals(0x40, c.ttl());
            assertEquals(0x20 | QpContext.ECN_CODE_PT_VAL, c.tos(), "TOS with ECT(0): the QP has ECN on");
            assertEquals(50000, c.srcPort());
            assertEquals(4791, c.dstPort());
            if (ipv4) {
                assertEquals((int) t.remoteLo(), c.destIp(3));
                assertEquals((int) t.localLo(), c.localIp(3));
                assertEquals(0, c.destIp(0));
                assertTrue(c.insertVlanTag());
                assertEquals(5 << 13 | 100, c.vlanTag(), "user priority << VLAN_PRIO_SHIFT | VID");
            } else {
                assertEquals((int) (t.remoteHi() >>> 32), c.destIp(0));
                assertEquals((int) t.remoteLo(), c.destIp(3));
                assertEquals((int) (t.localHi() >>> 32), c.localIp(0));
                assertFalse(c.insertVlanTag());
                assertEquals(0, c.vlanTag());
            }
            assertEquals(1460, c.sndMss());
            assertEquals(3, c.arpIdx());
            assertEquals(7, c.sndWscale());
            assertEquals(2, c.rcvWscale());
            assertEquals(1000, c.sndNxt());
            assertEquals(1000, c.sndMax());
            assertEquals(1000, c.sndUna());
            assertEquals(77_000, c.rcvNxt());
            assertEquals(64_000, c.sndWnd());
            assertEquals(0x3fffc, c.rcvWnd());
            assertEquals(2920, c.cwnd(), "2 * MSS");
            assertEquals(77_000, c.sndWl1(), "snd_wl1 = rcv_nxt");
            assertEquals(1000, c.sndWl2(), "snd_wl2 = loc_seq_num");
            assertEquals(6, c.rttVar());
            assertEquals(0x3fff_ffffL, c.ssThresh());
            assertEquals(8, c.rexmitThresh());
            assertEquals(64_000, c.maxSndWindow());
            // irdma_cm_init_tsa_conn: ORD / IRD negotiated, reads on, the PD
            assertEquals(8, c.ordSize());
            assertEquals(QpContext.encodeIrd(16), c.irdSizeCode());
            assertTrue(c.rdOk());
            assertEquals(qp.pd().id(), c.pdId());
            assertEquals(qp.sqWqeAddress(0), c.sqAddress(), "the queues unchanged");
            // the marker offsets irdma_sc_qp_setctx derives from the TCP sequence numbers without markers
            assertEquals(77_000 & 0x1ff, c.rcvMarkOffset());
            assertEquals(1000 & 0x1ff, c.sndMarkOffset());
        }
    }

    @Test
    void movingToRtsIssuesModifyQpWithTheTcpContextValid() {
        try (Rig r = new Rig()) {
            QueuePair qp = VerbsControlPathTest.qp(r);
            IwarpConnection.writeRtr(qp, Rdma0.WRITE);
            IwarpConnection.writeContext(qp, tcp(true, 0xffff), passive(0), 0);
            List<QpEvent> events = new ArrayList<>();
            IwarpConnection.moveToRts(qp, (q, e) -> events.add(e));
            CqpWqe w = r.device.last(CqpOpcode.MODIFY_QP).wqe();
            assertEquals(qp.id(), w.qpId());
            assertEquals(2, w.qpNextIwarpState(), "RTS");
            assertTrue(w.qpTcpContextValid());
            assertTrue(w.qpOrdValid());
            assertTrue(w.qpArpIndexValid());
            assertTrue(w.qpCqNumValid());
            assertFalse(w.qpResetConnection());
            assertEquals(qp.hostContextAddress(), w.qpHostContextAddress());
            assertEquals(IbQpState.RTS, qp.state());
            assertEquals(QueuePair.TCP_ESTABLISHED, qp.hwTcpState());
            assertEquals(0, r.device.sqDoorbells, "the device starts the connection WQEs itself at RTS");
            // the RTS AE reaches the connection, not before
            assertTrue(events.isEmpty());
            r.device.raiseAe(qp.id(), AeCode.LLP_CONNECTION_ESTABLISHED.code(), 0, 2, 5, 0);
            r.settle();
            assertEquals(List.of(QpEvent.ESTABLISHED), events);
            assertTrue(qp.rtsAeReceived());
            // a connected QP takes no second connection
            assertFalse(IwarpConnection.available(qp));
            assertThrows(VerbsException.class, () -> IwarpConnection.writeRtr(qp, Rdma0.READ));
        }
    }
}
