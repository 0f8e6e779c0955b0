package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.IwarpConnection;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.model.iwarp.DriverPair.Ae;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A hostile peer (a raw TCP connection writing FPDUs built with the fw.iwarp codecs) against one of B's QPs, while
 * a second QP of the same nodes (A to B) carries on. Each bad FPDU must give its AE (the code, the source irdma's
 * irdma_sc_get_next_aeqe needs to find the QP), the offending frame in Q2 where irdma_bld_terminate_hdr reads it
 * (IRDMA_AEQE_Q2DATA set), no byte outside a region (guard bytes around every buffer), the QP stopped, and the other
 * QP unaffected. B runs the real driver, which answers each error AE as irdma does (the Terminate built from Q2,
 * sent to the peer: TERMINATE_SENT follows the attack's AE).
 */
class HostilePeerTest {
    static final long MAC_C = 0x02_00_00_00_00_0cL;
    static final int IP_C = IpAddress.ipv4(192, 0, 2, 3);
    static final int ARP_C = 4;
    static final int GUARD = 0xee;

    private DriverPair pair;
    private DriverPair.Conn good;
    private RawPeer peer;
    private QueuePair victim;
    private CompletionQueue vcq;
    /** 3 pages: guard, the registered page (REMOTE_WRITE | REMOTE_READ | LOCAL_WRITE), guard. */
    private long area;
    private int stag;
    private int readOnlyStag;

    @BeforeEach
    void up() {
        pair = new DriverPair(32L << 20);
        good = pair.connect(false);
        pair.b.driver().cqp().manageArp(ARP_C, MAC_C, true);
        area = pair.b.alloc(3 * 4096);
        for (int i = 0; i < 3 * 4096; i++) {
            pair.b.store().writeByte(pair.b.off(area) + i, (byte) GUARD);
        }
        stag = register(area + 4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        readOnlyStag = register(area + 4096, Access.REMOTE_READ);
        vcq = pair.b.verbs.createCq(256);
        victim = pair.b.verbs.createQp(new DriverPair.Options().init(pair.b, vcq));
        DriverPair.steerToIlq(pair.b, 21000, IP_C, 41000);
        MpaOutcome mpa = new MpaOutcome(1, 8, 8, Rdma0.WRITE, true, null);
        IwarpConnection.writeRtr(victim, Rdma0.WRITE);
        IwarpConnection.writeContext(victim, DriverPair.tcp(pair.b, 21000, IP_C, MAC_C, 41000, 7000, 9000), mpa,
                ARP_C);
        IwarpConnection.moveToRts(victim, (q, e) -> { });
        TcpConnectionParams p = TcpConnectionParams.ipv4(MAC_C, DriverPair.MAC_B, IP_C, 41000, DriverPair.IP_B, 21000,
                9000, 7000, 1460).toBuilder().window(256 * 1024, 7, 7).build();
        peer = new RawPeer(pair.scheduler, pair.link, p, true);
        List<Ae> est = new ArrayList<>();
        pair.runUntil(() -> {
            est.addAll(pair.b.pollAes());
            return est.stream().anyMatch(e -> e.qpId() == victim.id()
                    && e.code() == AeCode.LLP_CONNECTION_ESTABLISHED.code());
        }, 1_000_000_000L);
        // The peer got the RTR: one zero-length RDMA Write.
        assertEquals(1, peer.fpdus().size());
        assertEquals(RdmapOpcode.CODE_RDMA_WRITE, RawPeer.rdmapOpcode(peer.fpdus().get(0)));
    }

    @AfterEach
    void down() {
        peer.close();
        pair.close();
    }

    /** verbs.c irdma_reg_user_mr of the one page at {@code gpa}: its STag. */
    private int register(long gpa, int access) {
        return pair.b.verbs.registerBuffer(pair.b.pd, gpa, 4096, access).lkey();
    }

    /** Posts a receive of 1024 bytes at the registered page + 512 into the victim's RQ. */
    private void postVictimRecv() {
        pair.b.postRecv(victim, area + 4096 + 512, 1024, stag);
    }

    /** The attack's AE: the victim's first; what follows is the driver's Terminate going out (TERMINATE_SENT). */
    private Ae victimAe() {
        pair.run(20_000_000L);
        List<Ae> aes = new ArrayList<>(pair.b.pollAes());
        aes.removeIf(e -> e.qpId() != victim.id());
        assertFalse(aes.isEmpty(), "an AE for the victim");
        assertTrue(aes.subList(1, aes.size()).stream().allMatch(e -> e.code() == AeCode.TERMINATE_SENT.code()),
                () -> "the attack's AE, then only the driver's Terminate: " + aes);
        return aes.get(0);
    }

    private byte[] area() {
        byte[] b = new byte[3 * 4096];
        pair.b.store().read(pair.b.off(area), b, 0, b.length);
        return b;
    }

    private void assertGuardsIntact(byte[] a) {
        for (int i = 0; i < 4096; i++) {
            assertEquals((byte) GUARD, a[i], "guard before the region at " + i);
            assertEquals((byte) GUARD, a[2 * 4096 + i], "guard after the region at " + i);
        }
    }

    /** What irdma_bld_terminate_hdr reads back from Q2: the MPA length and the DDP / RDMAP control bytes. */
    private void assertQ2Holds(int sentLength) {
        long q2 = pair.b.off(victim.q2Address());
        long frame = q2 + 72;
        int mpa = new Q2Buffer().wrap(pair.b.store(), q2).locateMpa() - Q2Buffer.BAD_FRAME_OFFSET;
        assertEquals(54, mpa, "Ethernet 14 + IPv4 20 + TCP 20");
        int n = Math.min(sentLength, 256 - 72 - mpa);
        for (int i = 0; i < n; i++) {
            assertEquals(peer.out.readByte(i), pair.b.store().readByte(frame + mpa + i), "Q2 byte " + i);
        }
        assertEquals(0x0800, NetworkOrder.u16(pair.b.store(), frame + 12), "IPv4 EtherType, no VLAN tag");
        assertEquals(41000, NetworkOrder.u16(pair.b.store(), frame + 34), "the peer's port as source");
    }

    private void assertOtherQpWorks() {
        Buffer r = pair.b.buffer(64, Access.LOCAL_WRITE);
        Buffer s = pair.a.buffer(64, Access.LOCAL_WRITE);
        pair.a.fill(s.gpa(), 64, 99);
        pair.b.postRecv(good.passive, r.gpa(), 64, r.stag());
        pair.a.post(good.active, pair.a.wr().opcode(WrOpcode.SEND).sge(s.gpa(), 64, s.stag()));
        DriverPair.Completion[] got = new DriverPair.Completion[1];
        pair.runUntil(() -> (got[0] = pair.b.poll(good.bCq)) != null, 200_000_000L);
        assertFalse(got[0].error());
        byte[] x = new byte[64];
        byte[] y = new byte[64];
        pair.a.store().read(pair.a.off(s.gpa()), x, 0, 64);
        pair.b.store().read(pair.b.off(r.gpa()), y, 0, 64);
        assertArrayEquals(x, y);
        assertFalse(pair.b.engine(good.passive).halted());
    }

    /** One hostile FPDU (or a few) and what the E810 must answer. */
    interface Attack {
        int send(HostilePeerTest t);
    }

    record Case(Attack attack, AeCode ae, int source) {
    }

    static byte[] data(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) 0x42);
        return b;
    }

    static Stream<Arguments> attacks() {
        return Stream.of(
            // The STag checks in the order of the E810's AE list (MemoryRegionTable): a free index, a key or driver
            // key bits that differ, an STag allocated but not valid. irdma turns each into RFC 5040 / 5041's "Invalid
            // STag" (irdma_bld_terminate_hdr). (An index past the committed MR count cannot be named here: the real
            // driver commits a power of two of MRs, so every masked index is in range; mr.AccessFaultTest has it.)
            Arguments.of(named("RDMA Write with the region's index and other driver key bits", new Case(t -> {
                int other = t.stag ^ 1 << 8 + t.pair.b.dev().stags().indexBits();
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, other, t.area + 4096, data(100));
                t.peer.send(n);
                return n;
            }, AeCode.AMP_BAD_STAG_KEY, AeSource.IN_RR_WR))),
            Arguments.of(named("RDMA Write to an STag index nothing is allocated at", new Case(t -> {
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, 200 << 8 | 0x5a, t.area + 4096, data(100));
                t.peer.send(n);
                return n;
            }, AeCode.AMP_UNALLOCATED_STAG, AeSource.IN_RR_WR))),
            Arguments.of(named("RDMA Write with the region's index and another key", new Case(t -> {
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, t.stag ^ 0x01, t.area + 4096, data(100));
                t.peer.send(n);
                return n;
            }, AeCode.AMP_BAD_STAG_KEY, AeSource.IN_RR_WR))),
            Arguments.of(named("RDMA Write to an STag allocated but never registered", new Case(t -> {
                int unregistered = t.pair.b.verbs.allocateFastRegister(t.pair.b.pd, 1, 0).lkey();
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, unregistered, t.area + 4096, data(100));
                t.peer.send(n);
                return n;
            }, AeCode.AMP_INVALID_STAG, AeSource.IN_RR_WR))),
            Arguments.of(named("RDMA Write running past the region", new Case(t -> {
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, t.stag, t.area + 4096 + 4000, data(200));
                t.peer.send(n);
                return n;
            }, AeCode.AMP_BOUNDS_VIOLATION, AeSource.IN_RR_WR))),
            Arguments.of(named("RDMA Write to a region without REMOTE_WRITE", new Case(t -> {
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, t.readOnlyStag, t.area + 4096, data(64));
                t.peer.send(n);
                return n;
            }, AeCode.AMP_RIGHTS_VIOLATION, AeSource.IN_RR_WR))),
            Arguments.of(named("Send on queue 1", new Case(t -> {
                t.postVictimRecv();
                int n = t.peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 1, 1, 0, data(32));
                t.peer.send(n);
                return n;
            }, AeCode.DDP_UBE_INVALID_QN, AeSource.RSVD))),
            Arguments.of(named("Send with an MSN out of the window", new Case(t -> {
                t.postVictimRecv();
                int n = t.peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 0, 5, 0, data(32));
                t.peer.send(n);
                return n;
            }, AeCode.DDP_INVALID_MSN_GAP_IN_MSN, AeSource.RQ))),
            Arguments.of(named("Send with MO past the receive buffer", new Case(t -> {
                t.postVictimRecv();
                int n = t.peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 0, 1, 2000, data(16));
                t.peer.send(n);
                return n;
            }, AeCode.DDP_UBE_INVALID_MO, AeSource.RQ))),
            Arguments.of(named("Send longer than the receive buffer", new Case(t -> {
                t.postVictimRecv();
                int n = t.peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 0, 1, 1000, data(100));
                t.peer.send(n);
                return n;
            }, AeCode.DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER, AeSource.RQ))),
            Arguments.of(named("Send with no RQ WQE posted", new Case(t -> {
                int n = t.peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, data(16));
                t.peer.send(n);
                return n;
            }, AeCode.DDP_UBE_INVALID_MSN_NO_BUFFER_AVAILABLE, AeSource.RQ))),
            Arguments.of(named("the next Send while the last one lacks its L segment", new Case(t -> {
                t.postVictimRecv();
                t.postVictimRecv();
                int n = t.peer.untagged(RdmapOpcode.CODE_SEND, false, 0, 0, 1, 0, data(16));
                t.peer.send(n);
                n = t.peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 0, 2, 0, data(16));
                t.peer.send(n);
                return n;
            }, AeCode.DDP_NO_L_BIT, AeSource.RQ))),
            Arguments.of(named("Read Requests beyond the IRD", new Case(t -> {
                // IRD 8 gives 16 hardware entries (irdma_sc_get_encoded_ird_size); 1 MiB reads keep them busy.
                int n = 0;
                for (int i = 1; i <= 17; i++) {
                    n = t.peer.readRequest(i, 0x1234_00, 0, 4096, t.stag, t.area + 4096);
                    t.peer.send(n);
                }
                return n;
            }, AeCode.DDP_INVALID_MSN_GAP_IN_MSN, AeSource.OUT_RR))),
            Arguments.of(named("Read Request from a region without REMOTE_READ", new Case(t -> {
                int wo = t.register(t.area + 4096, Access.REMOTE_WRITE);
                int n = t.peer.readRequest(1, 0x1234_00, 0, 64, wo, t.area + 4096);
                t.peer.send(n);
                return n;
            }, AeCode.AMP_RIGHTS_VIOLATION, AeSource.OUT_RR))),
            Arguments.of(named("DDP version 2", new Case(t -> {
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, t.stag, t.area + 4096, data(8));
                t.peer.mutateControl(0, DdpHeader.FLAG_TAGGED | DdpHeader.FLAG_LAST | 2, n);
                t.peer.send(n);
                return n;
            }, AeCode.DDP_UBE_INVALID_DDP_VERSION, AeSource.RSVD))),
            Arguments.of(named("RDMAP version 0", new Case(t -> {
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, t.stag, t.area + 4096, data(8));
                t.peer.mutateControl(1, RdmapOpcode.CODE_RDMA_WRITE, n);
                t.peer.send(n);
                return n;
            }, AeCode.RDMAP_ROE_INVALID_RDMAP_VERSION, AeSource.RSVD))),
            Arguments.of(named("an opcode RFC 5040 does not define", new Case(t -> {
                int n = t.peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, data(8));
                t.peer.mutateControl(1, DdpHeader.rdmapControlByte(9), n);
                t.peer.send(n);
                return n;
            }, AeCode.RDMAP_ROE_UNEXPECTED_OPCODE, AeSource.RSVD))),
            Arguments.of(named("a Read Response nobody asked for", new Case(t -> {
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_READ_RESPONSE, true, t.stag, t.area + 4096, data(8));
                t.peer.send(n);
                return n;
            }, AeCode.RDMAP_ROE_UNEXPECTED_OPCODE, AeSource.IN_RR_WR))),
            Arguments.of(named("an FPDU whose CRC does not match", new Case(t -> {
                t.postVictimRecv();
                int n = t.peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, data(64));
                t.peer.out.writeByte(n - 1, (byte) (t.peer.out.readByte(n - 1) ^ 0x10));
                t.peer.send(n);
                return n;
            }, AeCode.LLP_RECEIVED_MPA_CRC_ERROR, AeSource.RSVD))),
            Arguments.of(named("an FPDU too short for a DDP header", new Case(t -> {
                int n = t.peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, t.stag, t.area + 4096, data(0));
                // ULPDU_Length 8: less than the 14-byte tagged header (FPDU 2 + 8 + pad 2 + CRC 4 = 16).
                t.peer.out.writeByte(1, (byte) 8);
                t.peer.recrc(16);
                t.peer.send(16);
                return 16;
            }, AeCode.LLP_SEGMENT_TOO_SMALL, AeSource.RSVD))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attacks")
    void eachBadFpduGivesItsAeAndQ2AndPlacesNothingAndTheOtherQpCarriesOn(Case c) {
        byte[] before = area();
        int sent = c.attack().send(this);
        Ae ae = victimAe();
        assertEquals(c.ae().code(), ae.code(), () -> "got " + AeCode.of(ae.code()));
        assertEquals(c.source(), ae.source());
        assertEquals(new QpContext().wrap(pair.b.store(), pair.b.off(victim.hostContextAddress()), QpContext.SIZE)
                .qpComplCtx(), ae.context());
        assertEquals(QpState.RTS.code(), ae.iwarpState(), "still RTS: irdma terminates the connection");
        assertEquals(1, ae.q2Data(), "the offending frame is in Q2");
        assertQ2Holds(sent);
        byte[] after = area();
        assertGuardsIntact(after);
        if (c.ae() == AeCode.DDP_NO_L_BIT) {
            // The first message's segment was good and placed; the second message's was not.
            for (int i = 0; i < after.length; i++) {
                boolean first = i >= 4096 + 512 && i < 4096 + 512 + 16;
                assertEquals(first ? (byte) 0x42 : before[i], after[i], "byte " + i);
            }
        } else {
            assertArrayEquals(before, after, "nothing placed");
        }
        assertTrue(pair.b.engine(victim).halted());
        assertTrue(pair.b.pollAll(vcq).isEmpty(), "no completion for the bad message");
        // The stopped QP ignores what follows.
        int n = peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, stag, area + 4096, data(16));
        peer.send(n);
        pair.run(10_000_000L);
        assertArrayEquals(after, area());
        assertTrue(pair.b.engine(victim).stats().framesDroppedAfterError() >= 1);
        assertOtherQpWorks();
    }

    @Test
    void aGoodWriteAndReadFromThePeerWorkBeforeAnyAttack() {
        int n = peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, stag, area + 4096 + 10, data(50));
        peer.send(n);
        n = peer.readRequest(1, 0x4242_01, 0x9000, 60, stag, area + 4096);
        peer.send(n);
        pair.run(50_000_000L);
        assertTrue(pair.b.pollAes().stream().noneMatch(e -> e.qpId() == victim.id()));
        byte[] a = area();
        assertGuardsIntact(a);
        for (int i = 0; i < 50; i++) {
            assertEquals(0x42, a[4096 + 10 + i]);
        }
        List<byte[]> f = peer.fpdus();
        byte[] resp = f.get(f.size() - 1);
        assertEquals(RdmapOpcode.CODE_RDMA_READ_RESPONSE, RawPeer.rdmapOpcode(resp));
        assertEquals(0x4242_01, NetworkOrder.i32(net.openhft.chronicle.bytes.BytesStore.wrap(resp), 2 + 2));
        assertEquals(Fpdu.totalLengthFor(DdpHeader.TAGGED_LENGTH + 60), resp.length);
    }

    @ParameterizedTest(name = "Terminate received in {0}")
    @MethodSource("terminateStates")
    void aTerminateIsCopiedToQ2AndRaisedInEveryStateThatStillReceives(QpState state) {
        if (state == QpState.CLOSING) {
            victim.modify(IbQpState.SQD);
        } else if (state == QpState.TERMINATE) {
            // neither Terminate nor FIN: just the state (irdma always asks for one; behind the verbs' back)
            assertFalse(pair.b.rawModifyQp(victim, QpState.TERMINATE.code(), false, 3).error());
        } else if (state == QpState.ERROR) {
            // without a reset, so the peer can still send (irdma resets a connected QP: behind the verbs' back)
            assertFalse(pair.b.rawModifyQp(victim, QpState.ERROR.code(), false).error());
        }
        pair.run(1_000_000L);
        pair.b.pollAes();
        byte[] term = {0x02, 0x02, (byte) 0x80, 0, 0, 10};
        int n = peer.untagged(RdmapOpcode.CODE_TERMINATE, true, 0, RdmapOpcode.QN_TERMINATE, 1, 0, term);
        peer.send(n);
        pair.run(20_000_000L);
        List<Ae> aes = new ArrayList<>(pair.b.pollAes());
        aes.removeIf(e -> e.qpId() != victim.id());
        if (state == QpState.ERROR) {
            assertTrue(aes.isEmpty(), "a QP in ERROR receives nothing");
            return;
        }
        // the Terminate's AE, then what B's driver does about it (irdma_terminate_received: ERROR with the reset)
        assertFalse(aes.isEmpty());
        assertTrue(aes.subList(1, aes.size()).stream().allMatch(e -> e.iwarpState() == QpState.ERROR.code()),
                aes::toString);
        Ae ae = aes.get(0);
        assertEquals(AeCode.LLP_TERMINATE_RECEIVED.code(), ae.code());
        assertEquals(1, ae.q2Data());
        assertEquals(state == QpState.RTS ? QpState.TERMINATE.code() : state.code(), ae.iwarpState());
        // irdma_terminate_received: DDP control 0x41 (untagged, L, version 1), QN 2, MSN 1, MO 0, the header
        // at MPA + 20.
        long frame = pair.b.off(victim.q2Address()) + 72;
        long mpa = frame - 72 + new Q2Buffer().wrap(pair.b.store(), frame - 72).locateMpa();
        assertEquals(0x41, pair.b.store().readUnsignedByte(mpa + 2));
        assertEquals(0x47, pair.b.store().readUnsignedByte(mpa + 3));
        assertEquals(2, NetworkOrder.u32(pair.b.store(), mpa + 8));
        assertEquals(1, NetworkOrder.u32(pair.b.store(), mpa + 12));
        assertEquals(0, NetworkOrder.u32(pair.b.store(), mpa + 16));
        assertEquals(0x02, pair.b.store().readUnsignedByte(mpa + 20), "layer LLP, type MPA");
        assertEquals(0x02, pair.b.store().readUnsignedByte(mpa + 21), "code: CRC error");
        assertOtherQpWorks();
    }

    static Stream<QpState> terminateStates() {
        return Stream.of(QpState.RTS, QpState.CLOSING, QpState.TERMINATE, QpState.ERROR);
    }

    @Test
    void aDataFpduAfterATerminateIsNotPlaced() {
        byte[] term = {0x00, 0x00, 0, 0};
        int n = peer.untagged(RdmapOpcode.CODE_TERMINATE, true, 0, RdmapOpcode.QN_TERMINATE, 1, 0, term);
        peer.send(n);
        pair.run(10_000_000L);
        assertEquals(QpState.TERMINATE, pair.b.dev().qps().get(victim.id()).state());
        byte[] before = area();
        n = peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, stag, area + 4096, data(64));
        peer.send(n);
        pair.run(10_000_000L);
        assertArrayEquals(before, area());
        assertNotNull(pair.b.engine(victim));
    }
}
