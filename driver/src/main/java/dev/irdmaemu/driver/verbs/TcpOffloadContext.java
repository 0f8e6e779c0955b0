package dev.irdmaemu.driver.verbs;

/**
 * The TCP connection the CM hands to the hardware QP (irdma cm.c irdma_init_tcp_ctx): the state the software TCP
 * reached during setup. Sequence numbers are unsigned 32-bit values held in longs. The fixed knobs irdma sets
 * (TTL 0x40, RTT variance 6, slow-start threshold 0x3fffffff, retransmit threshold 8, cwnd 2*MSS) are included so
 * the device model receives exactly what the driver programs.
 */
public record TcpOffloadContext(
        boolean ipv4,
        long localHi, long localLo, int localPort,
        long remoteHi, long remoteLo, int remotePort,
        long localMac, long remoteMac,
        int vlanId, int userPriority, boolean insertVlanTag,
        int ttl, int tos,
        long sndNxt, long sndUna, long sndMax, long rcvNxt,
        long sndWnd, long maxSndWnd, long rcvWnd,
        int sndWscale, int rcvWscale,
        int mss, long cwnd, long sndWl1, long sndWl2,
        int rttVar, long ssThresh, int rexmitThresh,
        boolean loopback) {

    /** The 802.1Q TCI the hardware inserts: priority in bits 15..13, VID in 11..0 (irdma_init_tcp_ctx). */
    public int vlanTag() {
        return (userPriority << 13) | (vlanId & 0xfff);
    }
}
