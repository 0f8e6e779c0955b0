package dev.irdmaemu.model.qp;

import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.model.hmc.RingPages;

/** The QPs by id; ids are bounded by the committed HMC QP count, checked by the caller. */
public final class QpTable {
    private final QueuePair[] qps;
    private int live;

    public QpTable(int capacity) {
        this.qps = new QueuePair[capacity];
    }

    public int capacity() {
        return qps.length;
    }

    /** The live QP {@code id}, or null. */
    public QueuePair get(int id) {
        if (id < 0 || id >= qps.length) {
            return null;
        }
        QueuePair qp = qps[id];
        return qp != null && qp.live ? qp : null;
    }

    /**
     * Creates QP {@code id} from its (validated) context in HMC; {@code shadowArea} is the Create QP WQE's shadow
     * area address (not checked: the data path counts writes it cannot make).
     */
    public QueuePair create(int id, int type, long contextAddress, long shadowArea, QpContext ctx, boolean withTcp,
                            QpState initial) {
        QueuePair qp = qps[id];
        if (qp == null) {
            qp = new QueuePair(id);
            qps[id] = qp;
        }
        qp.type = type;
        qp.role = type == QueuePair.TYPE_IWARP ? QueuePair.Role.IWARP
                : type == QueuePair.TYPE_ROCE_RC ? QueuePair.Role.ROCE_RC
                : type == QueuePair.TYPE_ROCE_UD ? QueuePair.Role.ROCE_UD
                : id == QueuePair.ILQ_QP_ID ? QueuePair.Role.ILQ
                : id == QueuePair.IEQ_QP_ID ? QueuePair.Role.IEQ : QueuePair.Role.OTHER_UDA;
        qp.contextAddress = contextAddress;
        qp.shadowArea = shadowArea;
        qp.tcpState = 0;
        qp.mpaFraming = QueuePair.MpaFraming.UNCHECKED;
        qp.sndNxt = 0;
        qp.rcvNxt = 0;
        qp.steering.clear();
        qp.flushed.clear();
        qp.virtualMap = false;
        qp.load(ctx, withTcp);
        qp.resetRings();
        qp.state = initial;
        qp.live = true;
        live++;
        return qp;
    }

    /**
     * Create QP with VQ: the SQ and RQ page lists the CQP op resolved replace the context's addresses, for the
     * QP's life (a Modify QP's context rewrite carries the same PBLE indexes; the device keeps what it cached).
     */
    public void mapRings(QueuePair qp, RingPages sq, RingPages rq) {
        qp.sqRing.copyFrom(sq);
        qp.rqRing.copyFrom(rq);
        qp.virtualMap = true;
    }

    /** Re-reads the context after a Modify QP that carries one. */
    public void reload(QueuePair qp, QpContext ctx, boolean withTcp) {
        qp.load(ctx, withTcp);
    }

    public void setState(QueuePair qp, QpState s) {
        qp.state = s;
    }

    public void destroy(QueuePair qp) {
        qp.live = false;
        qp.sqRing.release();
        qp.rqRing.release();
        qp.virtualMap = false;

        qp.state = QpState.INVALID;
        live--;
    }

    public int liveCount() {
        return live;
    }
}
