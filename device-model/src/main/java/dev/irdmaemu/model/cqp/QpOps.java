package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpContextCheck;
import dev.irdmaemu.fw.qp.RoceQpContext;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.iwarp.FlushOutcome;
import dev.irdmaemu.model.iwarp.IwarpDataPath;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.RoceDataPath;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.OptionalLong;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The QP family of CQP ops (ctrl.c irdma_sc_qp_create, irdma_sc_qp_modify, irdma_sc_qp_destroy,
 * irdma_sc_qp_flush_wqes / irdma_sc_gen_ae): the 256-byte host context copied into the QP's HMC object and
 * checked, the SQ and RQ rings (contiguous, or PBL-mapped through {@link RingMapping}), the state transitions, and
 * the iWARP data path told of each. The QP's own established quad-hash entry is {@link QpHashEntry}'s. RoCE QPs
 * (IRDMA_QP_TYPE_ROCE_RC 3, IRDMA_QP_TYPE_ROCE_UD 4; QP1 is a UD QP with id 1 and no ISQP1 bit on gen2) carry the
 * RoCE context layout ({@link RoceQpContext}, checked by {@link RoceContextRules}); irdma rewrites it before every
 * Modify QP without setting CACHEDVARVALID (verbs.c irdma_modify_qp_roce), so it is reloaded on every one and
 * handed to the {@link RoceDataPath}.
 */
final class QpOps {
    private final HostMemory memory;
    private final Trace trace;
    private final HmcFunction hmc;
    private final HmcOps hmcOps;
    private final CqTable cqs;
    private final QpTable qps;
    private final IwarpDataPath dataPath;
    private final RingMapping rings;
    private final QpHashEntry hashEntry;
    /** The SQ's and RQ's page lists while a create op resolves them. */
    private final RingPages ringScratch = new RingPages();
    private final RingPages rqScratch = new RingPages();
    private final BytesStore<?, Void> qpCtxBuf =
            BytesStore.nativeStoreWithFixedCapacity(CqpOperations.QP_CONTEXT_SIZE);
    private final QpContext qpContext = new QpContext();
    private final QpFlushFields flushFields = new QpFlushFields();
    private final RoceQpContext roceContext = new RoceQpContext();
    private final RoceDataPath roce;
    private final RoceContextRules roceRules;

    QpOps(HostMemory memory, Trace trace, HmcFunction hmc, HmcOps hmcOps, CqTable cqs, QpTable qps,
          IwarpDataPath dataPath, RingMapping rings, QpHashEntry hashEntry, RoceDataPath roce,
          RoceContextRules roceRules) {
        this.roce = roce;
        this.roceRules = roceRules;
        this.memory = memory;
        this.trace = trace;
        this.hmc = hmc;
        this.hmcOps = hmcOps;
        this.cqs = cqs;
        this.qps = qps;
        this.dataPath = dataPath;
        this.rings = rings;
        this.hashEntry = hashEntry;
    }

    /**
     * Copies the 256-byte host context into the QP's HMC object and wraps {@link #qpContext} on it: the object's
     * host address, or empty when the op failed (the object does not resolve, the context or the object page is
     * outside host memory). CQP-op time only, so the answer may allocate.
     */
    private OptionalLong loadContext(int qpId, long hostContext, CqpResult r) {
        if (!hmcOps.objectResolves(HmcObjectType.QP, qpId, r)) {
            return OptionalLong.empty();
        }
        long obj = hmc.located();
        if (!memory.copyOut(hostContext, qpCtxBuf, 0, CqpOperations.QP_CONTEXT_SIZE)) {
            r.fail(CqpFault.DMA_FAULT, "QP host context outside mapped memory");
            return OptionalLong.empty();
        }
        if (!memory.copyIn(obj, qpCtxBuf, 0, CqpOperations.QP_CONTEXT_SIZE)) {
            r.fail(CqpFault.HMC_NOT_READY, "QP object page too small");
            return OptionalLong.empty();
        }
        int region = memory.find(obj, CqpOperations.QP_CONTEXT_SIZE);
        qpContext.wrap(memory.store(region), memory.offset(region, obj), CqpOperations.QP_CONTEXT_SIZE);
        roceContext.wrap(memory.store(region), memory.offset(region, obj), CqpOperations.QP_CONTEXT_SIZE);
        return OptionalLong.of(obj);
    }

    void createQp(CqpWqe w, CqpResult r) {
        int id = w.qpId();
        int type = w.qpType();
        if (id >= qps.capacity()) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "QP id beyond the model's table");
            return;
        }
        if (qps.get(id) != null) {
            r.fail(CqpFault.OBJECT_IN_USE, "QP exists");
            return;
        }
        boolean roceType = isRoce(type);
        if (!typeAccepted(w, type, r)) {
            return;
        }
        QpState next = QpState.of(w.qpNextIwarpState());
        if (next == QpState.INVALID) {
            next = QpState.IDLE;
        }
        if (next != QpState.IDLE && next != QpState.RTS) {
            r.fail(CqpFault.INVALID_STATE, "a QP is created IDLE or RTS");
            return;
        }
        OptionalLong loaded = loadContext(id, w.qpHostContextAddress(), r);
        if (loaded.isEmpty()) {
            return;
        }
        long obj = loaded.getAsLong();
        boolean withTcp = w.qpTcpContextValid();
        if (type == QueuePair.TYPE_IWARP) {
            QpContextCheck c = qpContext.validate(withTcp);
            if (!c.accepted()) {
                r.fail(CqpFault.INVALID_FIELD, c.describe());
                return;
            }
        }
        if (roceType && !roceRules.accepted(w, roceContext, r)) {
            return;
        }
        if (w.qpCqNumValid()
                && (cqs.get(qpContext.txCqNum()) == null || cqs.get(qpContext.rxCqNum()) == null)) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "the QP's send or receive CQ does not exist");
            return;
        }
        long sqBytes = (long) QueuePair.QUANTUM * (4L << qpContext.sqSize());
        long rqBytes = (long) QueuePair.QUANTUM * (4L << qpContext.rqSize());
        if (w.qpVirtualMap()) {
            // verbs.c irdma_setup_virt_qp: context quadwords 1 and 2 carry the SQ's and RQ's first PBLE index
            // (irdma_handle_q_mem: one level-1 PBL, the RQ's pages after the SQ's); the QP op has no chunk size
            if (!rings.mapRing(ringScratch, PbleLayout.CHUNK_LEVEL_1, qpContext.sqPbleIndex(), sqBytes, r)
                    || !rings.mapRing(rqScratch, PbleLayout.CHUNK_LEVEL_1, qpContext.rqPbleIndex(), rqBytes, r)) {
                return;
            }
        } else if (!memory.contains(qpContext.sqAddress(), sqBytes)
                || !memory.contains(qpContext.rqAddress(), rqBytes)) {
            r.fail(CqpFault.DMA_FAULT, "SQ or RQ outside mapped memory");
            return;
        }
        if (type == QueuePair.TYPE_IWARP && next == QpState.RTS && withTcp && refusesRts(r)) {
            return;
        }
        QueuePair qp = qps.create(id, type, obj, w.qpShadowAreaAddress(), qpContext, withTcp, next);
        if (w.qpVirtualMap()) {
            qps.mapRings(qp, ringScratch, rqScratch);
        }
        if (type == QueuePair.TYPE_IWARP && next == QpState.RTS && withTcp && !hashEntry.takeOver(qp, r)) {
            qps.destroy(qp);
            return;
        }
        traceState(qp, QpState.INVALID, next);
        if (roceType) {
            roce.contextLoaded(qp, roceContext);
            roce.stateChanged(qp, QpState.INVALID, next);
            return;
        }
        dataPath.stateChanged(qp, QpState.INVALID, next, withTcp ? qpContext : null, 0, false);
    }

    /** Whether Create QP's type is modelled with the rings as given; if not the op fails. */
    private static boolean typeAccepted(CqpWqe w, int type, CqpResult r) {
        if (type != QueuePair.TYPE_IWARP && type != QueuePair.TYPE_UDA && !isRoce(type)) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "QP type is none of iWARP, UDA, RoCE RC, RoCE UD (defs.h)");
            return false;
        }
        if (w.qpVirtualMap() && type == QueuePair.TYPE_UDA) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, "PBL-mapped PUDA QP (hw.c creates the ILQ/IEQ rings coherent)");
            return false;
        }
        return true;
    }

    private static boolean isRoce(int type) {
        return type == QueuePair.TYPE_ROCE_RC || type == QueuePair.TYPE_ROCE_UD;
    }

    /**
     * Modify QP of a RoCE QP: the context is reloaded and checked whatever the op's valid bits say (irdma rewrote
     * it), the transition follows {@link QpState#canMoveToRoce}, and the RoCE data path hears both.
     */
    private void modifyRoceQp(CqpWqe w, QueuePair qp, CqpResult r) {
        QpState next = QpState.of(w.qpNextIwarpState());
        if (next == null || next == QpState.INVALID || !qp.state().canMoveToRoce(next)) {
            r.fail(CqpFault.INVALID_STATE, "RoCE QP state transition not allowed");
            return;
        }
        if (loadContext(qp.id(), w.qpHostContextAddress(), r).isEmpty() || !roceRules.accepted(w, roceContext, r)) {
            return;
        }
        qps.reload(qp, qpContext, false);
        roce.contextLoaded(qp, roceContext);
        QpState was = qp.state();
        qps.setState(qp, next);
        traceState(qp, was, next);
        roce.stateChanged(qp, was, next);
    }

    void modifyQp(CqpWqe w, CqpResult r) {
        QueuePair qp = existing(w.qpId(), r);
        if (qp == null) {
            return;
        }
        if (qp.role().roce()) {
            modifyRoceQp(w, qp, r);
            return;
        }
        QpState next = QpState.of(w.qpNextIwarpState());
        if (next == null || next == QpState.INVALID || !qp.state().canMoveTo(next)) {
            r.fail(CqpFault.INVALID_STATE, "QP state transition not allowed");
            return;
        }
        boolean withTcp = w.qpTcpContextValid();
        if (withTcp || w.qpCachedVarValid()) {
            if (loadContext(qp.id(), w.qpHostContextAddress(), r).isEmpty()) {
                return;
            }
            if (qp.type() == QueuePair.TYPE_IWARP) {
                QpContextCheck c = qpContext.validate(withTcp);
                if (!c.accepted()) {
                    r.fail(CqpFault.INVALID_FIELD, c.describe());
                    return;
                }
                if (next == QpState.RTS && qp.state() != QpState.RTS && withTcp && refusesRts(r)) {
                    return;
                }
            }
            qps.reload(qp, qpContext, withTcp);
        }
        if (w.qpRemoveHashEntry()) {
            hashEntry.remove(qp);
        }
        if (qp.type() == QueuePair.TYPE_IWARP && next == QpState.RTS && withTcp && !hashEntry.takeOver(qp, r)) {
            return;
        }
        QpState was = qp.state();
        qps.setState(qp, next);
        traceState(qp, was, next);
        dataPath.stateChanged(qp, was, next, withTcp ? qpContext : null, w.qpTermActions(), w.qpResetConnection());
    }

    /** The live QP {@code id}, or null when there is none: then the op fails (no such object). */
    private QueuePair existing(int id, CqpResult r) {
        QueuePair qp = qps.get(id);
        if (qp == null) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "no such QP");
        }
        return qp;
    }

    /** Whether the loaded context cannot go to RTS ({@link IwarpDataPath#refuseRts}); if so the op fails. */
    private boolean refusesRts(CqpResult r) {
        String why = IwarpDataPath.refuseRts(qpContext);
        if (why != null) {
            r.fail(CqpFault.UNSUPPORTED_FIELD, why);
            return true;
        }
        return false;
    }

    void destroyQp(CqpWqe w, CqpResult r) {
        QueuePair qp = existing(w.qpId(), r);
        if (qp == null) {
            return;
        }
        if (w.qpRemoveHashEntry()) {
            hashEntry.remove(qp);
        }
        QpState was = qp.state();
        dataPath.release(qp.id());
        if (qp.role().roce()) {
            roce.release(qp.id());
        }
        qps.destroy(qp);
        traceState(qp, was, QpState.INVALID);
    }

    /**
     * Flush WQEs and Generate AE (opcode 0x22; ctrl.c irdma_sc_qp_flush_wqes / irdma_sc_gen_ae): the QP's
     * outstanding SQ / RQ work completes with the flush error, and / or the AE of quadword 1 is raised.
     */
    void flushWqes(CqpWqe w, CqpResult r) {
        flushFields.readFrom(w);
        QueuePair qp = existing(flushFields.qpId, r);
        if (qp == null) {
            return;
        }
        if (qp.role() != QueuePair.Role.IWARP && !qp.role().roce()) {
            // a RoCE QP has no engine there: its posted WQEs are flushed from the rings as they stand
            r.fail(CqpFault.UNSUPPORTED_FIELD, "flush of a QP without an iWARP or RoCE data path");
            return;
        }
        FlushOutcome flushed = dataPath.flush(qp, flushFields);
        if (flushed.completes()) {
            r.okWithMinor(flushed.minor());
        } else {
            r.fail(CqpFault.FLUSH_NO_WQE_PENDING, "nothing outstanding on the queues asked for");
        }
    }

    private void traceState(QueuePair qp, QpState from, QpState to) {
        TraceEvent t = trace.start(TraceKind.QP_STATE);
        if (t != null) {
            t.num("qp", qp.id()).text("role", qp.role().name()).text("from", from.name()).text("to", to.name())
                    .num("tcp_state", qp.tcpState()).num("local_port", qp.localPort())
                    .num("remote_port", qp.remotePort()).emit();
        }
    }

}
