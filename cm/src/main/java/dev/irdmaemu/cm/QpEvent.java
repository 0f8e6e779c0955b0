package dev.irdmaemu.cm;

/**
 * The asynchronous events an offloaded QP raises about its TCP connection, the ones irdma hw.c irdma_process_aeq
 * turns into CM work: the peer's FIN ({@code IRDMA_AE_LLP_FIN_RECEIVED}), both FINs exchanged
 * ({@code IRDMA_AE_LLP_CLOSE_COMPLETE}), a reset from the peer ({@code IRDMA_AE_LLP_CONNECTION_RESET}) and a reset
 * this side sent ({@code IRDMA_AE_RESET_SENT}).
 */
public enum QpEvent {
    FIN_RECEIVED,
    CLOSE_COMPLETE,
    CONNECTION_RESET,
    RESET_SENT
}
