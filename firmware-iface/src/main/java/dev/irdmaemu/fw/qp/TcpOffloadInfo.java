package dev.irdmaemu.fw.qp;

/**
 * The TCP offload part of a QP context (type.h struct irdma_tcp_offload_info), the fields
 * irdma_sc_qp_setctx writes for gen2; irdma_init_tcp_ctx (cm.c) fills them from the connection the CM set up.
 * Addresses follow the driver's arrays: IPv4 lives in index 3 ({@code destIp3}, {@code localIp3}), IPv6 is
 * indices 0..3, most significant first. Unsigned fields are held in wider Java types. Gen1's
 * src_mac_addr_idx is not written for gen2 (the MAC comes from the ARP index and {@link IwarpOffloadInfo#macAddr}).
 * Built through its {@link Builder}, whose setters name the struct's fields (or a group of them), never positionally.
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
    /** A builder holding these fields, to change some of them by name. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Sets the fields by name, in the groups irdma_init_tcp_ctx (cm.c) fills them: addresses and ports, the IP
     * header, the options, the sequence and window state, RTT and congestion. A new builder holds all zeros.
     */
    public static final class Builder {
        private boolean ipv4;
        private boolean noNagle;
        private boolean insertVlanTag;
        private boolean timeStamp;
        private boolean dropOooSeg;
        private boolean avoidStretchAck;
        private boolean wscale;
        private boolean ignoreTcpOpt;
        private boolean ignoreTcpUnsOpt;
        private int cwndIncLimit;
        private int dupAckThresh;
        private int ttl;
        private int tos;
        private int srcPort;
        private int dstPort;
        private int destIp0;
        private int destIp1;
        private int destIp2;
        private int destIp3;
        private long sndMss;
        private int synRstHandling;
        private int vlanTag;
        private int arpIdx;
        private int flowLabel;
        private int tcpState;
        private int sndWscale;
        private int rcvWscale;
        private long timeStampRecent;
        private long timeStampAge;
        private long sndNxt;
        private long sndWnd;
        private long rcvNxt;
        private long rcvWnd;
        private long sndMax;
        private long sndUna;
        private long srtt;
        private long rttVar;
        private long ssThresh;
        private long cwnd;
        private long sndWl1;
        private long sndWl2;
        private long maxSndWindow;
        private int rexmitThresh;
        private int localIp0;
        private int localIp1;
        private int localIp2;
        private int localIp3;

        public Builder() {
        }

        private Builder(TcpOffloadInfo t) {
            this.ipv4 = t.ipv4;
            this.noNagle = t.noNagle;
            this.insertVlanTag = t.insertVlanTag;
            this.timeStamp = t.timeStamp;
            this.dropOooSeg = t.dropOooSeg;
            this.avoidStretchAck = t.avoidStretchAck;
            this.wscale = t.wscale;
            this.ignoreTcpOpt = t.ignoreTcpOpt;
            this.ignoreTcpUnsOpt = t.ignoreTcpUnsOpt;
            this.cwndIncLimit = t.cwndIncLimit;
            this.dupAckThresh = t.dupAckThresh;
            this.ttl = t.ttl;
            this.tos = t.tos;
            this.srcPort = t.srcPort;
            this.dstPort = t.dstPort;
            this.destIp0 = t.destIp0;
            this.destIp1 = t.destIp1;
            this.destIp2 = t.destIp2;
            this.destIp3 = t.destIp3;
            this.sndMss = t.sndMss;
            this.synRstHandling = t.synRstHandling;
            this.vlanTag = t.vlanTag;
            this.arpIdx = t.arpIdx;
            this.flowLabel = t.flowLabel;
            this.tcpState = t.tcpState;
            this.sndWscale = t.sndWscale;
            this.rcvWscale = t.rcvWscale;
            this.timeStampRecent = t.timeStampRecent;
            this.timeStampAge = t.timeStampAge;
            this.sndNxt = t.sndNxt;
            this.sndWnd = t.sndWnd;
            this.rcvNxt = t.rcvNxt;
            this.rcvWnd = t.rcvWnd;
            this.sndMax = t.sndMax;
            this.sndUna = t.sndUna;
            this.srtt = t.srtt;
            this.rttVar = t.rttVar;
            this.ssThresh = t.ssThresh;
            this.cwnd = t.cwnd;
            this.sndWl1 = t.sndWl1;
            this.sndWl2 = t.sndWl2;
            this.maxSndWindow = t.maxSndWindow;
            this.rexmitThresh = t.rexmitThresh;
            this.localIp0 = t.localIp0;
            this.localIp1 = t.localIp1;
            this.localIp2 = t.localIp2;
            this.localIp3 = t.localIp3;
        }

        /** An IPv4 connection: both addresses in index 3 of the driver's arrays, the rest zero. */
        public Builder ipv4(int localIp, int destIp) {
            this.ipv4 = true;
            this.localIp0 = 0;
            this.localIp1 = 0;
            this.localIp2 = 0;
            this.localIp3 = localIp;
            this.destIp0 = 0;
            this.destIp1 = 0;
            this.destIp2 = 0;
            this.destIp3 = destIp;
            return this;
        }

        /** An IPv6 connection: four 32-bit words each, most significant first. */
        public Builder ipv6(int[] localIp, int[] destIp) {
            if (localIp.length != 4 || destIp.length != 4) {
                throw new IllegalArgumentException("an IPv6 address is four words");
            }
            this.ipv4 = false;
            this.localIp0 = localIp[0];
            this.localIp1 = localIp[1];
            this.localIp2 = localIp[2];
            this.localIp3 = localIp[3];
            this.destIp0 = destIp[0];
            this.destIp1 = destIp[1];
            this.destIp2 = destIp[2];
            this.destIp3 = destIp[3];
            return this;
        }

        /** As the driver's arrays hold them, whatever the family: {@code ipv4} says which words count. */
        public Builder addresses(boolean ipv4, int[] localIp, int[] destIp) {
            ipv6(localIp, destIp);
            this.ipv4 = ipv4;
            return this;
        }

        public Builder ports(int srcPort, int dstPort) {
            this.srcPort = srcPort;
            this.dstPort = dstPort;
            return this;
        }

        public Builder ipHeader(int ttl, int tos, int flowLabel) {
            this.ttl = ttl;
            this.tos = tos;
            this.flowLabel = flowLabel;
            return this;
        }

        /** insert_vlan_tag and vlan_tag. */
        public Builder vlan(boolean insert, int tag) {
            this.insertVlanTag = insert;
            this.vlanTag = tag;
            return this;
        }

        public Builder noNagle(boolean noNagle) {
            this.noNagle = noNagle;
            return this;
        }

        /** time_stamp, time_stamp_recent and time_stamp_age. */
        public Builder timeStamp(boolean on, long recent, long age) {
            this.timeStamp = on;
            this.timeStampRecent = recent;
            this.timeStampAge = age;
            return this;
        }

        public Builder dropOooSeg(boolean drop) {
            this.dropOooSeg = drop;
            return this;
        }

        public Builder avoidStretchAck(boolean avoid) {
            this.avoidStretchAck = avoid;
            return this;
        }

        /** wscale, snd_wscale and rcv_wscale. */
        public Builder windowScale(boolean on, int sndWscale, int rcvWscale) {
            this.wscale = on;
            this.sndWscale = sndWscale;
            this.rcvWscale = rcvWscale;
            return this;
        }

        /** ignore_tcp_opt and ignore_tcp_uns_opt. */
        public Builder ignoreTcpOptions(boolean all, boolean unsupported) {
            this.ignoreTcpOpt = all;
            this.ignoreTcpUnsOpt = unsupported;
            return this;
        }

        public Builder cwndIncLimit(int limit) {
            this.cwndIncLimit = limit;
            return this;
        }

        public Builder dupAckThresh(int thresh) {
            this.dupAckThresh = thresh;
            return this;
        }

        public Builder sndMss(long mss) {
            this.sndMss = mss;
            return this;
        }

        public Builder synRstHandling(int handling) {
            this.synRstHandling = handling;
            return this;
        }

        public Builder arpIdx(int index) {
            this.arpIdx = index;
            return this;
        }

        public Builder tcpState(int state) {
            this.tcpState = state;
            return this;
        }

        /** snd_nxt, snd_una and snd_max. */
        public Builder sendSequence(long sndNxt, long sndUna, long sndMax) {
            this.sndNxt = sndNxt;
            this.sndUna = sndUna;
            this.sndMax = sndMax;
            return this;
        }

        /** snd_wnd, snd_wl1, snd_wl2 and max_snd_window. */
        public Builder sendWindow(long sndWnd, long sndWl1, long sndWl2, long maxSndWindow) {
            this.sndWnd = sndWnd;
            this.sndWl1 = sndWl1;
            this.sndWl2 = sndWl2;
            this.maxSndWindow = maxSndWindow;
            return this;
        }

        /** rcv_nxt and rcv_wnd. */
        public Builder receive(long rcvNxt, long rcvWnd) {
            this.rcvNxt = rcvNxt;
            this.rcvWnd = rcvWnd;
            return this;
        }

        /** srtt and rtt_var. */
        public Builder rtt(long srtt, long rttVar) {
            this.srtt = srtt;
            this.rttVar = rttVar;
            return this;
        }

        /** cwnd and ss_thresh. */
        public Builder congestion(long cwnd, long ssThresh) {
            this.cwnd = cwnd;
            this.ssThresh = ssThresh;
            return this;
        }

        public Builder rexmitThresh(int thresh) {
            this.rexmitThresh = thresh;
            return this;
        }

        public TcpOffloadInfo build() {
            return new TcpOffloadInfo(
                ipv4, noNagle, insertVlanTag, timeStamp, dropOooSeg, avoidStretchAck, wscale, ignoreTcpOpt,
                ignoreTcpUnsOpt, cwndIncLimit, dupAckThresh, ttl, tos, srcPort, dstPort, destIp0, destIp1, destIp2,
                destIp3, sndMss, synRstHandling, vlanTag, arpIdx, flowLabel, tcpState, sndWscale, rcvWscale,
                timeStampRecent, timeStampAge, sndNxt, sndWnd, rcvNxt, rcvWnd, sndMax, sndUna, srtt, rttVar,
                ssThresh, cwnd, sndWl1, sndWl2, maxSndWindow, rexmitThresh, localIp0, localIp1, localIp2, localIp3);
        }
    }
}
