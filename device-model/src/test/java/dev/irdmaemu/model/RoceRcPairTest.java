package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.qp.RoceQpContext;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.RoceDrop;
import dev.irdmaemu.model.roce.rc.RcEngine;
import dev.irdmaemu.model.roce.rc.RcState;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two E810 models on one cable, each with an RC QP its driver created and moved to RTS through the CQP with the
 * RoCE context irdma writes (ctrl.c irdma_sc_qp_setctx_roce_gen_2: MACs, IPv4 addresses, the peer's QP, ARP index,
 * path MTU 1024, PSNs), a memory region registered on each, and the work posted as irdma posts it (uk.c
 * irdma_uk_send, irdma_uk_rdma_write, irdma_uk_rdma_read; fw.queue codecs) and rung with PFPE_WQEALLOC: SEND,
 * RDMA WRITE with immediate and RDMA READ of several packets arrive byte for byte with the CQEs irdma reads
 * (verbs.c irdma_process_cqe: SQ op and WQE index, RQ length, op and immediate); a SEND finding no RQ WQE is RNR
 * NAKed and arrives once one is posted; a SEND longer than the RQ buffer fails both queues with their FLUSH_* minor
 * codes (LOC_LEN on the responder, REM_INV_REQ and AE 0x0208 on the requester); a WQE the RC engine does not
 * run (inline data) raises AE 0x020A once and stays posted; a QP on a VLAN tags its frames (INSERTVLANTAG,
 * VLANTAG); a peer gone silent ends the
 * QP's SEND with the retry-exceeded flush code and AE 0x050A; Modify QP to ERROR flushes the SEND in flight with
 * one flush CQE; hostile frames at an RTS QP are counted, never thrown; 2048 RDMA WRITEs through both models
 * (doorbell, SQ fetch, frames, ACKs) allocate less than a byte per work request.
 */
class RoceRcPairTest {
    static final long MAC_A = 0x02_00_00_00_00_0aL;
    static final long MAC_B = 0x02_00_00_00_00_0bL;
    static final int IP_A = 0x0a_00_00_01;
    static final int IP_B = 0x0a_00_00_02;
    static final int PD = 5;
    static final int QP = 20;
    static final int ARP = 1;
    static final int SQ_CQ = 3;
    static final int RQ_CQ = 4;
    static final int REGION = 256 << 10;

    final SimScheduler sched = new SimScheduler(5);
    final List<byte[]> wire = new ArrayList<>();
    boolean recording = true;
    final Link link = new Link(sched, (t, s, o, l) -> {
        if (recording) {
            byte[] f = new byte[l];
            s.read(o, f, 0, l);
            wire.add(f);
        }
    });
    final Side a = new Side(MAC_A, IP_A, MAC_B, IP_B, 0x100, 0x2000, 0x11);
    final Side b = new Side(MAC_B, IP_B, MAC_A, IP_A, 0x2000, 0x100, 0x22);

    /** One node: its CQs, ARP entry, region and RC QP. */
    final class Side {
        final DriverNode node;
        final CqpOps d;
        final long mac;
        final int ip;
        final long peerMac;
        final int peerIp;
        final int sendPsn;
        final int expectedPsn;
        final int stag;
        final long region;
        final RoceQpContext ctx = new RoceQpContext();
        long sq;
        long rq;
        long context;
        int sqIndex;
        long sqQuanta;
        int rqIndex;
        final SqWqe wqe = new SqWqe();
        final SgeList sges = new SgeList();
        int sqCqSlot;
        int rqCqSlot;
        /** The 802.1Q TCI irdma puts in the context for a VLAN netdev's QP; negative for none. */
        int vlanTci = -1;

        Side(long mac, int ip, long peerMac, int peerIp, int sendPsn, int expectedPsn, int key) {
            this.node = new DriverNode(sched, link, mac);
            this.d = new CqpOps(node);
            this.mac = mac;
            this.ip = ip;
            this.peerMac = peerMac;
            this.peerIp = peerIp;
            this.sendPsn = sendPsn;
            this.expectedPsn = expectedPsn;
            this.stag = StagFields.stag(0x40, key);
            this.region = node.alloc(REGION);
        }

        void up() {
            assertFalse(d.createCq(SQ_CQ, 64, 0, true).error());
            assertFalse(d.createCq(RQ_CQ, 64, 0, true).error());
            assertFalse(node.op("MANAGE_ARP",
                    (o, v) -> CqpWqeWriter.addArpEntry(node.store(), o, ARP, 0, peerMac, false, v)).error());
            StagFields f = new StagFields();
            f.stagIndex = StagFields.stagIndexOf(stag);
            f.stagKey = StagFields.stagKeyOf(stag);
            f.pdId = PD;
            f.length = REGION;
            f.accessRights = MemoryRegions.LOCAL_READ | MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_READ
                    | MemoryRegions.REMOTE_WRITE;
            f.remoteAccess = true;
            f.vaBased = true;
            f.vaOrFbo = region;
            f.regAddress = region;
            f.mr = true;
            assertFalse(node.op("REG_MR", (o, v) -> CqpWqeWriter.registerMr(node.store(), o, f, v)).error());
            sq = node.alloc(32 * QueuePair.QUANTUM);
            rq = node.alloc(32 * QueuePair.QUANTUM);
            context = node.alloc(RoceQpContext.SIZE);
            writeContext();
            assertFalse(d.createQp(QP, QueuePair.TYPE_ROCE_RC, QpState.IDLE.code(), false,
                    at -> node.store().write(node.off(at), node.store(), node.off(context), RoceQpContext.SIZE))
                    .error());
            for (QpState s : new QpState[] {QpState.IDLE, QpState.RTR, QpState.RTS}) {
                assertFalse(modify(s).error(), s.name());
            }
        }

        /** The context as irdma_roce_fill_and_set_qpctx_info and irdma_modify_qp_roce leave it. */
        void writeContext() {
            ctx.wrap(node.store(), node.off(context), RoceQpContext.SIZE)
                    .writeDefaults(sq, rq, 3, 3, SQ_CQ, RQ_CQ, 1024, 0xC0FFEEL).putPdId(PD).putMac(mac)
                    .putIpv4(true).putLocalIp(0, 0, 0, ip).putDestIp(0, 0, 0, peerIp).putDestQp(QP)
                    .putArpIdx(ARP).putSqPsn(sendPsn).putExpectedPsn(expectedPsn);
            if (vlanTci >= 0) {
                ctx.putInsertVlanTag(true).putVlanTag(vlanTci);
            }
        }

        DriverNode.Completion modify(QpState next) {
            writeContext();
            d.qpf.clear();
            d.qpf.qpId = QP;
            d.qpf.qpType = QueuePair.TYPE_ROCE_RC;
            d.qpf.hostContextAddress = context;
            d.qpf.nextIwarpState = next.code();
            d.qpf.arpIndexValid = next != QpState.IDLE;
            d.qpf.cqNumValid = next == QpState.RTR || next == QpState.RTS;
            d.qpf.ordValid = next == QpState.RTS;
            return node.op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(node.store(), o, d.qpf, v));
        }

        void fill(long offset, int n, int seed) {
            for (int i = 0; i < n; i++) {
                node.store().writeByte(node.off(region + offset) + i, (byte) (seed + i * 13));
            }
        }

        byte[] bytes(long offset, int n) {
            return node.read(region + offset, n);
        }

        SqWqe nextSqWqe() {
            return new SqWqe().wrap(node.store(), node.off(sq + (long) sqIndex * SqWqe.QUANTUM),
                    4L * SqWqe.QUANTUM);
        }

        /** An unsignaled RDMA WRITE on the SQ ring as it wraps (the valid bit flips each lap); allocates nothing. */
        void postWriteAround(long offset, int n, Side to, long toOffset) {
            int index = (int) (sqQuanta % 32);
            boolean polarity = (sqQuanta / 32 & 1) == 0;
            wqe.wrap(node.store(), node.off(sq + (long) index * SqWqe.QUANTUM), SqWqe.QUANTUM);
            int quanta = wqe.writeRdmaWrite(polarity, SqOpcode.RDMA_WRITE, sges.clear().add(region + offset, n, stag),
                    to.stag, to.region + toOffset, 0, 0);
            if (quanta != 1) {
                throw new IllegalStateException("a one-fragment WRITE is one quantum (uk.c), not " + quanta);
            }
            sqQuanta += quanta;
        }

        int postSend(long offset, int n, int flags, long imm) {
            int at = sqIndex;
            sqIndex += nextSqWqe().writeSend(true, SqOpcode.RDMA_SEND, new SgeList().add(region + offset, n, stag),
                    flags, imm, 0);
            return at;
        }

        int postWrite(long offset, int n, Side to, long toOffset, int flags, long imm) {
            int at = sqIndex;
            sqIndex += nextSqWqe().writeRdmaWrite(true, SqOpcode.RDMA_WRITE,
                    new SgeList().add(region + offset, n, stag), to.stag, to.region + toOffset, flags, imm);
            return at;
        }

        int postRead(long offset, int n, Side from, long fromOffset) {
            int at = sqIndex;
            sqIndex += nextSqWqe().writeRdmaRead(true, new SgeList().add(region + offset, n, stag), from.stag,
                    from.region + fromOffset, false, SqWqe.SIGNALED);
            return at;
        }

        int postRecv(long offset, int n) {
            int at = rqIndex;
            new RqWqe().wrap(node.store(), node.off(rq + (long) rqIndex * RqWqe.MIN_SIZE), RqWqe.MIN_SIZE)
                    .write(true, new SgeList().add(region + offset, n, stag));
            rqIndex++;
            return at;
        }

        void ring() {
            node.write(Gen2Register.WQEALLOC, QP);
        }

        Cqe cqe(int cq, int slot) {
            long gpa = node.dev.cqs().get(cq).ringAddress() + (long) slot * Cqe.SIZE;
            return new Cqe().wrap(node.store(), node.off(gpa), Cqe.SIZE);
        }

        Cqe nextSqCqe() {
            return cqe(SQ_CQ, sqCqSlot++);
        }

        Cqe nextRqCqe(boolean extended) {
            Cqe c = cqe(RQ_CQ, rqCqSlot);
            rqCqSlot += extended ? 2 : 1;
            return c;
        }

        RcEngine engine() {
            return node.dev.roce().rc().engine(QP);
        }

        long aes(int code) {
            return node.sink.of(TraceKind.AEQE).stream()
                    .filter(e -> e.get("ae").equals("0x" + Integer.toHexString(code))).count();
        }
    }

    void upBoth() {
        a.up();
        b.up();
        assertEquals(RcState.READY_TO_SEND, a.engine().state());
        assertEquals(RcState.READY_TO_SEND, b.engine().state());
        assertEquals(0x100, a.engine().nextPsn(), "the SQ PSN of A's context");
        assertEquals(0x100, b.engine().expectedPsn(), "B expects A's PSN");
    }

    void run() {
        assertTrue(sched.runUntilIdle(sched.now() + 60_000_000_000L), "the models went idle");
    }

    @AfterEach
    void close() {
        a.node.close();
        b.node.close();
    }

    @Test
    void sendWriteWithImmediateAndReadArriveByteForByteWithTheirCqes() {
        upBoth();
        a.fill(0, 3000, 1);
        int rqWqe = b.postRecv(0x10000, 4096);
        int sendWqe = a.postSend(0, 3000, SqWqe.SIGNALED, 0);
        a.ring();
        run();
        assertArrayEquals(a.bytes(0, 3000), b.bytes(0x10000, 3000), "the SEND's three packets in B's RQ buffer");
        Cqe sc = a.nextSqCqe();
        assertTrue(sc.valid());
        assertTrue(sc.sq());
        assertFalse(sc.error());
        assertEquals(sendWqe, sc.wqeIndex());
        assertEquals(SqOpcode.RDMA_SEND.code(), sc.opType());
        assertEquals(QP, sc.qpId());
        Cqe rc = b.nextRqCqe(false);
        assertTrue(rc.valid());
        assertFalse(rc.sq());
        assertFalse(rc.error());
        assertEquals(3000, rc.payloadLength());
        assertEquals(Cqe.OP_RECEIVE, rc.opType());
        assertEquals(rqWqe, rc.wqeIndex());

        // RDMA WRITE with immediate: the data in B's region, the immediate in B's RQ CQE (extended)
        a.fill(0x4000, 5000, 7);
        b.postRecv(0x10000, 16);
        int writeWqe = a.postWrite(0x4000, 5000, b, 0x20000, SqWqe.SIGNALED | SqWqe.IMMEDIATE, 0x5eed_f00dL);
        a.ring();
        run();
        assertArrayEquals(a.bytes(0x4000, 5000), b.bytes(0x20000, 5000));
        Cqe wc = a.nextSqCqe();
        assertEquals(writeWqe, wc.wqeIndex());
        assertEquals(SqOpcode.RDMA_WRITE.code(), wc.opType());
        assertFalse(wc.error());
        Cqe ri = b.nextRqCqe(true);
        assertTrue(ri.valid());
        assertTrue(ri.extended());
        assertEquals(0x0b, ri.opType(), "verbs.h set_ib_wc_op_rq: IB_WC_RECV_RDMA_WITH_IMM");
        CqeExtension ext = new CqeExtension().wrap(b.node.store(),
                b.node.off(b.node.dev.cqs().get(RQ_CQ).ringAddress() + (long) (b.rqCqSlot - 1) * Cqe.SIZE),
                CqeExtension.SIZE);
        assertTrue(ext.immediateValid());
        assertEquals(0x5eed_f00dL, ext.immediateData() & 0xffff_ffffL);

        // RDMA READ of 6000 bytes of B's region into A's
        b.fill(0x30000, 6000, 3);
        int readWqe = a.postRead(0x8000, 6000, b, 0x30000);
        a.ring();
        run();
        assertArrayEquals(b.bytes(0x30000, 6000), a.bytes(0x8000, 6000));
        Cqe rd = a.nextSqCqe();
        assertEquals(readWqe, rd.wqeIndex());
        assertEquals(SqOpcode.RDMA_READ.code(), rd.opType());
        assertFalse(rd.error());
        assertEquals(0, a.engine().outstanding());
        assertEquals(0, a.aes(0x20a), "no WQE refused");
    }

    @Test
    void rdmaWritesThroughTheModelAllocateNothingPerWqeOrFrame() {
        upBoth();
        a.node.trace.off();
        b.node.trace.off();
        recording = false;
        a.fill(0, 4096, 5);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long t = Thread.currentThread().getId();
        for (int i = 0; i < 1024; i++) {
            writeOnce(i);
        }
        long base = threads.getThreadAllocatedBytes(t);
        base = threads.getThreadAllocatedBytes(t) - base;
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < 2048; i++) {
            writeOnce(i);
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        assertArrayEquals(a.bytes(0, 4096), b.bytes(0x20000 + 2047 % 8 * 4096, 4096));
        assertEquals(0, a.engine().outstanding());
        // fewer bytes than work requests, a tenth of a byte per frame: nothing is allocated per WQE or per frame
        // (the doorbell, the SQ fetch, posting and running the scheduler measure 0 each; a few hundred bytes over
        // the run come and go with the JIT and the model's other timers as simulated time passes)
        assertTrue(used < 2048, "bytes allocated over 2048 RDMA WRITEs of 4 KiB (8192 frames and their ACKs): " + used);
    }

    private void writeOnce(int i) {
        a.postWriteAround(0, 4096, b, 0x20000 + (long) (i % 8) * 4096);
        a.ring();
        sched.runUntilIdle(sched.now() + 1_000_000_000L);
    }

    @Test
    void aSendWithoutAReceiveWqeIsRnrNakedAndArrivesOnceOneIsPosted() {
        upBoth();
        a.fill(0, 500, 4);
        a.postSend(0, 500, SqWqe.SIGNALED, 0);
        a.ring();
        sched.runFor(50_000);
        assertTrue(b.engine().counters().received(dev.irdmaemu.model.roce.rc.RcReceipt.RNR_NAKED) > 0,
                "B answered RNR NAK: " + b.engine().describe());
        assertFalse(a.cqe(SQ_CQ, 0).valid(), "the SEND waits");
        int wqe = b.postRecv(0x10000, 1024);
        run();
        assertArrayEquals(a.bytes(0, 500), b.bytes(0x10000, 500));
        Cqe sc = a.nextSqCqe();
        assertTrue(sc.valid());
        assertFalse(sc.error());
        Cqe rc = b.nextRqCqe(false);
        assertEquals(500, rc.payloadLength());
        assertEquals(wqe, rc.wqeIndex());
    }

    @Test
    void aSendLongerThanTheReceiveBufferFailsBothSidesWithTheirFlushCodesAndAes() {
        upBoth();
        b.postRecv(0x10000, 100);
        a.postSend(0, 3000, SqWqe.SIGNALED, 0);
        a.ring();
        run();
        Cqe rc = b.nextRqCqe(false);
        assertTrue(rc.valid());
        assertTrue(rc.error());
        assertEquals(Cqe.MAJOR_FLUSH, rc.majorError());
        assertEquals(6, rc.minorError(), "FLUSH_LOC_LEN_ERR on the responder's RQ");
        Cqe sc = a.nextSqCqe();
        assertTrue(sc.valid());
        assertTrue(sc.error());
        assertEquals(10, sc.minorError(), "FLUSH_REM_INV_REQ_ERR: NAK invalid request");
        assertEquals(1, a.aes(0x208), "IRDMA_AE_IB_INVALID_REQUEST on the requester");
        assertEquals(RcState.ERROR, a.engine().state());
    }

    @Test
    void anRcWqeTheDeviceDoesNotRunRaisesTheUnexpectedOpcodeAeOnceAndStopsTheSq() {
        upBoth();
        BytesStore<?, Void> src = BytesStore.nativeStoreWithFixedCapacity(64);
        try {
            src.zeroOut(0, 64);
            a.sqIndex += a.nextSqWqe().writeInlineSend(true, SqOpcode.RDMA_SEND, src, 0, 40, 0, SqWqe.SIGNALED, 0);
        } finally {
            src.releaseLast();
        }
        a.sqIndex += a.nextSqWqe().writeNop(true, true);
        a.ring();
        a.ring();
        run();
        assertEquals(1, a.aes(0x20a), "IRDMA_AE_WQE_UNEXPECTED_OPCODE once for the inline SEND");
        assertEquals(1, a.node.dev.roce().rc().fetchRefusals());
        assertEquals(0, a.engine().outstanding(), "nothing went to the requester");
        assertEquals(0, a.node.dev.qps().get(QP).sqCursor().index(), "the WQE stays posted for Flush WQEs");
        assertEquals(0, b.engine().counters().received(dev.irdmaemu.model.roce.rc.RcReceipt.REQUEST_EXECUTED));
        assertFalse(a.modify(QpState.ERROR).error());
        assertFalse(a.d.destroyQp(QP, QueuePair.TYPE_ROCE_RC, false).error());
    }

    @Test
    void aKernelQpsStagZeroSgesAreItsPhysicalBuffersAndARemoteKeyOfZeroIsRefused() {
        upBoth();
        a.fill(0x1000, 1500, 8);
        // PRIVEN is set in these contexts (a kernel QP): lkey 0 is local_dma_lkey, the SGE a DMA address
        new RqWqe().wrap(b.node.store(), b.node.off(b.rq), RqWqe.MIN_SIZE)
                .write(true, new SgeList().add(b.region + 0x9000, 2048, 0));
        b.rqIndex++;
        a.sqIndex += a.nextSqWqe().writeSend(true, SqOpcode.RDMA_SEND, new SgeList().add(a.region + 0x1000, 1500, 0),
                SqWqe.SIGNALED, 0, 0);
        a.ring();
        run();
        assertArrayEquals(a.bytes(0x1000, 1500), b.bytes(0x9000, 1500));
        assertFalse(a.nextSqCqe().error());
        assertEquals(1500, b.nextRqCqe(false).payloadLength());
        // an RDMA WRITE naming R_Key 0 is not a physical write on the responder: NAK remote access
        a.sqIndex += a.nextSqWqe().writeRdmaWrite(true, SqOpcode.RDMA_WRITE,
                new SgeList().add(a.region + 0x1000, 100, a.stag), 0, b.region, SqWqe.SIGNALED, 0);
        a.ring();
        run();
        Cqe c = a.nextSqCqe();
        assertTrue(c.error());
        assertEquals(3, c.minorError(), "FLUSH_REM_ACCESS_ERR");
        assertEquals(1, a.aes(0x20d), "IRDMA_AE_IB_REMOTE_ACCESS_ERROR");
    }

    @Test
    void aQpOnAVlanSendsItsFramesTaggedAndTheyArrive() {
        a.vlanTci = 0x6064;
        b.vlanTci = 0x6064;
        upBoth();
        a.fill(0, 2000, 6);
        b.postRecv(0x10000, 4096);
        a.postSend(0, 2000, SqWqe.SIGNALED, 0);
        a.ring();
        run();
        assertArrayEquals(a.bytes(0, 2000), b.bytes(0x10000, 2000));
        assertFalse(a.nextSqCqe().error());
        byte[] f = wire.stream().filter(x -> x.length > 1000).findFirst().orElseThrow();
        assertEquals(0x8100, (f[12] & 0xff) << 8 | f[13] & 0xff, "802.1Q");
        assertEquals(0x6064, (f[14] & 0xff) << 8 | f[15] & 0xff, "priority 3, VLAN 100 from the context");
        assertTrue(wire.stream().allMatch(x -> ((x[12] & 0xff) << 8 | x[13] & 0xff) == 0x8100), "ACKs too");
    }

    @Test
    void aSilentPeerEndsTheSendWithRetryExceededAndItsAe() {
        upBoth();
        assertFalse(b.modify(QpState.ERROR).error());
        a.postSend(0, 100, SqWqe.SIGNALED, 0);
        a.ring();
        run();
        Cqe c = a.nextSqCqe();
        assertTrue(c.valid());
        assertTrue(c.error());
        assertEquals(Cqe.MAJOR_FLUSH, c.majorError());
        assertEquals(8, c.minorError(), "FLUSH_RETRY_EXC_ERR");
        assertEquals(1, a.aes(0x50a), "IRDMA_AE_LLP_TOO_MANY_RETRIES");
        assertEquals(RcState.ERROR, a.engine().state());
    }

    @Test
    void modifyToErrorFlushesTheSendInFlightWithOneFlushCqe() {
        upBoth();
        assertFalse(b.modify(QpState.ERROR).error());
        int first = a.postSend(0, 100, SqWqe.SIGNALED, 0);
        a.postSend(0, 100, SqWqe.SIGNALED, 0);
        a.ring();
        sched.runFor(1_000_000);
        assertEquals(2, a.engine().outstanding());
        assertFalse(a.modify(QpState.ERROR).error());
        Cqe c = a.nextSqCqe();
        assertTrue(c.valid());
        assertTrue(c.error());
        assertEquals(Cqe.MAJOR_FLUSH, c.majorError());
        assertEquals(Cqe.MINOR_FLUSH_GENERAL, c.minorError());
        assertEquals(first, c.wqeIndex());
        assertFalse(a.nextSqCqe().valid(), "one flush CQE: uk.c completes the rest of the ring from it");
        assertEquals(0, a.engine().outstanding());
        assertEquals(0, a.aes(0x50a), "the driver's own Modify QP to ERROR raises no AE");
        assertFalse(a.d.destroyQp(QP, QueuePair.TYPE_ROCE_RC, false).error());
        assertNull(a.engine(), "Destroy QP releases the engine");
        assertEquals(0, a.node.dev.roce().rc().live());
    }

    @Test
    void hostileRcFramesAtAnRtsQpAreCountedNeverThrown() {
        upBoth();
        a.fill(0, 2000, 9);
        b.postRecv(0x10000, 4096);
        a.postSend(0, 2000, SqWqe.SIGNALED, 0);
        a.ring();
        run();
        byte[] sample = wire.stream().filter(f -> f.length > 1000).findFirst().orElseThrow();
        long before = b.node.dev.roce().counters().dropped(RoceDrop.RC_REFUSED);
        long droppedBefore = b.node.dev.roce().counters().totalDropped();
        long receivedBefore = b.node.dev.roce().counters().received();
        long lanBefore = b.node.dev.port().rxLan();
        BytesStore<?, Void> s = BytesStore.nativeStoreWithFixedCapacity(4096);
        int sent = 0;
        try {
            java.util.SplittableRandom r = new java.util.SplittableRandom(1);
            for (int i = 0; i < 200; i++) {
                byte[] f = Arrays.copyOf(sample, i % 3 == 0 ? r.nextInt(60, sample.length) : sample.length);
                int at = r.nextInt(14 + 20 + 8, f.length);
                f[at] ^= (byte) (1 + r.nextInt(255));
                s.write(0, f, 0, f.length);
                b.node.dev.port().receive(s, 0, f.length);
                sent++;
            }
            run();
        } finally {
            s.releaseLast();
        }
        assertEquals(200, sent);
        long refused = b.node.dev.roce().counters().dropped(RoceDrop.RC_REFUSED) - before;
        assertTrue(refused >= 100, "bad ICRC or malformed, refused by the engine's frame check: " + refused);
        long landed = b.node.dev.roce().counters().totalDropped() - droppedBefore
                + b.node.dev.roce().counters().received() - receivedBefore + b.node.dev.port().rxLan() - lanBefore;
        assertEquals(200, landed, "every frame dropped and counted, taken (a masked field) or handed to the LAN");
        assertNotNull(b.engine());
        assertEquals(RcState.READY_TO_SEND, b.engine().state(), "hostile frames do not break the QP");
    }
}
