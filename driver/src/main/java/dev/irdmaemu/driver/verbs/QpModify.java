package dev.irdmaemu.driver.verbs;

import static dev.irdmaemu.driver.verbs.QueuePair.STATE_CLOSING;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_ERROR;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_IDLE;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_INVALID;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_RTS;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_TERMINATE;
import static dev.irdmaemu.driver.verbs.QueuePair.TCP_CLOSED;
import static dev.irdmaemu.driver.verbs.QueuePair.TCP_ESTABLISHED;
import static dev.irdmaemu.driver.verbs.QueuePair.TCP_TIME_WAIT;
import static dev.irdmaemu.driver.verbs.QueuePair.TERM_DONE;
import static dev.irdmaemu.driver.verbs.QueuePair.TERM_SEND_FIN_ONLY;
import static dev.irdmaemu.driver.verbs.QueuePair.TERM_SEND_TERM_ONLY;

import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.queue.AeCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A QP's control path: verbs.c irdma_modify_qp (a consumer's state change, and RTS for a connection), hw.c
 * irdma_next_iw_state (the driver's own moves on an AE or a terminate), utils.c irdma_hw_modify_qp's failure paths,
 * and verbs.c irdma_destroy_qp; each a Modify QP or Destroy QP with the QP's own fields (ctrl.c irdma_sc_qp_modify /
 * irdma_sc_qp_destroy).
 */
final class QpModify {
    private static final Logger LOG = LoggerFactory.getLogger(QueuePair.class);

    /** What irdma_modify_qp makes of a target state before it issues anything. */
    sealed interface Transition permits Stay, Move {
    }

    /** No Modify QP: {@link #NOTHING} leaves the QP as it is, {@link #IB_STATE} only records the verbs state. */
    enum Stay implements Transition {
        NOTHING,
        IB_STATE
    }

    /** Modify QP to iWARP state {@code next}, resetting the connection or not waiting for it to close. */
    record Move(int next, boolean reset, boolean dontWait) implements Transition {
    }

    private final QueuePair qp;
    private final QpOpFields qpf = new QpOpFields();

    QpModify(QueuePair qp) {
        this.qp = qp;
    }

    /**
     * verbs.c irdma_modify_qp with IB_QP_STATE (see {@link QueuePair#modify}).
     *
     * @throws VerbsException INVALID_ARGUMENT for a transition irdma refuses, DEVICE_ERROR when the CQP op fails
     */
    void modify(IbQpState target) {
        if (qp.destroyed) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP " + qp.id + " is destroyed");
        }
        int curr = qp.iwarpState;
        Transition t = plan(target);
        if (t == Stay.NOTHING) {
            return;
        }
        qp.ibState = target;
        if (!(t instanceof Move m)) {
            return;
        }
        qpOp();
        qpf.nextIwarpState = m.next();
        qpf.resetConnection = m.reset();
        try {
            qp.driver.cqp().modifyQp(qpf);
        } catch (CqpException e) {
            modifyFailed(m.next(), curr);
            throw new VerbsException("modify QP " + qp.id + " to " + target, e);
        }
        if (qp.iwarpState == curr) {
            qp.iwarpState = m.next();
        }
        if (qp.ibState.compareTo(IbQpState.RTS) > 0) {
            if (m.dontWait()) {
                if (qp.hwTcpState != 0) {
                    qp.hwTcpState = TCP_CLOSED;
                    qp.lastAe = AeCode.RESET_SENT.code();
                }
                qp.disconnect.cmDisconnect();
            } else if (qp.connection != null) {
                // the close timer is the CM's (its backstop for a QP close, cm.c IRDMA_TIMER_TYPE_CLOSE)
                qp.closeTimerStarted++;
            }
        }
    }

    /** irdma_modify_qp's switch over the target state: what to issue, or a refusal. */
    private Transition plan(IbQpState target) {
        int iw = qp.iwarpState;
        switch (target) {
            case INIT, RTR -> {
                if (iw > STATE_IDLE) {
                    throw invalid("is past IDLE");
                }
                return iw == STATE_INVALID ? new Move(STATE_IDLE, false, false) : Stay.IB_STATE;
            }
            case RTS -> throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT,
                    "RTS comes with a connection (irdma_modify_qp needs a cm_id)");
            case SQD -> {
                if (qp.hwIwarpState > STATE_RTS || iw == STATE_CLOSING || iw < STATE_RTS) {
                    return Stay.NOTHING;
                }
                if (iw > STATE_CLOSING) {
                    throw invalid("is past CLOSING");
                }
                return new Move(STATE_CLOSING, false, false);
            }
            case SQE -> {
                if (iw >= STATE_TERMINATE) {
                    throw invalid("is terminating");
                }
                return new Move(STATE_TERMINATE, false, false);
            }
            default -> {
                // ERR and RESET
                if (iw == STATE_ERROR) {
                    return Stay.IB_STATE;
                }
                if (qp.termFlags != 0) {
                    qp.term.cancelTimer();
                }
                boolean reset = qp.hwTcpState > TCP_CLOSED && qp.hwTcpState != TCP_TIME_WAIT;
                return new Move(STATE_ERROR, reset, !reset);
            }
        }
    }

    private VerbsException invalid(String why) {
        return new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP " + qp.id + " " + why);
    }

    /**
     * utils.c irdma_hw_modify_qp's failure path (waiting): a close or terminate the device refused makes the QP
     * TERM_DONE and moves it to ERROR with a reset.
     */
    private void modifyFailed(int next, int curr) {
        if (next == STATE_RTS || next == STATE_IDLE || next == STATE_TERMINATE || next == STATE_CLOSING) {
            if (curr != STATE_IDLE) {
                qp.termFlags = TERM_DONE;
            }
            qpf.nextIwarpState = STATE_ERROR;
            qpf.resetConnection = true;
            try {
                qp.driver.cqp().modifyQp(qpf);
            } catch (CqpException e) {
                LOG.debug("QP {}: modify to ERROR after a failed modify: {}", qp.id, e.getMessage());
            }
        }
    }

    /**
     * The fields every QP op of this QP carries (ctrl.c irdma_sc_qp_modify / _destroy take them from the QP: its
     * id, type, host context and shadow area), the rest cleared, into {@link #qpf}.
     */
    private void qpOp() {
        qpf.clear();
        qpf.qpId = qp.id;
        qpf.qpType = QueuePair.QP_TYPE_IWARP;
        qpf.hostContextAddress = qp.hostContextAddress;
        qpf.shadowAreaAddress = qp.shadowAddress;
        // ctrl.c irdma_sc_qp_modify writes IRDMA_CQPSQ_QP_VQ from the QP (the destroy op has no such field)
        qpf.virtualMap = qp.virtualMap;
    }

    /**
     * verbs.c irdma_modify_qp to IB_QPS_RTS for a connection: Modify QP with the TCP context, ORD, ARP index and CQ
     * numbers valid. The device starts the connection WQEs at SQ index 0 once the QP is in RTS.
     */
    void moveToRts(ConnectionEvents events) {
        if (qp.iwarpState > STATE_RTS) {
            throw invalid("is past RTS");
        }
        qp.connection = events;
        qp.hwTcpState = TCP_ESTABLISHED;
        qp.hteAdded = true;
        qpOp();
        qpf.nextIwarpState = STATE_RTS;
        qpf.tcpContextValid = true;
        qpf.ordValid = true;
        qpf.arpIndexValid = true;
        qpf.cqNumValid = true;
        try {
            qp.driver.cqp().modifyQp(qpf);
        } catch (CqpException e) {
            qp.connection = null;
            throw new VerbsException("modify QP " + qp.id + " to RTS", e);
        }
        qp.iwarpState = STATE_RTS;
        qp.ibState = IbQpState.RTS;
    }

    /** Forgets the connection (cm.c irdma_destroy_connection: iwqp->cm_node = NULL). */
    void unbind() {
        qp.connection = null;
    }

    /**
     * hw.c irdma_next_iw_state: Modify QP (CQ numbers and ARP index valid) to {@code state}, removing the hash entry
     * when asked, sending a Terminate of {@code termLen} bytes and / or a FIN as {@code term} says, and resetting
     * the connection when a terminate is under way and the QP goes to ERROR. The device's answer is not awaited in
     * irdma; here the op completes before the call returns, and a refusal is handled as irdma_hw_modify_qp does.
     */
    void nextIwState(int state, boolean delHash, int term, int termLen) {
        boolean dontSendTerm = (term & TERM_SEND_TERM_ONLY) == 0;
        boolean dontSendFin = (term & TERM_SEND_FIN_ONLY) == 0;
        // ctrl.c irdma_sc_qp_modify: the term actions and the term length only for TERMINATE
        int termActions = 0;
        int len = 0;
        if (state == STATE_TERMINATE) {
            if (dontSendFin) {
                termActions += TERM_SEND_TERM_ONLY;
            }
            if (dontSendTerm) {
                termActions += TERM_SEND_FIN_ONLY;
            }
            if (termActions == 0 || termActions == TERM_SEND_TERM_ONLY) {
                len = termLen;
            }
        }
        qpOp();
        qpf.nextIwarpState = state;
        qpf.removeHashEntry = delHash;
        qpf.cqNumValid = true;
        qpf.arpIndexValid = true;
        qpf.termActions = termActions;
        qpf.termLength = len;
        qpf.resetConnection = qp.termFlags != 0 && state == STATE_ERROR;
        qp.hwIwarpState = state;
        try {
            qp.driver.cqp().modifyQp(qpf);
        } catch (CqpException e) {
            LOG.debug("QP {}: modify to state {} refused: {}", qp.id, state, e.getMessage());
            if (state != STATE_ERROR) {
                // utils.c irdma_hw_modify_qp (not waiting): TERM_DONE and a generated IRDMA_AE_BAD_CLOSE, which
                // irdma_process_aeq turns into ERROR and a disconnect
                qp.termFlags = TERM_DONE;
                qp.events.asyncEvent(qp.synthetic.set(qp.id, AeCode.BAD_CLOSE.code(), 0, qp.hwIwarpState,
                        qp.hwTcpState, 0));
            }
            return;
        }
        qp.iwarpState = state;
    }

    /**
     * verbs.c irdma_destroy_qp (_irdma_destroy_qp): ERROR first when the QP was ever moved, its CQEs cleaned from
     * its CQs, the LSMM region freed, then Destroy QP with IRDMA_CQPSQ_QP_REMOVEHASHENTRY and the id and memory
     * returned.
     */
    void destroy() {
        if (qp.destroyed) {
            return;
        }
        qp.queues.destroyPending = true;
        if (qp.iwarpState >= STATE_IDLE && qp.iwarpState != STATE_ERROR) {
            try {
                modify(IbQpState.ERR);
            } catch (VerbsException e) {
                LOG.debug("QP {}: to ERROR before destroy: {}", qp.id, e.getMessage());
            }
        }
        qp.destroyed = true;
        qp.flusher.cancel();
        qp.term.cancelTimer();
        qp.disconnect.cancel();
        qp.sendCq.ring.clean(qp.queues.handle);
        if (qp.recvCq != qp.sendCq) {
            qp.recvCq.ring.clean(qp.queues.handle);
        }
        if (qp.lsmmRegion != null) {
            qp.verbs.deregister(qp.lsmmRegion);
            qp.lsmmRegion = null;
        }
        qpOp();
        qpf.removeHashEntry = true;
        CqpException failure = null;
        try {
            qp.driver.cqp().destroyQp(qpf);
        } catch (CqpException e) {
            failure = e;
        }
        ConnectionEvents cm = qp.connection;
        qp.connection = null;
        qp.verbs.released(qp);
        if (cm != null) {
            // the consumer destroyed a QP that still carried a connection: irdma's ERROR with reset ends it (the
            // QP's close timer in cm.c); its events can no longer come from a QP that is gone, so the CM hears now
            cm.connectionEvent(qp, QpEvent.RESET_SENT);
        }
        if (failure != null) {
            throw new VerbsException("destroy QP " + qp.id, failure);
        }
    }
}
