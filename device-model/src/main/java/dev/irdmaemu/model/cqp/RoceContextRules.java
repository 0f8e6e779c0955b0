package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.qp.RoceQpContextCheck;
import dev.irdmaemu.fw.qp.RoceQpContext;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.qp.CqTable;

/**
 * The checks a RoCE QP's context (ctrl.c irdma_sc_qp_setctx_roce_gen_2) must pass at Create QP and at every
 * Modify QP before the device acts on it: the layout's own rules ({@link RoceQpContext#validate()}: path MTU,
 * transport version, UDP port, IRD code, queue sizes) and the device's tables: both CQs must exist whenever the
 * op says the CQ numbers are valid, the ARP index must lie below the committed ARP count whenever the op says it
 * is valid (index 0 is allowed: irdma's QP1 carries it into RTR and RTS). The PD needs no check of its own: the
 * context's PDIDXHI:PDIDX field is 18 bits wide, exactly the PD space (user.h IRDMA_MAX_PDS, 262144), and the model has no PD table to look it up in.
 */
final class RoceContextRules {
    private final CqTable cqs;
    private final ArpTable arp;

    RoceContextRules(CqTable cqs, ArpTable arp) {
        this.cqs = cqs;
        this.arp = arp;
    }

    /** Whether {@code c} may be used; if not the op fails with the reason. */
    boolean accepted(CqpWqe w, RoceQpContext c, CqpResult r) {
        RoceQpContextCheck check = c.validate();
        if (!check.accepted()) {
            r.fail(check == RoceQpContextCheck.CONGESTION_CONTROL ? CqpFault.UNSUPPORTED_FIELD : CqpFault.INVALID_FIELD,
                    check.describe());
            return false;
        }
        if (w.qpCqNumValid() && (cqs.get(c.txCqNum()) == null || cqs.get(c.rxCqNum()) == null)) {
            r.fail(CqpFault.NO_SUCH_OBJECT, "the QP's send or receive CQ does not exist");
            return false;
        }
        if (w.qpArpIndexValid() && !arp.inRange(c.arpIdx())) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "IRDMAQPC_ARPIDX at or above the committed ARP count");
            return false;
        }
        return true;
    }
}
