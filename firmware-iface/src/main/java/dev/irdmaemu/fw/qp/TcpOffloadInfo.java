package dev.irdmaemu.fw.qp;

/**
 * The TCP offload part of a QP context (type.h struct irdma_tcp_offload_info), the fields
 * irdma_sc_qp_setctx writes for gen2; irdma_init_tcp_ctx (cm.c) fills them from the connection the CM set up.
 * Addresses follow the driver's arrays: IPv4 lives in index 3 ({@code destIp3}, {@code localIp3}), IPv6 is
 * indices 0..3, most significant first. Unsigned fields are held in wider Java types. Gen1's
 * src_mac_addr_idx is not written for gen2 (the MAC comes from the ARP index and {@link IwarpOffloadInfo#macAddr}).
 */
public record TcpOffloadInfo(
    boolean ipv4,
    boolean noNagle,
    boolean insertVlanTag,
    boolean timeStamp,
    boolean dropOooSeg,
    boolean avoidStretchAck,
    boolean wscale,
    boolean ignoreTcpOpt,
    boolean ignoreTcpUnsOpt,
    int cwndIncLimit,
    int dupAckThresh,
    int ttl,
    int tos,
    int srcPort,
    int dstPort,
    int destIp0,
    int destIp1,
    int destIp2,
    int destIp3,
    long sndMss,
    int synRstHandling,
    int vlanTag,
    int arpIdx,
    int flowLabel,
    int tcpState,
    int sndWscale,
    int rcvWscale,
    long timeStampRecent,
    long timeStampAge,
    long sndNxt,
    long sndWnd,
    long rcvNxt,
    long rcvWnd,
    long sndMax,
    long sndUna,
    long srtt,
    long rttVar,
    long ssThresh,
    long cwnd,
    long sndWl1,
    long sndWl2,
    long maxSndWindow,
    int rexmitThresh,
    int localIp0,
    int localIp1,
    int localIp2,
    int localIp3) {
}
