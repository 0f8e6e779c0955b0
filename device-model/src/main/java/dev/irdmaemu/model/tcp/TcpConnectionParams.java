package dev.irdmaemu.model.tcp;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;

/**
 * Everything an {@link OffloadedTcp} starts from: the connection the CM set up (what irdma_init_tcp_ctx, cm.c,
 * writes into the QP context's TCP offload part) plus the engine's own tunables. Addresses are in the
 * {@link IpAddress} form (IPv4 mapped). Sequence numbers are unsigned 32-bit values held in longs.
 *
 * @param localMac          our MAC (QP context MAC address, 48 bits)
 * @param remoteMac         next hop's MAC (the ARP entry arp_idx names)
 * @param vlanTci           802.1Q TCI to insert, or -1 for untagged (insert_vlan_tag / vlan_tag)
 * @param sndUna            oldest unacknowledged sequence number (snd_una)
 * @param sndNxt            next sequence number to send (snd_nxt); equal to sndUna after the handshake
 * @param rcvNxt            next sequence number expected (rcv_nxt)
 * @param sndWnd            peer's last advertised window, in bytes, already scaled (snd_wnd)
 * @param sndWscale         shift applied to the window field the peer sends (RFC 7323 §2.3)
 * @param rcvWscale         shift applied to the window field we send
 * @param mss               largest segment payload to send (snd_mss), before the timestamp option's 12 bytes
 * @param timestamps        send the RFC 7323 timestamp option on every segment
 * @param tsRecent          the peer's last TSval (time_stamp_recent)
 * @param dupAckThreshold   duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2: 3)
 * @param maxRetransmits    consecutive timeouts tolerated before TOO_MANY_RETRIES (rexmit_thresh, irdma cm.h
 *                          IRDMA_DEFAULT_REXMIT_THRESH = 8)
 * @param rtoMinNanos       floor of the retransmission timeout; RFC 6298 §2.4 says 1 s, Linux uses 200 ms
 *                          (TCP_RTO_MIN), which is what the model takes by default
 * @param rtoInitialNanos   RTO before any RTT sample (RFC 6298 §2.1: 1 s)
 * @param rtoMaxNanos       ceiling of the backed-off RTO (RFC 6298 §2.5 allows ≥ 60 s; Linux TCP_RTO_MAX 120 s)
 * @param delayedAckNanos   delayed-ACK timer (RFC 1122 §4.2.3.2: under 0.5 s; Linux TCP_DELACK_MIN 40 ms)
 * @param timeWaitNanos     how long TIME_WAIT lasts (2 MSL, RFC 9293 §3.4.2; Linux TCP_TIMEWAIT_LEN 60 s)
 * @param dropOutOfOrder    drop segments beyond RCV.NXT instead of buffering them (drop_ooo_seg)
 * @param sendBufferBytes   retransmission ring size, a power of two
 * @param receiveBufferBytes reassembly ring size, a power of two; also caps the advertised window
 * @param initialCwnd       congestion window at hand-over (irdma sets 2 * MSS)
 * @param ssThresh          slow-start threshold at hand-over (irdma IRDMA_DEFAULT_SS_THRESH)
 */
public record TcpConnectionParams(
        long localMac, long remoteMac, int vlanTci, int ttl, int tos, int flowLabel,
        long localHi, long localLo, long remoteHi, long remoteLo, int localPort, int remotePort,
        long sndUna, long sndNxt, long rcvNxt, long sndWnd, int sndWscale, int rcvWscale, int mss,
        boolean timestamps, long tsRecent,
        int dupAckThreshold, int maxRetransmits, long rtoMinNanos, long rtoInitialNanos, long rtoMaxNanos,
        long delayedAckNanos, long timeWaitNanos, boolean dropOutOfOrder,
        int sendBufferBytes, int receiveBufferBytes, long initialCwnd, long ssThresh) {

    public static final int DEFAULT_DUP_ACK_THRESHOLD = 3;
    /** irdma cm.h IRDMA_DEFAULT_REXMIT_THRESH. */
    public static final int DEFAULT_MAX_RETRANSMITS = 8;
    public static final long DEFAULT_RTO_MIN = 200_000_000L;
    public static final long DEFAULT_RTO_INITIAL = 1_000_000_000L;
    public static final long DEFAULT_RTO_MAX = 120_000_000_000L;
    public static final long DEFAULT_DELAYED_ACK = 40_000_000L;
    public static final long DEFAULT_TIME_WAIT = 60_000_000_000L;
    public static final int DEFAULT_BUFFER = 256 * 1024;
    /** irdma cm.h IRDMA_DEFAULT_SS_THRESH. */
    public static final long DEFAULT_SS_THRESH = 0x3fffffffL;

    public TcpConnectionParams {
        if (Integer.bitCount(sendBufferBytes) != 1 || Integer.bitCount(receiveBufferBytes) != 1
                || sendBufferBytes > (1 << 30) || receiveBufferBytes > (1 << 30)) {
            throw new IllegalArgumentException("buffers must be powers of two up to 1 GiB");
        }
        if (mss < 64 || mss > 9000) {
            throw new IllegalArgumentException("MSS " + mss);
        }
        if (sndWscale < 0 || sndWscale > 14 || rcvWscale < 0 || rcvWscale > 14) {
            throw new IllegalArgumentException("window scale beyond 14 (RFC 7323 §2.3)");
        }
        if (rtoMinNanos <= 0 || rtoInitialNanos < rtoMinNanos || rtoMaxNanos < rtoInitialNanos) {
            throw new IllegalArgumentException("RTO bounds");
        }
        sndUna &= 0xffff_ffffL;
        sndNxt &= 0xffff_ffffL;
        rcvNxt &= 0xffff_ffffL;
        tsRecent &= 0xffff_ffffL;
    }

    public boolean ipv6() {
        return !IpAddress.isIpv4Mapped(localHi, localLo);
    }

    /**
     * The parameters the driver wrote into the QP context (irdma_sc_qp_setctx), with the engine's defaults for the
     * rest. {@code localMac} is the QP context's MAC address, {@code remoteMac} the MAC of its ARP entry; zero
     * dup_ack_thresh / rexmit_thresh fall back to the defaults.
     */
    public static TcpConnectionParams fromOffload(TcpOffloadInfo t, long localMac, long remoteMac) {
        return fromOffload(t, localMac, remoteMac, 0);
    }

    /**
     * As {@link #fromOffload(TcpOffloadInfo, long, long)}, with the retransmission timer from the context too.
     * The unit of the E810's TCP timers is not visible to the driver; the model reads IRDMAQPC_RTOMIN
     * ({@code rtoMinMillis}, irdma writes 5: verbs.c irdma_iw_fill_and_set_qpctx_info) as the RTO floor in
     * milliseconds and starts the RTO at SRTT + 4 RTTVAR (RFC 6298 §2.3) in the same unit (irdma_init_tcp_ctx
     * writes SRTT 0 and RTTVAR IRDMA_DEFAULT_RTT_VAR, 6), never below the floor. Zero fields keep the defaults
     * (200 ms floor, 1 s initial RTO). The delayed-ACK timer stays under half the floor: RFC 1122 §4.2.3.2 bounds
     * it only from above, and one longer than the RTO would have every lone segment retransmitted.
     */
    public static TcpConnectionParams fromOffload(TcpOffloadInfo t, long localMac, long remoteMac,
                                                  int rtoMinMillis) {
        long rtoMin = rtoMinMillis > 0 ? rtoMinMillis * 1_000_000L : DEFAULT_RTO_MIN;
        long fromContext = (t.srtt() + 4 * t.rttVar()) * 1_000_000L;
        long rtoInitial = rtoMinMillis > 0 && t.rttVar() > 0 ? Math.max(rtoMin, fromContext)
                : Math.max(rtoMin, DEFAULT_RTO_INITIAL);
        long lh;
        long ll;
        long rh;
        long rl;
        if (t.ipv4()) {
            lh = IpAddress.IPV4_MAPPED_HI;
            ll = IpAddress.mappedLo(t.localIp3());
            rh = IpAddress.IPV4_MAPPED_HI;
            rl = IpAddress.mappedLo(t.destIp3());
        } else {
            lh = (long) t.localIp0() << 32 | (t.localIp1() & 0xffff_ffffL);
            ll = (long) t.localIp2() << 32 | (t.localIp3() & 0xffff_ffffL);
            rh = (long) t.destIp0() << 32 | (t.destIp1() & 0xffff_ffffL);
            rl = (long) t.destIp2() << 32 | (t.destIp3() & 0xffff_ffffL);
        }
        int mss = (int) Math.max(64, Math.min(9000, t.sndMss()));
        return new TcpConnectionParams(localMac, remoteMac, t.insertVlanTag() ? t.vlanTag() & 0xffff : -1,
                t.ttl(), t.tos(), t.flowLabel(), lh, ll, rh, rl, t.srcPort(), t.dstPort(),
                t.sndUna(), t.sndNxt(), t.rcvNxt(), t.sndWnd(), t.wscale() ? t.sndWscale() : 0,
                t.wscale() ? t.rcvWscale() : 0, mss, t.timeStamp(), t.timeStampRecent(),
                t.dupAckThresh() > 0 ? t.dupAckThresh() : DEFAULT_DUP_ACK_THRESHOLD,
                t.rexmitThresh() > 0 ? t.rexmitThresh() : DEFAULT_MAX_RETRANSMITS,
                rtoMin, rtoInitial, DEFAULT_RTO_MAX, Math.min(DEFAULT_DELAYED_ACK, rtoMin / 2), DEFAULT_TIME_WAIT,
                t.dropOooSeg(), DEFAULT_BUFFER, DEFAULT_BUFFER,
                t.cwnd() > 0 ? t.cwnd() : 2L * mss, t.ssThresh() > 0 ? t.ssThresh() : DEFAULT_SS_THRESH);
    }

    /** An IPv4 connection with every tunable at its default; start from here and adjust with the withers. */
    public static TcpConnectionParams ipv4(long localMac, long remoteMac, int localIp, int localPort, int remoteIp,
                                           int remotePort, long iss, long irs, int mss) {
        return new TcpConnectionParams(localMac, remoteMac, -1, 64, 0, 0,
                IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(localIp), IpAddress.IPV4_MAPPED_HI,
                IpAddress.mappedLo(remoteIp), localPort, remotePort, iss, iss, irs, 65535, 0, 0, mss, false, 0,
                DEFAULT_DUP_ACK_THRESHOLD, DEFAULT_MAX_RETRANSMITS, DEFAULT_RTO_MIN, DEFAULT_RTO_INITIAL,
                DEFAULT_RTO_MAX, DEFAULT_DELAYED_ACK, DEFAULT_TIME_WAIT, false, DEFAULT_BUFFER, DEFAULT_BUFFER,
                2L * mss, DEFAULT_SS_THRESH);
    }

    public TcpConnectionParams withWindow(long sndWnd, int sndWscale, int rcvWscale) {
        return new TcpConnectionParams(localMac, remoteMac, vlanTci, ttl, tos, flowLabel, localHi, localLo,
                remoteHi, remoteLo, localPort, remotePort, sndUna, sndNxt, rcvNxt, sndWnd, sndWscale, rcvWscale,
                mss, timestamps, tsRecent, dupAckThreshold, maxRetransmits, rtoMinNanos, rtoInitialNanos,
                rtoMaxNanos, delayedAckNanos, timeWaitNanos, dropOutOfOrder, sendBufferBytes, receiveBufferBytes,
                initialCwnd, ssThresh);
    }

    public TcpConnectionParams withBuffers(int sendBufferBytes, int receiveBufferBytes) {
        return new TcpConnectionParams(localMac, remoteMac, vlanTci, ttl, tos, flowLabel, localHi, localLo,
                remoteHi, remoteLo, localPort, remotePort, sndUna, sndNxt, rcvNxt, sndWnd, sndWscale, rcvWscale,
                mss, timestamps, tsRecent, dupAckThreshold, maxRetransmits, rtoMinNanos, rtoInitialNanos,
                rtoMaxNanos, delayedAckNanos, timeWaitNanos, dropOutOfOrder, sendBufferBytes, receiveBufferBytes,
                initialCwnd, ssThresh);
    }

    public TcpConnectionParams withRetransmits(int maxRetransmits, long rtoMinNanos, long rtoInitialNanos) {
        return new TcpConnectionParams(localMac, remoteMac, vlanTci, ttl, tos, flowLabel, localHi, localLo,
                remoteHi, remoteLo, localPort, remotePort, sndUna, sndNxt, rcvNxt, sndWnd, sndWscale, rcvWscale,
                mss, timestamps, tsRecent, dupAckThreshold, maxRetransmits, rtoMinNanos, rtoInitialNanos,
                rtoMaxNanos, delayedAckNanos, timeWaitNanos, dropOutOfOrder, sendBufferBytes, receiveBufferBytes,
                initialCwnd, ssThresh);
    }

    /** These parameters with another congestion window and slow-start threshold at hand-over. */
    public TcpConnectionParams withCongestion(long initialCwnd, long ssThresh) {
        return new TcpConnectionParams(localMac, remoteMac, vlanTci, ttl, tos, flowLabel, localHi, localLo,
                remoteHi, remoteLo, localPort, remotePort, sndUna, sndNxt, rcvNxt, sndWnd, sndWscale, rcvWscale,
                mss, timestamps, tsRecent, dupAckThreshold, maxRetransmits, rtoMinNanos, rtoInitialNanos,
                rtoMaxNanos, delayedAckNanos, timeWaitNanos, dropOutOfOrder, sendBufferBytes, receiveBufferBytes,
                initialCwnd, ssThresh);
    }

    /**
     * These parameters with the retransmission timeout never below {@code floorNanos} (the initial RTO raised to it
     * too); unchanged when the floor is already as high. The delayed-ACK timer stays as it was.
     */
    public TcpConnectionParams withRtoFloor(long floorNanos) {
        if (floorNanos <= rtoMinNanos) {
            return this;
        }
        return withRetransmits(maxRetransmits, floorNanos, Math.max(rtoInitialNanos, floorNanos));
    }

    public TcpConnectionParams withOptions(boolean timestamps, long tsRecent, boolean dropOutOfOrder, int vlanTci) {
        return new TcpConnectionParams(localMac, remoteMac, vlanTci, ttl, tos, flowLabel, localHi, localLo,
                remoteHi, remoteLo, localPort, remotePort, sndUna, sndNxt, rcvNxt, sndWnd, sndWscale, rcvWscale,
                mss, timestamps, tsRecent, dupAckThreshold, maxRetransmits, rtoMinNanos, rtoInitialNanos,
                rtoMaxNanos, delayedAckNanos, timeWaitNanos, dropOutOfOrder, sendBufferBytes, receiveBufferBytes,
                initialCwnd, ssThresh);
    }
}
