package dev.irdmaemu.driver.verbs;

/**
 * The asynchronous events an offloaded QP raises about its connection, the ones hw.c irdma_process_aeq and cm.c
 * irdma_cm_disconn_true turn into CM work: the RTS AE ({@code IRDMA_AE_LLP_CONNECTION_ESTABLISHED}, which
 * irdma_accept and irdma_cm_event_connected wait for), the peer's FIN ({@code IRDMA_AE_LLP_FIN_RECEIVED}), both
 * FINs exchanged ({@code IRDMA_AE_LLP_CLOSE_COMPLETE}), a reset from the peer ({@code IRDMA_AE_LLP_CONNECTION_RESET}),
 * a reset this side sent ({@code IRDMA_AE_RESET_SENT}, {@code IRDMA_AE_BAD_CLOSE}) and the end of a terminate
 * (a Terminate sent or received, then the QP in error: DISCONNECT and CLOSE with status 0).
 */
public enum QpEvent {
    FIN_RECEIVED,
    CLOSE_COMPLETE,
    CONNECTION_RESET,
    RESET_SENT,
    ESTABLISHED,
    TERMINATED
}
