package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.qp.RoceQpContext;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.fw.roce.RoceCheck;
import dev.irdmaemu.fw.roce.RoceFrame;
import dev.irdmaemu.fw.roce.RoceFrameBuilder;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.RoceCounters;
import dev.irdmaemu.model.roce.RoceDrop;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The RoCEv2 UD / QP1 data path in process (model.roce), driven with WQEs and frames written through the
 * firmware-iface codecs: a UD SEND on the wire byte for byte (parsed back with fw.roce.RoceFrame and compared with
 * the frame fw.roce.RoceFrameBuilder makes of the same fields), the Q_Key substitution of IBA §10.2.5 (bit 31 set
 * in the WQE: the QP context's Q_Key, as the MAD layer's 0x80000000 needs), the SQ CQE; a UD receive into the RQ
 * behind the 40-byte network-header slot with the CQE and extended CQE irdma reads; and each drop path, counted by
 * its reason with nothing placed.
 */
class RoceUdDataPathTest {
    static final int QP = 20;
    static final int PD = 5;
    static final int ARP = 7;
    static final int AH = 2;
    static final long PEER_MAC = 0x02_00_00_00_00_09L;
    static final int LOCAL = IpAddress.ipv4(192, 0, 2, 2);
    static final int PEER = IpAddress.ipv4(192, 0, 2, 3);
    static final int GSI_QKEY = 0x8001_0000;

    final DriverNode node = new DriverNode();
    final CqpOps d = new CqpOps(node);
    final RoceQpContext ctx = new RoceQpContext();
    final List<byte[]> wire = new ArrayList<>();
    long sq;
    long rq;
    int sqIndex;
    int rqIndex;

    @BeforeEach
    void up() {
        assertFalse(d.createCq(3, 64, 0, true).error());
        assertFalse(d.createCq(4, 64, 0, true).error());
        node.dev.port().setTransmitter((s, o, l) -> {
            byte[] b = new byte[l];
            s.read(o, b, 0, l);
            wire.add(b);
        });
        createUdQp(QP, c -> { });
        assertFalse(node.op("MANAGE_ARP",
                (o, v) -> CqpWqeWriter.addArpEntry(node.store(), o, ARP, 0, PEER_MAC, false, v)).error());
        assertFalse(node.op("CREATE_ADDR_HANDLE", (o, v) -> CqpWqeWriter.addressHandle(node.store(), o,
                CqpOpcode.CREATE_ADDR_HANDLE, AH, DriverNode.DEFAULT_MAC, PD, 0, 0xffff, false, ARP, 0, 64, true,
                false, new int[] {PEER}, new int[] {LOCAL}, v)).error());
    }

    @AfterEach
    void close() {
        node.close();
    }

    /** A UD QP as irdma brings QP1 up: created, INIT (GSI Q_Key), RTR, RTS with SQ PSN 0x100. */
    void createUdQp(int id, Consumer<RoceQpContext> edit) {
        sq = node.alloc(32 * QueuePair.QUANTUM);
        rq = node.alloc(32 * QueuePair.QUANTUM);
        long c = node.alloc(RoceQpContext.SIZE);
        ctx.wrap(node.store(), node.off(c), RoceQpContext.SIZE).writeDefaults(sq, rq, 3, 3, 3, 4, 1024, 0xC0FFEEL)
                .putPdId(PD).putMac(DriverNode.DEFAULT_MAC).putIpv4(true).putQKey(GSI_QKEY).putSqPsn(0x100)
                .putLocalIp(0, 0, 0, LOCAL);
        edit.accept(ctx);
        assertFalse(d.createQp(id, QueuePair.TYPE_ROCE_UD, 1, false,
                at -> node.store().write(node.off(at), node.store(), node.off(c), RoceQpContext.SIZE)).error());
        for (QpState s : new QpState[] {QpState.IDLE, QpState.RTR, QpState.RTS}) {
            d.qpf.clear();
            d.qpf.qpId = id;
            d.qpf.qpType = QueuePair.TYPE_ROCE_UD;
            d.qpf.hostContextAddress = c;
            d.qpf.nextIwarpState = s.code();
            d.qpf.arpIndexValid = s != QpState.IDLE;
            d.qpf.cqNumValid = s != QpState.IDLE;
            assertFalse(node.op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(node.store(), o, d.qpf, v)).error());
        }
    }

    long payload(int n, int seed) {
        long buf = node.alloc(n);
        for (int i = 0; i < n; i++) {
            node.store().writeByte(node.off(buf) + i, (byte) (seed + i * 7));
        }
        return buf;
    }

    void postSend(long buf, int n, int qKey, int destQp, boolean imm) {
        SqWqe w = new SqWqe();
        long at = sq + (long) sqIndex * SqWqe.QUANTUM;
        w.wrap(node.store(), node.off(at), 2L * SqWqe.QUANTUM);
        sqIndex += w.writeUdSend(true, SqOpcode.RDMA_SEND, new SgeList().add(buf, n, 0),
                SqWqe.SIGNALED | (imm ? SqWqe.IMMEDIATE : 0), 0xABCD_1234L, AH, destQp, qKey);
        node.write(Gen2Register.WQEALLOC, QP);
        node.run();
    }

    long postRecv(int bytes) {
        long buf = node.alloc(bytes);
        RqWqe w = new RqWqe();
        w.wrap(node.store(), node.off(rq + (long) rqIndex * RqWqe.MIN_SIZE), RqWqe.MIN_SIZE);
        w.write(true, new SgeList().add(buf, bytes, 0));
        rqIndex++;
        return buf;
    }

    Cqe cqe(int cq, int slot) {
        long gpa = node.dev.cqs().get(cq).ringAddress() + (long) slot * Cqe.SIZE;
        return new Cqe().wrap(node.store(), node.off(gpa), Cqe.SIZE);
    }

    RoceFrameBuilder peerFrame(BthOpcode op, int destQp, int qKey, int pKey) {
        return new RoceFrameBuilder().ethernet(DriverNode.DEFAULT_MAC, PEER_MAC).noVlan().ipv4(PEER, LOCAL).ttl(64)
                .udp(0xC123, false).bth(op, destQp, 5).partitionKey(pKey).deth(qKey, 33).immediate(0x1234);
    }

    byte[] build(RoceFrameBuilder b, int n) {
        BytesStore<?, Void> out = BytesStore.nativeStoreWithFixedCapacity(9000);
        BytesStore<?, Void> pl = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, n));
        for (int i = 0; i < n; i++) {
            pl.writeByte(i, (byte) (i * 3 + 1));
        }
        int len = b.build(out, 0, pl, 0, n);
        byte[] f = new byte[len];
        out.read(0, f, 0, len);
        return f;
    }

    void receive(byte[] frame) {
        BytesStore<?, Void> s = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, frame.length));
        s.write(0, frame, 0, frame.length);
        node.dev.port().receive(s, 0, frame.length);
        node.run();
    }

    RoceCounters counters() {
        return node.dev.roce().counters();
    }

    @Test
    void aUdSendLeavesAsOneRoceV2FrameByteForByteWithTheQpsQkeyAndCompletes() {
        long buf = payload(100, 9);
        postSend(buf, 100, 0x8000_0000, 1, false);
        assertEquals(1, wire.size());
        byte[] f = wire.get(0);
        RoceFrame p = new RoceFrame();
        BytesStore<?, Void> s = BytesStore.nativeStoreWithFixedCapacity(f.length);
        s.write(0, f, 0, f.length);
        assertEquals(RoceCheck.ACCEPTED, p.wrap(s, 0, f.length).validate(PathMtu.MTU_1024));
        assertEquals(BthOpcode.UD_SEND_ONLY, p.bth().opcode().orElseThrow());
        assertEquals(1, p.bth().destinationQp());
        assertEquals(0x100, p.bth().psn());
        assertEquals(0xffff, p.bth().partitionKey());
        assertEquals(GSI_QKEY, p.headers().deth().queueKey(), "bit 31 set: the QP's Q_Key (IBA 10.2.5)");
        assertEquals(QP, p.headers().deth().sourceQp());
        assertEquals(PEER_MAC, p.ethernet().destination());
        assertEquals(DriverNode.DEFAULT_MAC, p.ethernet().source());
        assertEquals(PEER, p.ipv4().destination());
        assertEquals(LOCAL, p.ipv4().source());
        assertEquals(64, p.ipv4().ttl());
        assertArrayEquals(node.read(buf, 100), java.util.Arrays.copyOfRange(f, p.payloadOffset(),
                p.payloadOffset() + 100));
        // the same fields through the codec's own builder: the identical frame
        RoceFrameBuilder b = new RoceFrameBuilder().ethernet(PEER_MAC, DriverNode.DEFAULT_MAC).noVlan()
                .ipv4(LOCAL, PEER).identification(1).ttl(64).tos(0).udp(0xC000, false)
                .bth(BthOpcode.UD_SEND_ONLY, 1, 0x100).partitionKey(0xffff).deth(GSI_QKEY, QP);
        BytesStore<?, Void> out = BytesStore.nativeStoreWithFixedCapacity(2048);
        BytesStore<?, Void> pl = BytesStore.nativeStoreWithFixedCapacity(100);
        pl.write(0, node.read(buf, 100), 0, 100);
        int len = b.build(out, 0, pl, 0, 100);
        byte[] expected = new byte[len];
        out.read(0, expected, 0, len);
        assertArrayEquals(expected, f);
        Cqe c = cqe(3, 0);
        assertTrue(c.valid() && c.sq() && !c.error());
        assertEquals(QP, c.qpId());
        assertEquals(0, c.wqeIndex());
        assertEquals(SqOpcode.RDMA_SEND.code(), c.opType());
        assertEquals(0xC0FFEEL, c.completionContext());
        // a second send: its own PSN, an explicit Q_Key kept as given, with immediate
        postSend(buf, 8, 0x1111, 44, true);
        assertEquals(2, wire.size());
        s.write(0, wire.get(1), 0, wire.get(1).length);
        assertEquals(RoceCheck.ACCEPTED, p.wrap(s, 0, wire.get(1).length).validate(PathMtu.MTU_1024));
        assertEquals(BthOpcode.UD_SEND_ONLY_WITH_IMMEDIATE, p.bth().opcode().orElseThrow());
        assertEquals(0x101, p.bth().psn());
        assertEquals(0x1111, p.headers().deth().queueKey());
        assertEquals(0xABCD_1234, p.headers().immDt().immediate());
        assertEquals(2, counters().sent());
    }

    @Test
    void aUdSendLongerThanThePathMtuOrThroughAMissingAhRaisesItsAeAndStopsTheSq() {
        long buf = payload(1100, 1);
        postSend(buf, 1100, GSI_QKEY, 1, false);
        assertEquals(0, wire.size());
        assertEquals(1, counters().sendErrors());
        assertTrue(node.sink.of(dev.irdmaemu.model.trace.TraceKind.AEQE).stream()
                .anyMatch(e -> e.get("ae").equals("0x132")), "IRDMA_AE_UDA_XMIT_DGRAM_TOO_LONG");
        // the SQ stays stopped with the WQE posted until the driver moves the QP (then Flush WQEs completes it)
        postSend(payload(8, 2), 8, GSI_QKEY, 1, false);
        assertEquals(0, wire.size());
    }

    @Test
    void aUdReceiveLandsBehindTheNetworkHeaderSlotWithItsCqeAndExtension() {
        long buf = postRecv(40 + 512);
        byte[] f = build(peerFrame(BthOpcode.UD_SEND_ONLY_WITH_IMMEDIATE, QP, GSI_QKEY, 0xffff).flags(true, false,
                false), 200);
        receive(f);
        assertEquals(1, counters().received());
        byte[] placed = node.read(buf, 240);
        for (int i = 0; i < 20; i++) {
            assertEquals(0, placed[i], "IPv4: 20 zero bytes first (ib_verbs.h rdma_network_hdr)");
        }
        assertArrayEquals(java.util.Arrays.copyOfRange(f, 14, 34), java.util.Arrays.copyOfRange(placed, 20, 40),
                "then the IPv4 header");
        RoceFrame p = new RoceFrame();
        BytesStore<?, Void> s = BytesStore.nativeStoreWithFixedCapacity(f.length);
        s.write(0, f, 0, f.length);
        p.wrap(s, 0, f.length).validateStructure();
        assertArrayEquals(java.util.Arrays.copyOfRange(f, p.payloadOffset(), p.payloadOffset() + 200),
                java.util.Arrays.copyOfRange(placed, 40, 240));
        Cqe c = cqe(4, 0);
        assertTrue(c.valid() && !c.sq() && !c.error() && c.extended());
        assertEquals(240, c.payloadLength(), "PAYLDLEN = 40 + payload");
        assertEquals(QP, c.qpId());
        assertEquals(33, c.invalidatedStag(), "IRDMACQ_UDSRCQPN shares quadword 2 bits 31:0");
        assertTrue(c.ipv4());
        assertTrue(c.solicitedEvent());
        assertEquals(0x05, c.opType(), "SEND ONLY with immediate's low bits: never 0x09 / 0x0b");
        CqeExtension e = new CqeExtension();
        long extGpa = node.dev.cqs().get(4).ringAddress() + Cqe.SIZE;
        e.wrap(node.store(), node.off(extGpa), CqeExtension.SIZE);
        assertTrue(e.sourceMacValid());
        assertEquals(PEER_MAC, e.sourceMac());
        assertTrue(e.immediateValid());
        assertEquals(0x1234, e.immediateDataLow32());
        assertFalse(e.vlanValid());
    }

    private void assertDropped(RoceDrop why, byte[] frame) {
        long before = counters().dropped(why);
        long received = counters().received();
        receive(frame);
        assertEquals(before + 1, counters().dropped(why), why.name());
        assertEquals(received, counters().received(), "nothing placed for " + why);
    }

    @Test
    void everyDropPathIsCountedByItsReasonAndPlacesNothing() {
        long buf = postRecv(40 + 256);
        byte[] good = build(peerFrame(BthOpcode.UD_SEND_ONLY, QP, GSI_QKEY, 0xffff), 64);
        byte[] badIcrc = good.clone();
        badIcrc[badIcrc.length - 10] ^= 1;
        assertDropped(RoceDrop.BAD_ICRC, badIcrc);
        assertDropped(RoceDrop.BAD_PKEY, build(peerFrame(BthOpcode.UD_SEND_ONLY, QP, GSI_QKEY, 0x1234), 64));
        assertDropped(RoceDrop.BAD_QKEY, build(peerFrame(BthOpcode.UD_SEND_ONLY, QP, 0x8000_0000, 0xffff), 64));
        assertDropped(RoceDrop.NO_QP, build(peerFrame(BthOpcode.UD_SEND_ONLY, 99, GSI_QKEY, 0xffff), 64));
        assertDropped(RoceDrop.WRONG_TRANSPORT, build(peerFrame(BthOpcode.RC_SEND_ONLY, QP, GSI_QKEY, 0xffff), 64));
        assertDropped(RoceDrop.ABOVE_MTU, build(peerFrame(BthOpcode.UD_SEND_ONLY, QP, GSI_QKEY, 0xffff), 1100));
        assertDropped(RoceDrop.TOO_LONG, build(peerFrame(BthOpcode.UD_SEND_ONLY, QP, GSI_QKEY, 0xffff), 300));
        assertDropped(RoceDrop.MALFORMED, java.util.Arrays.copyOf(good, good.length - 20));
        byte[] tver = good.clone();
        tver[14 + 20 + 8 + 1] |= 1;
        assertDropped(RoceDrop.MALFORMED, tver);
        assertEquals(0, node.read(buf, 1)[0], "the posted buffer is untouched");
        receive(good);
        assertEquals(1, counters().received(), "the good frame takes the posted WQE");
        assertDropped(RoceDrop.NO_RQ_WQE, good);
        // a QP not yet in RTR drops too
        createUdQp(21, c -> { });
        d.qpf.clear();
        d.qpf.qpId = 21;
        d.qpf.qpType = QueuePair.TYPE_ROCE_UD;
        d.qpf.hostContextAddress = node.dev.qps().get(21).contextAddress();
        d.qpf.nextIwarpState = QpState.ERROR.code();
        assertFalse(node.op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(node.store(), o, d.qpf, v)).error());
        assertDropped(RoceDrop.QP_NOT_READY, build(peerFrame(BthOpcode.UD_SEND_ONLY, 21, GSI_QKEY, 0xffff), 64));
    }

    /**
     * Per frame the receive path allocates nothing: the whole parse, ICRC, QP, P_Key and Q_Key checks and the RQ WQE
     * fetch run for a frame that ends as {@link RoceDrop#TOO_LONG} (its WQE's buffer is too small, so it stays).
     */
    @Test
    void theReceivePathAllocatesNothingPerFrame() {
        node.trace.off();
        postRecv(40 + 64);
        byte[] f = build(peerFrame(BthOpcode.UD_SEND_ONLY, QP, GSI_QKEY, 0xffff), 300);
        BytesStore<?, Void> s = BytesStore.nativeStoreWithFixedCapacity(f.length);
        s.write(0, f, 0, f.length);
        Runnable one = () -> {
            node.dev.port().receive(s, 0, f.length);
            node.scheduler.runUntilIdle(Long.MAX_VALUE);
        };
        for (int i = 0; i < 20_000; i++) {
            one.run();
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long t = Thread.currentThread().getId();
        long a = threads.getThreadAllocatedBytes(t);
        long base = threads.getThreadAllocatedBytes(t) - a;
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < 10_000; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        assertEquals(30_000, counters().dropped(RoceDrop.TOO_LONG));
        assertTrue(used < 10_000, "RoCE receive allocated " + used + " bytes in 10000 frames");
    }
}
