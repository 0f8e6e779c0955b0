package dev.irdmaemu.driver;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.Aeqe;

/**
 * One AEQE as the driver understands it (type.h struct irdma_aeqe_info, filled by ctrl.c irdma_sc_get_next_aeqe
 * for gen2): the QP or CQ id, the AE code and source, the QP's iWARP and TCP states, whether the device copied the
 * offending frame into the QP's Q2 buffer, and which object and queue the event is about. Mutable and reused by
 * the driver: valid only during the {@link IrdmaDriver.DeviceEvents#asyncEvent} call.
 */
public final class AsyncEvent {
    public int qpCqId;
    public int aeCode;
    public int source;
    /** IRDMA_AEQE_IWSTATE: the QP's iWARP state (defs.h IRDMA_QP_STATE_*). */
    public int iwarpState;
    /** IRDMA_AEQE_TCPSTATE: the QP's TCP state (defs.h IRDMA_TCP_STATE_*). */
    public int tcpState;
    /** IRDMA_AEQE_Q2DATA: non-zero when the device wrote the frame into the QP's Q2 at Q2_BAD_FRAME_OFFSET. */
    public int q2DataWritten;
    /** IRDMA_AEQE_WQDESCIDX: the WQE index the event is about (err_rq_idx for RQ events). */
    public int wqeIndex;
    public long completionContext;
    public boolean overflow;
    /** The event is about a QP (info->qp), or a CQ (info->cq). */
    public boolean qp;
    public boolean cq;
    /** For a QP event: it came from the SQ (info->sq) or the RQ (info->rq, err_rq_idx_valid). */
    public boolean sq;
    public boolean rq;

    /** irdma_sc_get_next_aeqe (gen2): the fields, then the two switches on the AE code and the AE source. */
    public AsyncEvent decode(Aeqe e) {
        qpCqId = e.qpCqId();
        aeCode = e.aeCode();
        source = e.source();
        iwarpState = e.iwarpState();
        tcpState = e.tcpState();
        q2DataWritten = e.q2DataWritten();
        wqeIndex = e.wqeIndex();
        completionContext = e.completionContext();
        overflow = e.overflow();
        return classify();
    }

    private AsyncEvent classify() {
        qp = cq = sq = rq = false;
        AeCode code = AeCode.of(aeCode);
        int src = source;
        if (code != null) {
            switch (code.kind()) {
                case QP -> qp = true;
                case QP_IGNORE_SOURCE -> {
                    qp = true;
                    src = AeSource.RSVD;
                }
                case CQ -> {
                    cq = true;
                    src = AeSource.RSVD;
                }
                case SRQ, CQP_DEFERRED -> src = AeSource.RSVD;
                default -> {
                }
            }
        }
        switch (src) {
            case AeSource.RQ, AeSource.RQ_0011 -> {
                qp = true;
                rq = true;
            }
            case AeSource.CQ, AeSource.CQ_0110, AeSource.CQ_1010, AeSource.CQ_1110 -> cq = true;
            case AeSource.SQ, AeSource.SQ_0111 -> {
                qp = true;
                sq = true;
            }
            case AeSource.IN_RR_WR, AeSource.IN_RR_WR_1011, AeSource.OUT_RR, AeSource.OUT_RR_1111 -> qp = true;
            default -> {
            }
        }
        return this;
    }

    /** A hand-filled event (tests, and the driver's own IRDMA_AE_* it raises in software). */
    public AsyncEvent set(int qpId, int code, int src, int iwarp, int tcp, int q2Data) {
        qpCqId = qpId;
        aeCode = code;
        source = src;
        iwarpState = iwarp;
        tcpState = tcp;
        q2DataWritten = q2Data;
        wqeIndex = 0;
        completionContext = 0;
        overflow = false;
        return classify();
    }

    /** This event made a copy of {@code other}, its classification included (no reclassification). */
    public AsyncEvent copyFrom(AsyncEvent other) {
        qpCqId = other.qpCqId;
        aeCode = other.aeCode;
        source = other.source;
        iwarpState = other.iwarpState;
        tcpState = other.tcpState;
        q2DataWritten = other.q2DataWritten;
        wqeIndex = other.wqeIndex;
        completionContext = other.completionContext;
        overflow = other.overflow;
        qp = other.qp;
        cq = other.cq;
        sq = other.sq;
        rq = other.rq;
        return this;
    }

    @Override
    public String toString() {
        AeCode c = AeCode.of(aeCode);
        return (c == null ? "AE 0x" + Integer.toHexString(aeCode) : c.kernelName()) + " id " + qpCqId + " src "
                + AeSource.name(source) + " iw " + iwarpState + " tcp " + tcpState + " q2 " + q2DataWritten;
    }
}
