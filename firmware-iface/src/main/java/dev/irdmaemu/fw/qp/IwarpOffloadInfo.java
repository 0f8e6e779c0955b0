package dev.irdmaemu.fw.qp;

/**
 * The iWARP part of a QP context (type.h struct irdma_iwarp_offload_info) as irdma_sc_qp_setctx writes it.
 * {@code irdSize} is the driver's IRD (rounded and encoded by irdma_sc_get_encoded_ird_size on the way in);
 * {@code macAddr} is the local MAC as a 48-bit number, first byte most significant (ether_addr_to_u64).
 * The struct's iwarp_mode and use_stats_inst are not written by irdma_sc_qp_setctx (IWARPMODE is always 1,
 * USESTATSINSTANCE comes from the host context info) and are left out.
 */
public record IwarpOffloadInfo(
    int rcvMarkOffset,
    int sndMarkOffset,
    int ddpVer,
    int rdmapVer,
    int errRqIdx,
    int pdId,
    int ordSize,
    int irdSize,
    boolean ibRdEn,
    boolean alignHdrs,
    boolean rcvNoMpaCrc,
    boolean errRqIdxValid,
    boolean sndMarkEn,
    boolean rcvMarkEn,
    boolean wrRdrespEn,
    boolean bindEn,
    boolean fastRegEn,
    boolean privModeEn,
    boolean rdEn,
    boolean timelyEn,
    boolean ecnEn,
    boolean dctcpEn,
    int tHigh,
    int tLow,
    int lastByteSent,
    long macAddr,
    int rtomin) {
}
