package dev.irdmaemu.driver.verbs;

import static dev.irdmaemu.driver.verbs.QueuePair.STATE_ERROR;
import static dev.irdmaemu.driver.verbs.QueuePair.STATE_TERMINATE;
import static dev.irdmaemu.driver.verbs.QueuePair.TERM_DONE;
import static dev.irdmaemu.driver.verbs.QueuePair.TERM_RCVD;
import static dev.irdmaemu.driver.verbs.QueuePair.TERM_SENT;

import dev.irdmaemu.driver.AsyncEvent;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.sim.SimTimer;

/**
 * A QP's iWARP terminate as ctrl.c and utils.c handle it: a Terminate built in Q2 and sent (irdma_terminate_connection),
 * the FIN after it (irdma_terminate_send_fin), a received Terminate checked and acted on (irdma_terminate_received),
 * the terminate timer (irdma_terminate_start_timer / irdma_terminate_del_timer, HZ) and the end of it all
 * (utils.c irdma_terminate_done).
 */
final class QpTerminate {
    private final QueuePair qp;
    private final Q2Buffer q2 = new Q2Buffer();
    private final TerminateBuilder terminate = new TerminateBuilder();
    private final SimTimer timer;

    QpTerminate(QueuePair qp) {
        this.qp = qp;
        this.timer = qp.driver.scheduler().newTimer("qp-terminate", this::timedOut);
    }

    /** The Terminate header last built for this QP, as it sits in Q2. */
    TerminateBuilder builder() {
        return terminate;
    }

    /** ctrl.c irdma_terminate_connection: the Terminate header in Q2, the timer, Modify QP to TERMINATE. */
    void terminateConnection(AsyncEvent ae) {
        if ((qp.termFlags & TERM_SENT) != 0) {
            return;
        }
        q2.wrap(qp.store, qp.driver.offsetOf(qp.q2Address));
        int termLen = terminate.build(q2, ae.aeCode, ae.q2DataWritten != 0);
        qp.flushCode = terminate.flushCode();
        qp.eventType = terminate.eventType();
        qp.sqFlushCode = ae.sq;
        qp.rqFlushCode = ae.rq;
        startTimer();
        qp.termFlags |= TERM_SENT;
        qp.modifier.nextIwState(STATE_TERMINATE, false, QueuePair.TERM_SEND_TERM_ONLY, termLen);
    }

    /** ctrl.c irdma_terminate_send_fin. */
    void sendFin() {
        qp.modifier.nextIwState(STATE_TERMINATE, false, QueuePair.TERM_SEND_FIN_ONLY, 0);
    }

    /**
     * ctrl.c irdma_terminate_received: a Terminate the device copied into Q2 is checked (DDP untagged last, version
     * 1, QN 2, MSN 1, MO 0, RDMAP version 1); a bad one is answered with a Terminate; a good one from the remote
     * peer's RDMAP ends the QP at once, otherwise the FIN follows and the timer runs.
     */
    void received(AsyncEvent ae) {
        q2.wrap(qp.store, qp.driver.offsetOf(qp.q2Address));
        int mpa = q2.locateMpa();
        if (ae.q2DataWritten != 0) {
            int code = badTerminateCode(mpa);
            if (code != 0) {
                // the Terminate is answered as an AE of this code would be: a copy of the AE in the QP's own event,
                // so the driver's (which it hands on after this) keeps the device's code
                qp.synthetic.copyFrom(ae).aeCode = code;
                terminateConnection(qp.synthetic);
                return;
            }
        }
        qp.termFlags |= TERM_RCVD;
        qp.eventType = FlushCode.EVENT_CATASTROPHIC;
        // irdma compares layer_etype with RDMAP_REMOTE_PROT / RDMAP_REMOTE_OP: layer RDMAP and one of those types
        Terminate peer = q2.frameTerminate();
        if (peer.layer() == Terminate.LAYER_RDMAP && (peer.errorType() == Terminate.Rdmap.ETYPE_REMOTE_PROTECTION
                || peer.errorType() == Terminate.Rdmap.ETYPE_REMOTE_OPERATION)) {
            done(false);
        } else {
            startTimer();
            sendFin();
        }
    }

    /**
     * The device did not validate the Terminate: irdma checks its DDP and RDMAP control as RFC 5040 §4.8 sends it
     * (untagged, last, DDP version 1, queue 2, MSN 1, MO 0, RDMAP version 1). Answers the AE code a bad one is
     * answered with, 0 for a good one.
     */
    private int badTerminateCode(int mpa) {
        DdpHeader ddp = q2.frameDdp();
        if (mpa < 0 || ddp.tagged() || !ddp.last()) {
            return AeCode.LCE_QP_CATASTROPHIC.code();
        } else if (ddp.ddpVersion() != DdpHeader.DDP_VERSION) {
            return AeCode.DDP_UBE_INVALID_DDP_VERSION.code();
        } else if (ddp.queueNumber() != RdmapOpcode.QN_TERMINATE) {
            return AeCode.DDP_UBE_INVALID_QN.code();
        } else if (ddp.msn() != 1) {
            return AeCode.DDP_INVALID_MSN_GAP_IN_MSN.code();
        } else if (ddp.messageOffset() != 0) {
            return AeCode.DDP_UBE_INVALID_MO.code();
        } else if (ddp.rdmapVersion() != DdpHeader.RDMAP_VERSION) {
            return AeCode.RDMAP_ROE_INVALID_RDMAP_VERSION.code();
        }
        return 0;
    }

    private void timedOut() {
        done(true);
    }

    /** utils.c irdma_terminate_done. */
    void done(boolean timeout) {
        if (qp.destroyed) {
            return;
        }
        boolean hte = qp.hteAdded;
        qp.hteAdded = false;
        boolean first = (qp.termFlags & TERM_DONE) == 0;
        qp.termFlags |= TERM_DONE;
        if (first) {
            if (!timeout) {
                cancelTimer();
            }
            qp.modifier.nextIwState(STATE_ERROR, hte, 0, 0);
            qp.disconnect.cmDisconnect();
        }
    }

    private void startTimer() {
        timer.scheduleIn(QueuePair.TERMINATE_TIMEOUT_NANOS);
    }

    /** utils.c irdma_terminate_del_timer. */
    void cancelTimer() {
        timer.cancel();
    }
}
