package dev.irdmaemu.model.tcp;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;

/**
 * Everything an {@link OffloadedTcp} starts from: the connection the CM set up (what irdma_init_tcp_ctx, cm.c,
 * writes into the QP context's TCP offload part) plus the engine's own tunables. Addresses are in the
 * {@link IpAddress} form (IPv4 mapped). Sequence numbers are unsigned 32-bit values held in longs. Built by
 * {@link #fromOffload} from a QP context, or through a {@link Builder} whose setters name what they set (start from
 * {@link #ipv4}'s defaults or from {@link #toBuilder()}); never positionally.
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
        Builder b = new Builder().macs(localMac, remoteMac)
                .vlan(t.insertVlanTag() ? t.vlanTag() & 0xffff : -1)
                .ipHeader(t.ttl(), t.tos(), t.flowLabel())
                .ports(t.srcPort(), t.dstPort());
        if (t.ipv4()) {
            b.ipv4Addresses(t.localIp3(), t.destIp3());
        } else {
            b.addresses((long) t.localIp0() << 32 | (t.localIp1() & 0xffff_ffffL),
                    (long) t.localIp2() << 32 | (t.localIp3() & 0xffff_ffffL),
                    (long) t.destIp0() << 32 | (t.destIp1() & 0xffff_ffffL),
                    (long) t.destIp2() << 32 | (t.destIp3() & 0xffff_ffffL));
        }
        int mss = (int) Math.max(64, Math.min(9000, t.sndMss()));
        return b.sequence(t.sndUna(), t.sndNxt(), t.rcvNxt())
                .window(t.sndWnd(), t.wscale() ? t.sndWscale() : 0, t.wscale() ? t.rcvWscale() : 0)
                .mss(mss)
                .timestamps(t.timeStamp(), t.timeStampRecent())
                .dupAckThreshold(t.dupAckThresh() > 0 ? t.dupAckThresh() : DEFAULT_DUP_ACK_THRESHOLD)
                .retransmits(t.rexmitThresh() > 0 ? t.rexmitThresh() : DEFAULT_MAX_RETRANSMITS, rtoMin, rtoInitial)
                .delayedAck(Math.min(DEFAULT_DELAYED_ACK, rtoMin / 2))
                .dropOutOfOrder(t.dropOooSeg())
                .congestion(t.cwnd() > 0 ? t.cwnd() : 2L * mss, t.ssThresh() > 0 ? t.ssThresh() : DEFAULT_SS_THRESH)
                .build();
    }

    /** An IPv4 connection with every tunable at its default; adjust it through {@link #toBuilder()}. */
    public static TcpConnectionParams ipv4(long localMac, long remoteMac, int localIp, int localPort, int remoteIp,
                                           int remotePort, long iss, long irs, int mss) {
        return new Builder().macs(localMac, remoteMac).ipv4Addresses(localIp, remoteIp).ports(localPort, remotePort)
                .sequence(iss, iss, irs).mss(mss).congestion(2L * mss, DEFAULT_SS_THRESH).build();
    }

    /** A builder holding these parameters, to change some of them by name. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * These parameters with the retransmission timeout never below {@code floorNanos} (the initial RTO raised to it
     * too); unchanged when the floor is already as high. The delayed-ACK timer stays as it was.
     */
    public TcpConnectionParams withRtoFloor(long floorNanos) {
        if (floorNanos <= rtoMinNanos) {
            return this;
        }
        return toBuilder().retransmits(maxRetransmits, floorNanos, Math.max(rtoInitialNanos, floorNanos)).build();
    }

    /**
     * Sets the parameters in named groups, as irdma's designated initialisers read (cm.c irdma_init_tcp_ctx): the
     * link and IP headers, the four-tuple, the sequence state at hand-over, the window, the timers, the buffers and
     * congestion control. A new builder holds an untagged IPv4 connection between zero addresses with every tunable
     * at its default, a 65535-byte window without scaling and an MSS of 1460; {@link #build()} checks the whole.
     */
    public static final class Builder {
        private long localMac;
        private long remoteMac;
        private int vlanTci = -1;
        private int ttl = 64;
        private int tos;
        private int flowLabel;
        private long localHi = IpAddress.IPV4_MAPPED_HI;
        private long localLo = IpAddress.mappedLo(0);
        private long remoteHi = IpAddress.IPV4_MAPPED_HI;
        private long remoteLo = IpAddress.mappedLo(0);
        private int localPort;
        private int remotePort;
        private long sndUna;
        private long sndNxt;
        private long rcvNxt;
        private long sndWnd = 65535;
        private int sndWscale;
        private int rcvWscale;
        private int mss = 1460;
        private boolean timestamps;
        private long tsRecent;
        private int dupAckThreshold = DEFAULT_DUP_ACK_THRESHOLD;
        private int maxRetransmits = DEFAULT_MAX_RETRANSMITS;
        private long rtoMinNanos = DEFAULT_RTO_MIN;
        private long rtoInitialNanos = DEFAULT_RTO_INITIAL;
        private long rtoMaxNanos = DEFAULT_RTO_MAX;
        private long delayedAckNanos = DEFAULT_DELAYED_ACK;
        private long timeWaitNanos = DEFAULT_TIME_WAIT;
        private boolean dropOutOfOrder;
        private int sendBufferBytes = DEFAULT_BUFFER;
        private int receiveBufferBytes = DEFAULT_BUFFER;
        private long initialCwnd = 2L * 1460;
        private long ssThresh = DEFAULT_SS_THRESH;

        public Builder() {
        }

        private Builder(TcpConnectionParams p) {
            macs(p.localMac, p.remoteMac).vlan(p.vlanTci).ipHeader(p.ttl, p.tos, p.flowLabel)
                    .addresses(p.localHi, p.localLo, p.remoteHi, p.remoteLo).ports(p.localPort, p.remotePort)
                    .sequence(p.sndUna, p.sndNxt, p.rcvNxt).window(p.sndWnd, p.sndWscale, p.rcvWscale).mss(p.mss)
                    .timestamps(p.timestamps, p.tsRecent).dupAckThreshold(p.dupAckThreshold)
                    .retransmits(p.maxRetransmits, p.rtoMinNanos, p.rtoInitialNanos).rtoMax(p.rtoMaxNanos)
                    .delayedAck(p.delayedAckNanos).timeWait(p.timeWaitNanos).dropOutOfOrder(p.dropOutOfOrder)
                    .buffers(p.sendBufferBytes, p.receiveBufferBytes).congestion(p.initialCwnd, p.ssThresh);
        }

        /** Our MAC (the QP context's) and the next hop's (the ARP entry's). */
        public Builder macs(long local, long remote) {
            this.localMac = local;
            this.remoteMac = remote;
            return this;
        }

        /** The 802.1Q TCI to insert, or -1 for untagged (insert_vlan_tag / vlan_tag). */
        public Builder vlan(int tci) {
            this.vlanTci = tci;
            return this;
        }

        /** The IP header's TTL (hop limit), TOS (traffic class) and, for IPv6, flow label. */
        public Builder ipHeader(int ttl, int tos, int flowLabel) {
            this.ttl = ttl;
            this.tos = tos;
            this.flowLabel = flowLabel;
            return this;
        }

        /** Both addresses in {@link IpAddress}'s two-long form. */
        public Builder addresses(long localHi, long localLo, long remoteHi, long remoteLo) {
            this.localHi = localHi;
            this.localLo = localLo;
            this.remoteHi = remoteHi;
            this.remoteLo = remoteLo;
            return this;
        }

        /** Both addresses as IPv4 (held IPv4-mapped). */
        public Builder ipv4Addresses(int local, int remote) {
            return addresses(IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(local), IpAddress.IPV4_MAPPED_HI,
                    IpAddress.mappedLo(remote));
        }

        public Builder ports(int local, int remote) {
            this.localPort = local;
            this.remotePort = remote;
            return this;
        }

        /** SND.UNA, SND.NXT and RCV.NXT at hand-over (RFC 9293 §3.3.1). */
        public Builder sequence(long sndUna, long sndNxt, long rcvNxt) {
            this.sndUna = sndUna;
            this.sndNxt = sndNxt;
            this.rcvNxt = rcvNxt;
            return this;
        }

        /** The peer's window (already scaled) and both window-scale shifts (RFC 7323 §2.3). */
        public Builder window(long sndWnd, int sndWscale, int rcvWscale) {
            this.sndWnd = sndWnd;
            this.sndWscale = sndWscale;
            this.rcvWscale = rcvWscale;
            return this;
        }

        public Builder mss(int mss) {
            this.mss = mss;
            return this;
        }

        /** Whether every segment carries the RFC 7323 timestamp option, and the peer's last TSval. */
        public Builder timestamps(boolean on, long tsRecent) {
            this.timestamps = on;
            this.tsRecent = tsRecent;
            return this;
        }

        public Builder dupAckThreshold(int n) {
            this.dupAckThreshold = n;
            return this;
        }

        /** Consecutive timeouts tolerated, the RTO's floor and its value before any RTT sample. */
        public Builder retransmits(int max, long rtoMinNanos, long rtoInitialNanos) {
            this.maxRetransmits = max;
            this.rtoMinNanos = rtoMinNanos;
            this.rtoInitialNanos = rtoInitialNanos;
            return this;
        }

        public Builder rtoMax(long nanos) {
            this.rtoMaxNanos = nanos;
            return this;
        }

        public Builder delayedAck(long nanos) {
            this.delayedAckNanos = nanos;
            return this;
        }

        public Builder timeWait(long nanos) {
            this.timeWaitNanos = nanos;
            return this;
        }

        public Builder dropOutOfOrder(boolean drop) {
            this.dropOutOfOrder = drop;
            return this;
        }

        /** The retransmission ring and the reassembly ring, powers of two. */
        public Builder buffers(int sendBytes, int receiveBytes) {
            this.sendBufferBytes = sendBytes;
            this.receiveBufferBytes = receiveBytes;
            return this;
        }

        /** The congestion window and slow-start threshold at hand-over. */
        public Builder congestion(long initialCwnd, long ssThresh) {
            this.initialCwnd = initialCwnd;
            this.ssThresh = ssThresh;
            return this;
        }

        /** The parameters; IllegalArgumentException when they do not hold together. */
        public TcpConnectionParams build() {
            return new TcpConnectionParams(localMac, remoteMac, vlanTci, ttl, tos, flowLabel, localHi, localLo,
                    remoteHi, remoteLo, localPort, remotePort, sndUna, sndNxt, rcvNxt, sndWnd, sndWscale, rcvWscale,
                    mss, timestamps, tsRecent, dupAckThreshold, maxRetransmits, rtoMinNanos, rtoInitialNanos,
                    rtoMaxNanos, delayedAckNanos, timeWaitNanos, dropOutOfOrder, sendBufferBytes, receiveBufferBytes,
                    initialCwnd, ssThresh);
        }
    }
}
