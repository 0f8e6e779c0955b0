package dev.irdmaemu.model.tcp;

import dev.irdmaemu.fw.queue.AeCode;

/**
 * What the offloaded TCP engine tells its QP, each mapped to the asynchronous event the E810 raises for it and
 * irdma handles in irdma_process_aeq (hw.c).
 */
public enum TcpEvent {
    /** The peer's FIN was received in order (RFC 9293 §3.10.7.4 eighth step). */
    FIN_RECEIVED(AeCode.LLP_FIN_RECEIVED),
    /** Both FINs are exchanged and ours is acknowledged: TIME_WAIT or CLOSED reached by the graceful path. */
    CLOSE_COMPLETE(AeCode.LLP_CLOSE_COMPLETE),
    /** An acceptable RST arrived (RFC 9293 §3.10.7.4 second step, RFC 5961 §3.2 exact-match rule). */
    CONNECTION_RESET(AeCode.LLP_CONNECTION_RESET),
    /** The retransmission timer expired more than the QP context's rexmit_thresh times in a row. */
    TOO_MANY_RETRIES(AeCode.LLP_TOO_MANY_RETRIES);

    private final AeCode aeCode;

    TcpEvent(AeCode aeCode) {
        this.aeCode = aeCode;
    }

    public AeCode aeCode() {
        return aeCode;
    }
}
