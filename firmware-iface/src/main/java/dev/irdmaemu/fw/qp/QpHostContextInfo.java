package dev.irdmaemu.fw.qp;

/**
 * The QP-level fields of type.h struct irdma_qp_host_ctx_info that irdma_sc_qp_setctx writes for an iWARP QP
 * (the info pointers themselves are passed separately; {@code tcpInfoValid} / {@code iwarpInfoValid} say which
 * halves are written).
 */
public record QpHostContextInfo(
    long qpComplCtx,
    int sendCqNum,
    int rcvCqNum,
    int remEndpointIdx,
    int statsIdx,
    boolean statsIdxValid,
    boolean tcpInfoValid,
    boolean iwarpInfoValid) {
}
