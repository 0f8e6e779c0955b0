package dev.irdmaemu.model.qp;

/** The iWARP QP states the device keeps, with their IRDMA_QP_STATE_* values (defs.h). */
public enum QpState {
    INVALID(0), IDLE(1), RTS(2), CLOSING(3), RTR(4), TERMINATE(5), ERROR(6);

    private static final QpState[] BY_CODE = {INVALID, IDLE, RTS, CLOSING, RTR, TERMINATE, ERROR};

    private final int code;

    QpState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The state for a 3-bit IRDMA_CQPSQ_QP_NEXTIWSTATE value, null for 7. */
    public static QpState of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /**
     * Whether Modify QP may move a QP from this state to {@code next}. The model follows the iWARP verbs state
     * diagram (RFC 5040 §8 and the irdma_modify_qp transitions in verbs.c): IDLE -> RTS once offloaded, RTS ->
     * CLOSING / TERMINATE / ERROR, CLOSING and TERMINATE -> ERROR or back to IDLE after close, ERROR -> IDLE for
     * reuse; every state may go to ERROR and may stay where it is (a context update).
     */
    public boolean canMoveTo(QpState next) {
        if (next == this || next == ERROR) {
            return this != INVALID;
        }
        return switch (this) {
            case IDLE -> next == RTS || next == RTR;
            case RTR -> next == RTS;
            case RTS -> next == CLOSING || next == TERMINATE;
            case CLOSING, TERMINATE -> next == IDLE || next == CLOSING;
            case ERROR -> next == IDLE;
            default -> false;
        };
    }

    /**
     * Whether Modify QP may move a RoCE QP from this state to {@code next}, in the CQP's state codes as
     * irdma_modify_qp_roce (verbs.c) issues them: RESET/INIT are IDLE, RTR, RTS, SQD is code 3 ({@link #CLOSING}
     * here), SQE/ERR/RESET from a live state are ERROR, and a reused QP goes back from ERROR to IDLE. Every live state
     * may stay where it is (a context rewrite) or go to ERROR.
     */
    public boolean canMoveToRoce(QpState next) {
        if (next == this || next == ERROR) {
            return this != INVALID;
        }
        return switch (this) {
            case IDLE -> next == RTR;
            case RTR -> next == RTS;
            case RTS -> next == CLOSING;
            case CLOSING -> next == RTS;
            case ERROR -> next == IDLE;
            default -> false;
        };
    }
}
