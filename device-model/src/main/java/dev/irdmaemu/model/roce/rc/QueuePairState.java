package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.queue.AeCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RC QP's state as its transport sees it, shared by requester, completer and responder: the one place the QP
 * goes to ERROR, reporting the AE once (irdma/hw.c irdma_process_aeq takes it from there: flush codes, MODIFY_QP
 * to ERROR, FLUSH_WQES).
 */
final class QueuePairState {
    private static final Logger LOG = LoggerFactory.getLogger(QueuePairState.class);

    private final RcEvents events;
    private RcState state = RcState.RESET;

    QueuePairState(RcEvents events) {
        this.events = events;
    }

    RcState current() {
        return state;
    }

    void set(RcState next) {
        state = next;
    }

    boolean responds() {
        return state.responds();
    }

    boolean requests() {
        return state.requests();
    }

    /** To ERROR, raising {@code event} unless the QP was in ERROR already. */
    void fail(AeCode event) {
        if (state == RcState.ERROR) {
            return;
        }
        state = RcState.ERROR;
        AeCode ae = event == null ? AeCode.LCE_QP_CATASTROPHIC : event;
        LOG.debug("RC QP to ERROR: AE {}", ae);
        events.queuePairError(ae);
    }

    /** The AE for a {@code model.mr} refusal code, or {@code fallback} when the code names none. */
    static AeCode event(int code, AeCode fallback) {
        AeCode ae = AeCode.of(code);
        return ae == null ? fallback : ae;
    }
}
