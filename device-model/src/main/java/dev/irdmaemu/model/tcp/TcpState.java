package dev.irdmaemu.model.tcp;

/**
 * The synchronized states an offloaded connection goes through (RFC 9293 §3.3.2), with the code the hardware
 * reports for each in an AEQE's TCP state field (irdma defs.h IRDMA_TCP_STATE_*). The handshake states never
 * occur here: the driver's CM completes the handshake in software and hands the QP over in ESTABLISHED.
 */
public enum TcpState {
    CLOSED(1),
    ESTABLISHED(5),
    CLOSE_WAIT(6),
    FIN_WAIT_1(7),
    CLOSING(8),
    LAST_ACK(9),
    FIN_WAIT_2(10),
    TIME_WAIT(11);

    private final int hardwareCode;

    TcpState(int hardwareCode) {
        this.hardwareCode = hardwareCode;
    }

    /** irdma defs.h IRDMA_TCP_STATE_* value. */
    public int hardwareCode() {
        return hardwareCode;
    }
}
