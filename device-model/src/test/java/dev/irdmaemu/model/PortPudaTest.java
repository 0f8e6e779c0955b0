package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.PudaLayout;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.puda.PudaQueues;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The receive classifier (established entry, listen entry, APBVT, LAN), the ILQ / IEQ receive path with the CQE
 * and buffer layout irdma_puda_poll_info and irdma_puda_get_tcpip_info (utils.c) read, drops, AEs, and the ILQ
 * send path, on a model the real driver brought up: its ILQ and IEQ (64 buffers of 2 KiB each, reposted by its
 * interrupt handler), the CM's listen on 20000. The CQEs and buffers are read past the driver ({@link PudaRings});
 * what irdma never posts (a buffer shorter than a frame, a send WQE with a stray bit) is written past it.
 */
class PortPudaTest {
    static final int LOCAL = BringUpTest.LOCAL;
    static final int REMOTE = BringUpTest.REMOTE;
    static final long V6_LOCAL_HI = 0x2001_0db8_0000_0000L;
    static final long V6_LOCAL_LO = 1;
    static final long V6_REMOTE_HI = 0x2001_0db8_0000_0000L;
    static final long V6_REMOTE_LO = 2;

    private final DriverNode d = BringUpTest.listening().recordInterrupts();
    private final CqpOps ops = new CqpOps(d);
    private final PudaRings ilq = PudaRings.ilq(d);
    private final PudaRings ieq = PudaRings.ieq(d);
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(4096);
    private final BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final TcpPacketBuilder b = new TcpPacketBuilder();
    private final List<Integer> lan = new ArrayList<>();
    @BeforeEach
    void up() {
        d.dev.port().setLanSink((s, o, l) -> lan.add(l));
        for (int i = 0; i < 2048; i++) {
            payload.writeByte(i, (byte) (i * 7));
        }
    }

    @AfterEach
    void close() {
        frame.releaseLast();
        payload.releaseLast();
        d.close();
    }

    private int v4(int srcPort, int dstPort, int flags, long seq, int dataLen, int vlan) {
        b.reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE);
        if (vlan >= 0) {
            b.vlan(3, false, vlan);
        }
        b.ipv4(REMOTE, LOCAL);
        b.tcp().ports(srcPort, dstPort).sequenceNumber(seq).acknowledgmentNumber(77).flags(flags).window(29200);
        if ((flags & TcpHeader.SYN) != 0) {
            b.tcp().mss(1460).windowScale(7);
        }
        return b.build(frame, 0, payload, 0, dataLen);
    }

    private void deliver(int len) {
        d.dev.port().receive(frame, 0, len);
        d.run();
    }

    /** What irdma_puda_get_tcpip_info derives from the CQE and the buffer, checked against the sent frame. */
    private void assertPudaView(Cqe cqe, long buf, boolean ipv4, int srcPort, int dstPort, long seq, int dataLen) {
        assertFalse(cqe.error());
        assertEquals(Cqe.QTYPE_RQ, cqe.queueType());
        assertEquals(ipv4, cqe.ipv4());
        long pktLen = cqe.payloadLength();
        long mem = d.off(buf);
        int tcph = PudaLayout.tcpHeaderLength(d.store(), mem);
        long tcp = mem + PudaLayout.TCP_OFFSET;
        assertEquals(srcPort, NetworkOrder.u16(d.store(), tcp));
        assertEquals(dstPort, NetworkOrder.u16(d.store(), tcp + 2));
        assertEquals(seq, NetworkOrder.u32(d.store(), tcp + 4));
        assertEquals(dataLen, pktLen - PudaLayout.TCP_OFFSET - tcph);
        if (ipv4) {
            assertEquals(0x45, d.store().readUnsignedByte(mem + PudaLayout.IPV4_PAD));
        } else {
            assertEquals(6, d.store().readUnsignedByte(mem) >>> 4);
        }
        for (int i = 0; i < dataLen; i++) {
            assertEquals((byte) (i * 7), d.store().readByte(tcp + tcph + i), "data byte " + i);
        }
    }

    /** An untagged IPv4 quad-hash op of the CM through the driver (cm.c irdma_manage_qhash), answered. */
    private DriverNode.Completion qhashV4(boolean add, int localPort, int remote, int remotePort, int vlan, int qpn) {
        return d.answer(() -> d.driver.cqp().manageQhash(add, true, new int[] {LOCAL}, localPort, new int[] {remote},
                remotePort, remote != 0, vlan, d.driver.macAddress(), qpn));
    }

    /** IPv6 address words, most significant first (cm.c order). */
    private static int[] words(long hi, long lo) {
        return new int[] {(int) (hi >>> 32), (int) hi, (int) (lo >>> 32), (int) lo};
    }

    /** The TCP segment of the untagged IPv4 frame of {@code len} bytes, copied into fresh host memory. */
    private long segmentOf(int len) {
        long buf = d.alloc(2048);
        int at = EthernetFrame.HEADER_LENGTH + Ipv4Header.MIN_HEADER_LENGTH;
        d.store().write(d.off(buf), frame, at, len - at);
        return buf;
    }

    @Test
    void synToTheListenerIsPlacedAsPudaGetTcpipInfoReadsIt() {
        int len = v4(40000, 20000, TcpHeader.SYN, 0x8000_0001L, 0, -1);
        deliver(len);
        Cqe cqe = ilq.poll();
        assertNotNull(cqe);
        assertEquals(QueuePair.ILQ_QP_ID, cqe.qpId());
        assertEquals(0, cqe.wqeIndex());
        assertTrue(cqe.extended());
        assertPudaView(cqe, ilq.rxBuffer(0), true, 40000, 20000, 0x8000_0001L, 0);
        CqeExtension ext = ilq.extensionOf(cqe);
        assertFalse(ext.vlanValid());
        assertTrue(ext.sourceMacValid());
        assertEquals(BringUpTest.MAC_REMOTE, ext.sourceMac());
        assertEquals("QP_LISTEN", d.sink.of(TraceKind.CLASSIFY).get(0).get("route"));
        assertEquals(1, d.sink.of(TraceKind.PUDA_RX).size());
    }

    @Test
    void establishedEntryWinsOverListenAndCarriesData() {
        assertFalse(qhashV4(true, 20000, REMOTE, 40001, -1, 1).error());
        int len = v4(40001, 20000, TcpHeader.ACK | TcpHeader.PSH, 1000, 300, -1);
        deliver(len);
        Cqe cqe = ilq.poll();
        assertPudaView(cqe, ilq.rxBuffer(0), true, 40001, 20000, 1000, 300);
        assertEquals("QP_ESTABLISHED", d.sink.of(TraceKind.CLASSIFY).get(0).get("route"));
        // Deleting it falls back to the listen entry.
        assertFalse(qhashV4(false, 20000, REMOTE, 40001, -1, 1).error());
        deliver(len);
        assertEquals("QP_LISTEN", d.sink.of(TraceKind.CLASSIFY).get(1).get("route"));
        // Deleting what is not there is an error completion.
        assertTrue(qhashV4(false, 20000, REMOTE, 40001, -1, 1).error());
    }

    @Test
    void vlanTaggedFramesMatchVlanEntriesAndReportTheTci() {
        assertFalse(qhashV4(true, 21000, 0, 0, 100, 1).error());
        int len = v4(40000, 21000, TcpHeader.SYN, 5, 0, 100);
        deliver(len);
        Cqe cqe = ilq.poll();
        assertNotNull(cqe);
        CqeExtension ext = ilq.extensionOf(cqe);
        assertTrue(ext.vlanValid());
        assertEquals(3 << 13 | 100, ext.vlan());
        // The same port untagged matches neither the VLAN entry nor the APBVT: LAN.
        len = v4(40000, 21000, TcpHeader.SYN, 5, 0, -1);
        deliver(len);
        assertEquals(1, lan.size());
    }

    @Test
    void ipv6ListenPlacesTheIpv6HeaderAtZero() {
        d.driver.cqp().manageQhash(true, false, words(V6_LOCAL_HI, V6_LOCAL_LO), 20000, new int[4], 0, false, -1,
                d.driver.macAddress(), IrdmaDriver.ILQ_QP);
        b.reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv6(V6_REMOTE_HI, V6_REMOTE_LO, V6_LOCAL_HI, V6_LOCAL_LO);
        b.tcp().ports(40000, 20000).sequenceNumber(9).flags(TcpHeader.ACK).window(100);
        int len = b.build(frame, 0, payload, 0, 100);
        deliver(len);
        Cqe cqe = ilq.poll();
        assertNotNull(cqe);
        assertPudaView(cqe, ilq.rxBuffer(0), false, 40000, 20000, 9, 100);
    }

    @Test
    void framesForNoRdmaPortGoToTheLan() {
        deliver(v4(40000, 22, TcpHeader.SYN, 1, 0, -1));
        // Not TCP/IP at all: an ARP frame.
        int n = EthernetFrame.write(frame, 0, -1L & 0xffff_ffff_ffffL, BringUpTest.MAC_REMOTE,
                EthernetFrame.ETHERTYPE_ARP);
        deliver(n + 28);
        assertEquals(2, lan.size());
        assertEquals(2, d.dev.port().rxLan());
        assertEquals(2, d.sink.of(TraceKind.LAN).size());
        assertNull(ilq.poll());
    }

    @Test
    void quadHashToANonExistentQpRaisesAmpBadQp() {
        assertFalse(qhashV4(true, 20000, REMOTE, 40002, -1, 20).error());
        deliver(v4(40002, 20000, TcpHeader.ACK, 1, 10, -1));
        Aeqe ae = lastAe();
        assertTrue(ae.valid());
        assertEquals(AeCode.AMP_BAD_QP.code(), ae.aeCode());
        assertEquals(20, ae.qpCqId());
        assertEquals(1, d.dev.port().rxBadQp());
        assertTrue(d.interrupts.contains(0));
        // A qhash entry naming a QP beyond the committed count is refused up front.
        int beyond = (int) d.driver.hmc().committedCount(HmcObjectType.QP);
        assertTrue(qhashV4(true, 20000, REMOTE, 40003, -1, beyond).error());
        // The ILQ still serves.
        deliver(v4(40009, 20000, TcpHeader.SYN, 1, 0, -1));
        assertNotNull(ilq.poll());
    }

    /** The AEQE the device wrote last (the driver's AEQ has not wrapped in these tests). */
    private Aeqe lastAe() {
        return aeAt(d.dev.aeq().posted() - 1);
    }

    private Aeqe aeAt(long index) {
        return new Aeqe().wrap(d.store(), d.off(d.dev.aeq().ringAddress() + index * Aeqe.SIZE), Aeqe.SIZE);
    }

    /** Puts one FPDU of {@code total} bytes (a multiple of 4) at the start of the payload: length, ULPDU, CRC. */
    private void fpdu(int total, int ulpduLength) {
        payload.writeByte(0, (byte) (ulpduLength >>> 8));
        payload.writeByte(1, (byte) ulpduLength);
        assertEquals(0, total % 4);
    }

    @Test
    void segmentsOfAnOffloadedConnectionGoToItsQpsEngineAndOutOfOrderOrPartialOnesAreCountedNotCopiedToTheIeq() {
        assertFalse(ops.createCq(10, 16, 0, true).error());
        CqpOps.Conn conn = new CqpOps.Conn(LOCAL, 20000, REMOTE, 40005, 100, 5000, -1);
        assertFalse(ops.createQp(10, 1, 1, false, ctx -> ops.writeIwarpContext(ctx, 10, 10, conn)).error());
        long ctx = d.alloc(256);
        ops.writeIwarpContext(ctx, 10, 10, conn);
        // The CM's entry steers the four-tuple to the ILQ until RTS (cm.c irdma_connect).
        assertFalse(qhashV4(true, 20000, REMOTE, 40005, -1, 1).error());
        fpdu(52, 46);
        deliver(v4(40005, 20000, TcpHeader.ACK, 5000, 52, -1));
        assertNotNull(ilq.poll(), "before RTS the connection's segments reach the ILQ");
        assertEquals(0, d.dev.port().rxQp());
        // The context's ARP index 0 names the peer's MAC (Manage ARP entry); RTS starts the QP's engine and takes
        // the four-tuple over with no qhash op from the driver.
        d.driver.cqp().manageArp(0, BringUpTest.MAC_REMOTE, true);
        assertFalse(ops.modifyQp(10, 1, QpState.RTS.code(), true, ctx).error());
        QueuePair qp = d.dev.qps().get(10);
        assertNotNull(d.dev.iwarp().engine(10));
        // In order, half an FPDU (ULPDU length 100 in a 40-byte segment): the engine keeps it for the rest and
        // counts it as an IEQ exception (the E810 hands such segments to the IEQ, puda.c).
        fpdu(40, 100);
        d.dev.port().receive(frame, 0, v4(40005, 20000, TcpHeader.ACK, 5000, 40, -1));
        d.scheduler.runFor(1_000_000);
        assertEquals(1, qp.steering().frames());
        assertEquals(40, qp.steering().bytes());
        assertEquals(5040, d.dev.iwarp().engine(10).tcp().rcvNxt());
        assertEquals(1, d.dev.iwarp().ieqPartial());
        // A segment from the future: TCP reassembles it and counts it.
        fpdu(40, 100);
        d.dev.port().receive(frame, 0, v4(40005, 20000, TcpHeader.ACK, 9000, 40, -1));
        d.scheduler.runFor(1_000_000);
        assertEquals(1, d.dev.iwarp().ieqOutOfOrder());
        assertEquals(2, d.dev.port().rxIeq());
        // The IEQ contract (model.puda): no copy reaches the IEQ, the QP's TCP is the one truth.
        assertNull(ieq.poll());
        assertEquals(0, d.sink.of(TraceKind.PUDA_RX).stream().filter(e -> "IEQ".equals(e.get("queue"))).count());
        assertNull(ilq.poll(), "after RTS nothing of the four-tuple reaches the ILQ");
        // Other connections on the port still reach the ILQ.
        d.dev.port().receive(frame, 0, v4(40006, 20000, TcpHeader.SYN, 1, 0, -1));
        d.scheduler.runFor(1_000_000);
        assertNotNull(ilq.poll());
    }

    /** QP {@code id} on CQ {@code id}, offloaded in RTS for {@code conn} with {@code ieqQp} as its IEQ. */
    private void offloadedQp(int id, CqpOps.Conn conn, int ieqQp) {
        assertFalse(ops.createCq(id, 16, 0, true).error());
        assertFalse(ops.createQp(id, 1, 1, false, ctx -> ops.writeIwarpContext(ctx, id, id, conn, ieqQp)).error());
        long ctx = d.alloc(256);
        ops.writeIwarpContext(ctx, id, id, conn, ieqQp);
        d.driver.cqp().manageArp(0, BringUpTest.MAC_REMOTE, true);
        assertFalse(ops.modifyQp(id, 1, QpState.RTS.code(), true, ctx).error());
        assertNotNull(d.dev.iwarp().engine(id));
    }

    @Test
    void exceptionSegmentsAreReassembledByTheQpWhateverItsContextNamesAsIeq() {
        // QP 10 names QP 7 as its exception LAN queue: there is no IEQ there, and none is needed.
        offloadedQp(10, new CqpOps.Conn(LOCAL, 20000, REMOTE, 40005, 100, 5000, -1), 7);
        fpdu(40, 100);
        d.dev.port().receive(frame, 0, v4(40005, 20000, TcpHeader.ACK, 5040, 40, -1));
        d.scheduler.runFor(1_000_000);
        assertEquals(1, d.dev.iwarp().ieqOutOfOrder());
        // The gap filled, the QP has both segments in order (80 bytes of a 108-byte FPDU).
        d.dev.port().receive(frame, 0, v4(40005, 20000, TcpHeader.ACK, 5000, 40, -1));
        d.scheduler.runFor(1_000_000);
        assertEquals(5080, d.dev.iwarp().engine(10).tcp().rcvNxt());
        assertEquals(2, d.dev.iwarp().ieqPartial());

        // QP 11 names the IEQ: more out-of-order segments than the IEQ has buffers leave them as the driver posted
        // them.
        offloadedQp(11, new CqpOps.Conn(LOCAL, 20000, REMOTE, 40006, 100, 5000, -1), IrdmaDriver.IEQ_QP);
        long before = d.dev.puda().totalDrops();
        int segments = IrdmaDriver.PUDA_RQ + 1;
        for (int i = 1; i <= segments; i++) {
            d.dev.port().receive(frame, 0, v4(40006, 20000, TcpHeader.ACK, 5000 + 80L * i, 40, -1));
        }
        d.scheduler.runFor(1_000_000);
        assertEquals(before, d.dev.puda().totalDrops());
        assertNull(ieq.poll());
        assertEquals(5000, d.dev.iwarp().engine(11).tcp().rcvNxt());
        assertEquals(1 + segments, d.dev.iwarp().ieqOutOfOrder());
        assertEquals(0, d.driver.puda().ieqReceived(), "nothing reached the driver's IEQ either");
        // The ILQ still takes what is meant for it.
        d.dev.port().receive(frame, 0, v4(40010, 20000, TcpHeader.SYN, 1, 0, -1));
        d.scheduler.runFor(1_000_000);
        assertNotNull(ilq.poll());
    }

    @Test
    void finAndRstOnAnOffloadedConnectionRaiseLlpAes() {
        assertFalse(ops.createCq(10, 16, 0, true).error());
        CqpOps.Conn conn = new CqpOps.Conn(LOCAL, 20000, REMOTE, 40007, 100, 700, -1);
        long ctx = d.alloc(256);
        ops.writeIwarpContext(ctx, 10, 10, conn);
        d.driver.cqp().manageArp(0, BringUpTest.MAC_REMOTE, true);
        assertFalse(ops.createQp(11, 1, 1, false, c -> ops.writeIwarpContext(c, 10, 10, conn)).error());
        assertFalse(ops.modifyQp(11, 1, QpState.RTS.code(), true, ctx).error());
        // RTS installed the QP's established entry itself: the driver's add finds it there.
        assertTrue(qhashV4(true, 20000, REMOTE, 40007, -1, 11).error());
        long firstAe = d.dev.aeq().posted();
        d.dev.port().receive(frame, 0, v4(40007, 20000, TcpHeader.ACK | TcpHeader.FIN, 700, 0, -1));
        d.scheduler.runFor(1_000_000);
        // RFC 5961 §3.2: an RST is taken only at exactly RCV.NXT, which the FIN moved to 701.
        d.dev.port().receive(frame, 0, v4(40007, 20000, TcpHeader.RST, 701, 0, -1));
        d.scheduler.runFor(1_000_000);
        Aeqe fin = aeAt(firstAe);
        Aeqe rst = aeAt(firstAe + 1);
        assertEquals(AeCode.LLP_FIN_RECEIVED.code(), fin.aeCode());
        assertEquals(6, fin.tcpState(), "IRDMA_TCP_STATE_CLOSE_WAIT");
        assertEquals(AeCode.LLP_CONNECTION_RESET.code(), rst.aeCode());
        assertEquals(11, rst.qpCqId());
        assertEquals(0xC0DE_0000L + 10, rst.completionContext());
        assertEquals(QpState.RTS.code(), rst.iwarpState());
        assertEquals(1, rst.tcpState(), "IRDMA_TCP_STATE_CLOSED");
        // Modify QP with "remove hash entry" drops the connection's steering entry.
        int before = d.dev.quadHash().establishedCount();
        ops.qpf.clear();
        ops.qpf.qpId = 11;
        ops.qpf.qpType = 1;
        ops.qpf.nextIwarpState = QpState.ERROR.code();
        ops.qpf.removeHashEntry = true;
        assertFalse(d.op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(d.store(), o, ops.qpf, v)).error());
        assertEquals(before - 1, d.dev.quadHash().establishedCount());
        assertFalse(ops.destroyQp(11, 1, false).error());
        assertEquals(0, d.dev.iwarp().liveEngines());
    }

    @Test
    void ilqWithoutPostedBuffersDropsAndCountsThenRecovers() {
        // A fresh node whose driver posted no ILQ buffers (IrdmaDriver.withoutIlqReceiveBuffers), listening.
        DriverNode e = BringUpTest.listen(new DriverNode(DriverNode.RAM_SIZE, new SimScheduler(7),
                dr -> dr.macAddress(DriverNode.DEFAULT_MAC).withoutIlqReceiveBuffers()));
        try {
            PudaRings empty = PudaRings.ilq(e);
            int len = v4(40000, 20000, TcpHeader.SYN, 1, 0, -1);
            e.dev.port().receive(frame, 0, len);
            e.run();
            assertEquals(1, e.dev.puda().drops(PudaQueues.Drop.NO_BUFFER));
            assertEquals(1, e.sink.of(TraceKind.PUDA_DROP).size());
            assertNull(empty.poll());
            // Post one buffer: the next frame lands in slot 0.
            empty.postReceive(0, e.alloc(512), 512, true);
            e.dev.port().receive(frame, 0, len);
            e.run();
            Cqe cqe = empty.poll();
            assertNotNull(cqe);
            assertEquals(0, cqe.wqeIndex());
        } finally {
            e.close();
        }
    }

    @Test
    void rqWrapsWithTheRepostedValidBit() {
        // 64 buffers posted at bring-up; more than two rounds of frames, each buffer reposted after use by the
        // driver's handler (puda.c irdma_puda_post_recvbuf); the CQ (256 slots, two per frame) wraps too.
        int rq = IrdmaDriver.PUDA_RQ;
        int frames = 2 * rq + 8;
        for (int i = 0; i < frames; i++) {
            deliver(v4(41000 + i, 20000, TcpHeader.SYN, i, 0, -1));
            Cqe cqe = ilq.poll();
            assertNotNull(cqe, "frame " + i);
            assertEquals(i % rq, cqe.wqeIndex());
            assertPudaView(cqe, ilq.rxBuffer(i % rq), true, 41000 + i, 20000, i, 0);
        }
        assertEquals(0, d.dev.puda().totalDrops());
        assertEquals(frames, d.driver.puda().ilqReceived());
    }

    @Test
    void receiveCostsItsLatencyAndTheFifoBoundsWhatWaits() {
        int len = v4(40000, 20000, TcpHeader.SYN, 1, 0, -1);
        long t0 = d.scheduler.now();
        d.dev.port().receive(frame, 0, len);
        assertNull(ilq.poll(), "nothing before the classification time");
        assertEquals(1, d.dev.port().rxQueued());
        d.scheduler.runFor(d.latency.rxFrameNanos(len) - 1);
        assertNull(ilq.poll());
        d.scheduler.runFor(1);
        assertNotNull(ilq.poll());
        assertEquals(t0 + d.latency.rxFrameNanos(len), d.scheduler.now());
        // 256 frames wait at most; the 257th and an oversized one are dropped and counted.
        for (int i = 0; i < 257; i++) {
            d.dev.port().receive(frame, 0, len);
        }
        d.dev.port().receive(frame, 0, 3000);
        assertEquals(2, d.dev.port().rxOverflow());
        d.run();
        assertEquals(d.dev.port().rxFrames(), d.dev.port().rxLan() + d.dev.port().rxPuda() + d.dev.port().rxQp()
                + d.dev.port().rxDropped());
    }

    @Test
    void aFrameLargerThanTheBufferIsDroppedNotTruncated() {
        // slot 0 reposted with 1 KiB of the driver's buffer (irdma posts whole PUDA buffers: this is past it)
        ilq.postReceive(0, ilq.rxBuffer(0), 1024, true);
        deliver(v4(40000, 20000, TcpHeader.ACK, 1, 1200, -1));
        assertEquals(1, d.dev.puda().drops(PudaQueues.Drop.TOO_LONG));
        assertNull(ilq.poll());
        // The buffer stays posted for the next frame.
        deliver(v4(40000, 20000, TcpHeader.ACK, 1, 100, -1));
        assertEquals(0, ilq.poll().wqeIndex());
    }

    /** The device's AH 0 for sends to the peer this test's frames come from (MAC_LOCAL / LOCAL), via ARP 0. */
    private int ah0() {
        d.driver.cqp().manageArp(0, BringUpTest.MAC_LOCAL, true);
        return d.driver.addressHandles().create(BringUpTest.MAC_REMOTE, 0, 0, false, 0, 64, true, false,
                new int[] {LOCAL}, new int[] {REMOTE});
    }

    /** puda.c irdma_puda_send through the driver: the segment of the frame in {@link #frame}. */
    private void ilqSend(int ah, int len, int tcpHeaderBytes) {
        int at = EthernetFrame.HEADER_LENGTH + Ipv4Header.MIN_HEADER_LENGTH;
        assertTrue(d.driver.puda().ilqSend(ah, frame, at, len - at, tcpHeaderBytes));
    }

    @Test
    void theSendCompletionWaitsForSerialisationAtTheLinkSpeed() {
        d.dev.port().setLinkSpeed(1_000_000_000L);
        int ah = ah0();
        int len = v4(20000, 40000, TcpHeader.ACK, 1, 1000, -1);
        long t0 = d.scheduler.now();
        ilqSend(ah, len, 20);
        // up to the send's CQE (the driver's handler runs after it)
        while (ilq.poll() == null) {
            assertTrue(d.scheduler.runNext(), "the send completes");
        }
        // doorbell + PUDA WQE fetch, then the frame's serialisation at 1 Gb/s (preamble, FCS and gap included)
        long expected = d.latency.mmioWriteNanos + d.latency.pudaWqeFetchNanos + d.latency.wireNanos(len);
        assertEquals(expected, d.scheduler.now() - t0);
        d.run();
        assertEquals(1, d.driver.puda().ilqSendsCompleted());
        assertEquals((len + 24L) * 8, d.latency.wireNanos(len));
    }

    @Test
    void ilqSendPutsTheDriversSegmentOnTheWireBehindTheAhsHeadersAndCompletes() {
        List<byte[]> wire = new ArrayList<>();
        d.dev.port().setTransmitter((s, o, l) -> {
            byte[] bytes = new byte[l];
            for (int i = 0; i < l; i++) {
                bytes[i] = s.readByte(o + i);
            }
            wire.add(bytes);
        });
        int ah = ah0();
        int len = v4(20000, 40000, TcpHeader.SYN | TcpHeader.ACK, 1, 0, -1);
        int idx = ilq.sendSlot();
        ilqSend(ah, len, 28);
        d.run();
        assertEquals(1, wire.size());
        // Ethernet, IP addresses, TTL 64, DF and the whole TCP segment are what a host stack would have sent; the
        // device numbers its IPv4 identification itself, so only that and the header checksum may differ.
        byte[] sent = wire.get(0);
        assertEquals(len, sent.length);
        for (int i = 0; i < len; i++) {
            if (i < 18 || i > 19 && i < 24 || i > 25) {
                assertEquals(frame.readByte(i), sent[i], "byte " + i);
            }
        }
        TcpPacket p = new TcpPacket().wrap(BytesStore.wrap(sent), 0, sent.length);
        assertEquals(TcpPacket.Status.ACCEPTED, p.validate(), "both checksums verify");
        assertTrue(p.ipv4().dontFragment());
        Cqe cqe = ilq.poll();
        assertNotNull(cqe);
        assertTrue(cqe.sq());
        assertFalse(cqe.error());
        assertEquals(idx, cqe.wqeIndex());
        assertEquals(1, cqe.qpId());
        assertEquals(1, d.dev.port().txFrames());
        // A send whose buffer is outside memory completes with an error, nothing on the wire (written past the
        // driver, which sends from its own buffers).
        ilq.send(DriverNode.UNMAPPED, 100, 20, ah);
        d.run();
        assertEquals(1, wire.size());
        cqe = ilq.poll();
        assertTrue(cqe.error());
        assertEquals(PudaQueues.TxError.DMA_FAULT.minor(), cqe.minorError());
        // A send WQE with a stray header bit: AE WQE_INVALID_PARAMETER, error completion, nothing sent.
        int bad = ilq.send(segmentOf(len), len - 34, 28, ah);
        long hdrAt = ilq.sqSlot(bad) + 24;
        d.store().writeLong(hdrAt, d.store().readLong(hdrAt) | 1L << 50);
        d.write(Gen2Register.WQEALLOC, 1);
        d.run();
        assertEquals(1, wire.size());
        Cqe badCqe = ilq.poll();
        assertNotNull(badCqe);
        assertTrue(badCqe.error());
        Aeqe ae = lastAe();
        assertEquals(AeCode.WQE_INVALID_PARAMETER.code(), ae.aeCode());
        // WQEALLOC for a QP that does not exist is ignored.
        d.write(Gen2Register.WQEALLOC, 33);
        d.run();
        assertEquals(1, d.dev.wqeAllocIgnored());
    }
}
