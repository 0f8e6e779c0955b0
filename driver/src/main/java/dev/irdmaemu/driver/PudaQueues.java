package dev.irdmaemu.driver;

import static dev.irdmaemu.driver.IrdmaDriver.IEQ_QP;
import static dev.irdmaemu.driver.IrdmaDriver.ILQ_QP;
import static dev.irdmaemu.driver.IrdmaDriver.PUDA_BUF;
import static dev.irdmaemu.driver.IrdmaDriver.PUDA_RQ;
import static dev.irdmaemu.driver.IrdmaDriver.PUDA_SQ;

import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.PudaLayout;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The privileged UDA queues of puda.c, the ILQ (QP / CQ 1: the CM's segments) and the IEQ (QP / CQ 2: the
 * exception segments of offloaded QPs): created with their CQ, QP, posted receive buffers and the WS tree for their
 * user priority (irdma_puda_create_rsrc), polled when their CQ's CEQE comes (irdma_puda_ce_handler,
 * irdma_puda_poll_cmpl), the ILQ's sends (irdma_puda_send), and their removal (irdma_puda_dele_rsrc). Callers reach
 * them as {@link IrdmaDriver#puda()}: the ILQ's sends and what both queues counted.
 */
public final class PudaQueues {
    /** The user priority the PUDA QPs use (puda.c: rsrc->qp.user_pri stays 0), and so every QP of this driver. */
    static final int PUDA_USER_PRI = 0;
    /** PUDA QP type (puda.c irdma_puda_qp_setctx: UDA) and the iWARP RTS state used for PUDA QPs. */
    static final int QP_TYPE_UDA = 2;
    static final int PUDA_NEXT_STATE = 2;
    /** IRDMAQPC_QPCOMPCTX of a PUDA QP (irdma writes the sc_qp's kernel address; any value the CQEs echo). */
    static final long PUDA_COMPLETION_CONTEXT = 0x90DA_0000L;

    /** A PUDA QP (ILQ or IEQ) as the driver tracks it (puda.c struct irdma_puda_rsrc). */
    static final class PudaRsrc {
        int qpId;
        int cqId;
        long sq;
        long rq;
        long cqRing;
        long cqShadow;
        int cqSize;
        /** The QP's host context and shadow area (irdma_sc_qp.hw_host_ctx_pa, shadow_area_pa) for its destroy. */
        long hostContext;
        long qpShadow;
        int cqHead;
        boolean cqPolarity = true;
        long[] rxBuffers;
        long[] txBuffers;
        boolean[] txBusy;
        int sqHead;
        boolean sqPolarity = true;
    }

    private final IrdmaHw hw;
    private final BytesStore<?, ?> store;
    private final CqpChannel cqp;
    private final WorkScheduler ws;
    private IrdmaDriver.Upcalls upcalls;
    private PudaRsrc ilq;
    private PudaRsrc ieq;
    // reused flyweights and field holders: nothing allocated per frame
    private final CqOpFields cqf = new CqOpFields();
    private final QpOpFields qpf = new QpOpFields();
    private final Cqe cqe = new Cqe();
    private final RqWqe rqWqe = new RqWqe();
    private final SqWqe sqWqe = new SqWqe();
    private final CqeExtension ext = new CqeExtension();
    private final QpContext pudaContext = new QpContext();
    /** The frame rebuilt from an ILQ receive (one buffer, reused: the upcall must not keep it). */
    private final BytesStore<?, ?> rxFrame = BytesStore.wrap(new byte[PUDA_BUF + 18]);
    private long localMac;
    private boolean postIlqBuffers = true;
    private long ilqRefused;
    private long ilqReceived;
    private long ieqReceived;
    private long ieqRefused;
    private long ilqSendsCompleted;

    PudaQueues(IrdmaHw hw, CqpChannel cqp, WorkScheduler ws) {
        this.hw = hw;
        this.store = hw.store;
        this.cqp = cqp;
        this.ws = ws;
    }

    void upcalls(IrdmaDriver.Upcalls u) {
        this.upcalls = u;
    }

    void localMac(long mac) {
        this.localMac = mac;
    }

    long localMac() {
        return localMac;
    }

    void withoutIlqReceiveBuffers() {
        postIlqBuffers = false;
    }

    /** hw.c irdma_rt_init_hw: the ILQ, then the IEQ; both CQs armed. */
    void create() {
        ilq = create(ILQ_QP);
        ieq = create(IEQ_QP);
        hw.armCq(ilq.cqId, ilq.cqShadow);
        hw.armCq(ieq.cqId, ieq.cqShadow);
    }

    /** hw.c irdma_rt_deinit_hw: the IEQ, then the ILQ, whose removal takes the WS tree with it. */
    void delete(boolean reset) {
        if (ieq != null) {
            PudaRsrc p = ieq;
            ieq = null;
            delete(p, reset, false);
        }
        if (ilq != null) {
            PudaRsrc p = ilq;
            ilq = null;
            delete(p, reset, true);
        }
    }

    /**
     * puda.c irdma_puda_create_rsrc: the CQ (irdma_puda_cq_create), the UDA QP with its SQ/RQ rings
     * (irdma_puda_qp_create / irdma_puda_qp_setctx) and the posted receive buffers (irdma_puda_replenish_rq).
     */
    private PudaRsrc create(int qpId) {
        PudaRsrc p = new PudaRsrc();
        p.qpId = qpId;
        p.cqId = qpId;
        p.cqSize = 2 * (PUDA_SQ + PUDA_RQ);
        p.cqRing = hw.allocate((long) p.cqSize * Cqe.SIZE);
        p.cqShadow = hw.allocate(64);
        cqFields(p);
        cqf.shadowReadThreshold = 16;
        cqp.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, cqf, v));
        long qpMem = hw.allocate((long) (PUDA_SQ + PUDA_RQ) * 32);
        p.sq = qpMem;
        p.rq = qpMem + (long) PUDA_SQ * 32;
        p.rxBuffers = new long[PUDA_RQ];
        for (int i = 0; i < PUDA_RQ; i++) {
            p.rxBuffers[i] = hw.allocate(PUDA_BUF);
            if (qpId != ILQ_QP || postIlqBuffers) {
                rqWqe.wrap(store, hw.off(p.rq + i * (long) RqWqe.MIN_SIZE), RqWqe.MIN_SIZE)
                        .writePuda(p.rxBuffers[i], PUDA_BUF, true);
            }
        }
        p.txBuffers = new long[PUDA_SQ];
        p.txBusy = new boolean[PUDA_SQ];
        for (int i = 0; i < PUDA_SQ; i++) {
            p.txBuffers[i] = hw.allocate(PUDA_BUF);
        }
        createQp(p);
        return p;
    }

    /** The CQ's fields for its create and destroy (on CEQ 0, overflow checked). */
    private void cqFields(PudaRsrc p) {
        CeqZeroCq.fields(cqf, p.cqId, p.cqSize, p.cqRing, p.cqShadow).checkOverflow = true;
    }

    /**
     * puda.c irdma_puda_qp_create: the WS tree for the QP's user priority first (ws.c irdma_ws_add; a no-op for the
     * IEQ, UP 0 is valid by then), then irdma_qp_add_qos picks up its qs_handle and irdma_puda_qp_setctx writes the
     * context; Create QP.
     */
    private void createQp(PudaRsrc p) {
        ws.add();
        int rqEnc = Integer.numberOfTrailingZeros(PUDA_RQ) - 2;
        int sqEnc = Integer.numberOfTrailingZeros(PUDA_SQ) - 2;
        long ctx = hw.allocate(QpContext.SIZE);
        var res = new QpResources(0, false, false, false, false, QpResources.NO_PUSH_PAGE, p.sq, p.rq, rqEnc, sqEnc,
                0, 0, 0, ws.qsHandle(), 0);
        // stats_idx / stats_idx_valid: hw.c irdma_initialize_ilq / _ieq leave them 0
        pudaContext.wrap(store, hw.off(ctx), QpContext.SIZE).writePuda(res, PUDA_BUF, p.cqId, 0, false,
                PUDA_COMPLETION_CONTEXT + p.qpId);
        qpf.clear();
        qpf.qpId = p.qpId;
        qpf.qpType = QP_TYPE_UDA;
        qpf.hostContextAddress = ctx;
        qpf.shadowAreaAddress = hw.allocate(64);
        p.hostContext = ctx;
        p.qpShadow = qpf.shadowAreaAddress;
        qpf.cqNumValid = true;
        qpf.nextIwarpState = PUDA_NEXT_STATE;
        cqp.op("CREATE_QP", (ow, v) -> CqpWqeWriter.createQp(store, ow, qpf, v));
    }

    /**
     * puda.c irdma_puda_dele_rsrc for a created PUDA resource: irdma_qp_rem_qos, then (without a reset)
     * irdma_puda_free_qp, Destroy QP waited for (irdma_cqp_qp_destroy_cmd: remove_hash_idx set) followed by
     * dev->ws_remove for the QP's user priority, then irdma_puda_free_cq, Destroy CQ. ws.c irdma_ws_remove deletes
     * the tree only when no QP of the TC is left: after the IEQ the ILQ still holds it, so only {@code lastOfTc}
     * (the ILQ) removes it. irdma calls ws_remove inside irdma_puda_free_qp, so a reset skips it too.
     */
    private void delete(PudaRsrc p, boolean reset, boolean lastOfTc) {
        if (reset) {
            return;
        }
        qpf.clear();
        qpf.qpId = p.qpId;
        qpf.qpType = QP_TYPE_UDA;
        qpf.hostContextAddress = p.hostContext;
        qpf.shadowAreaAddress = p.qpShadow;
        qpf.removeHashEntry = true;
        cqp.teardownOp("DESTROY_QP", (o, v) -> CqpWqeWriter.destroyQp(store, o, qpf, v));
        if (lastOfTc) {
            ws.remove();
        }
        cqFields(p);
        cqp.teardownOp("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(store, o, cqf, v));
    }

    /** The ILQ or IEQ of this id exists (a CEQE for one that is gone is stale). */
    boolean exists(int id) {
        return (id == ILQ_QP ? ilq : ieq) != null;
    }

    /** puda.c irdma_puda_ce_handler: the CQ polled, then re-armed. */
    void ceHandler(int id) {
        PudaRsrc p = id == ILQ_QP ? ilq : ieq;
        poll(p, id == ILQ_QP);
        hw.armCq(p.cqId, p.cqShadow);
    }

    /** puda.c irdma_puda_poll_cmpl: RQ CQEs hand the frame up and repost the buffer; SQ CQEs free the buffer. */
    private void poll(PudaRsrc p, boolean deliver) {
        for (int n = 0; n < p.cqSize; n++) {
            cqe.wrap(store, hw.off(p.cqRing + (long) p.cqHead * Cqe.SIZE), Cqe.SIZE);
            if (cqe.valid() != p.cqPolarity) {
                break;
            }
            boolean sq = cqe.queueType() == Cqe.QTYPE_SQ;
            int wqe = cqe.wqeIndex();
            boolean error = cqe.error();
            long len = cqe.payloadLength();
            boolean ipv4 = cqe.ipv4();
            boolean extended = cqe.extended();
            if (extended) {
                // the extension sits in the next slot (irdma_puda_poll_info reads it from there)
                int next = (p.cqHead + 1) % p.cqSize;
                ext.wrap(store, hw.off(p.cqRing + (long) next * Cqe.SIZE), CqeExtension.SIZE);
            }
            advance(p, extended ? 2 : 1);
            if (sq) {
                if (wqe >= 0 && wqe < PUDA_SQ && p.txBusy != null) {
                    p.txBusy[wqe] = false;
                    ilqSendsCompleted++;
                }
            } else if (wqe >= 0 && wqe < PUDA_RQ) {
                received(p, wqe, deliver, error, len, ipv4, extended);
            }
        }
    }

    /** The CQ's head past {@code slots} CQEs, wrapping with a polarity flip, written to the shadow area. */
    private void advance(PudaRsrc p, int slots) {
        for (int i = 0; i < slots; i++) {
            p.cqHead++;
            if (p.cqHead == p.cqSize) {
                p.cqHead = 0;
                p.cqPolarity = !p.cqPolarity;
            }
        }
        store.writeLong(hw.off(p.cqShadow), p.cqHead);
    }

    /**
     * An RQ completion: an ILQ frame is handed up if the CQE and the placed headers agree (PudaLayout.check), an IEQ
     * segment only counted; either way the buffer is reposted (puda.c irdma_puda_post_recvbuf, initial false: the
     * valid bit toggles). The extension, when {@code extended}, is the one {@link #ext} wraps.
     */
    private void received(PudaRsrc p, int wqe, boolean deliver, boolean error, long len, boolean ipv4,
                          boolean extended) {
        long buf = hw.off(p.rxBuffers[wqe]);
        boolean accepted = !error
                && PudaLayout.check(len, PudaLayout.tcpHeaderLength(store, buf), PUDA_BUF).accepted();
        if (deliver && accepted) {
            boolean vlanValid = extended && ext.vlanValid();
            int tci = extended ? ext.vlan() : 0;
            long srcMac = extended && ext.sourceMacValid() ? ext.sourceMac() : 0;
            int frameLen = rebuildFrame(buf, (int) len, ipv4, vlanValid, tci, srcMac);
            ilqReceived++;
            upcalls.ilqReceive(rxFrame, 0, frameLen);
        } else if (deliver) {
            ilqRefused++;
        } else if (accepted) {
            ieqReceived++;
        } else {
            ieqRefused++;
        }
        rqWqe.wrap(store, hw.off(p.rq + wqe * (long) RqWqe.MIN_SIZE), RqWqe.MIN_SIZE)
                .writePuda(p.rxBuffers[wqe], PUDA_BUF, false);
    }

    /**
     * The frame as the CM reads it (cm.c irdma_receive_ilq works on the whole packet): Ethernet header from the
     * CQE extension (source MAC, VLAN tag) and this port's MAC, then the IP packet the device placed at
     * {@link PudaLayout#ipHeaderOffset} (the Ethernet header itself is stripped, see PudaLayout).
     */
    private int rebuildFrame(long buf, int placed, boolean ipv4, boolean vlanValid, int tci, long srcMac) {
        int at = PudaLayout.ipHeaderOffset(ipv4);
        int ipLen = placed - at;
        int type = ipv4 ? EthernetFrame.ETHERTYPE_IPV4 : EthernetFrame.ETHERTYPE_IPV6;
        long o = vlanValid
                ? EthernetFrame.writeTagged(rxFrame, 0, localMac, srcMac, tci, type)
                : EthernetFrame.write(rxFrame, 0, localMac, srcMac, type);
        rxFrame.write(o, store, buf + at, ipLen);
        return (int) o + ipLen;
    }

    /**
     * puda.c irdma_puda_send (gen2): the CM segment (TCP header with {@code tcpHeaderLength} bytes of header and
     * options, then the payload; cm.c irdma_form_ah_cm_frame) copied into a free ILQ send buffer, the send WQE
     * naming address handle {@code ahId} with L4LEN = the header length in words, WQEALLOC rung. False when every
     * send buffer is still in flight (irdma_puda_get_bufpool empty) or the segment does not fit.
     */
    public boolean ilqSend(int ahId, BytesStore<?, ?> segment, long offset, int length, int tcpHeaderLength) {
        if (ilq == null || length <= 0 || length > PUDA_BUF || tcpHeaderLength > length) {
            return false;
        }
        PudaRsrc p = ilq;
        int idx = p.sqHead;
        if (p.txBusy[idx]) {
            return false;
        }
        long buf = p.txBuffers[idx];
        store.write(hw.off(buf), segment, offset, length);
        p.txBusy[idx] = true;
        sqWqe.wrap(store, hw.off(p.sq + idx * (long) SqWqe.QUANTUM), SqWqe.QUANTUM)
                .writePudaSend(p.sqPolarity, buf, length, tcpHeaderLength, ahId);
        p.sqHead++;
        if (p.sqHead == PUDA_SQ) {
            p.sqHead = 0;
            p.sqPolarity = !p.sqPolarity;
        }
        hw.write(Gen2Register.WQEALLOC, Gen2Registers.wqeAllocDoorbell(p.qpId));
        return true;
    }

    /** ILQ receives not handed up: an error CQE or a placed length the headers contradict (PudaLayout.check). */
    public long ilqRefused() {
        return ilqRefused;
    }

    /** ILQ receives handed up to the CM. */
    public long ilqReceived() {
        return ilqReceived;
    }

    /**
     * Exception segments of offloaded QPs the IEQ received (out of order, or ending inside an FPDU). The model's QP
     * reassembles them itself, so this layer accounts for them and reposts the buffer; it does not run irdma's
     * IEQ reassembly (puda.c irdma_ieq_process_fpdus).
     */
    public long ieqReceived() {
        return ieqReceived;
    }

    /** IEQ completions with an error or a layout that irdma_puda_get_tcpip_info would refuse. */
    public long ieqRefused() {
        return ieqRefused;
    }

    /** ILQ sends whose completion came (their buffer free again). */
    public long ilqSendsCompleted() {
        return ilqSendsCompleted;
    }
}
