package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.roce.Bth;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.fw.roce.RoceFrameBuilder;

/**
 * What the RC transport takes from the RoCE QP context irdma writes (irdma/ctrl.c irdma_sc_qp_setctx_roce_gen_2):
 * MACs, IP addresses, UDP source port, TOS and TTL, flow label, the QP numbers, P_Key, the path MTU (SNDMSS), the
 * PSNs, the retry and RNR retry counts (REXMIT_THRESH, RNRNAK_THRESH), ORD and IRD, and the PD. The retransmit
 * timeout and the RNR timer the responder advertises are not in the gen2 context (§8 of the RoCE facts): the
 * device's choice, settable here. The integration refills this on every MODIFY_QP, as irdma rewrites the context.
 */
public final class RcPath {
    long localMac;
    long remoteMac;
    long sourceHi = IpAddress.IPV4_MAPPED_HI;
    long sourceLo = IpAddress.mappedLo(0);
    long destinationHi = IpAddress.IPV4_MAPPED_HI;
    long destinationLo = IpAddress.mappedLo(0);
    int tos;
    int ttl = 64;
    int flowLabel;
    int udpSourcePort = 0xc000;
    int localQpn;
    int remoteQpn;
    int partitionKey = Bth.DEFAULT_P_KEY;
    PathMtu mtu = PathMtu.MTU_1024;
    int sendPsn;
    int receivePsn;
    int retryCount = 7;
    int rnrRetry = 7;
    int rnrTimerCode = 1;
    long retransmitTimeoutNanos = 4_096L * (1 << 14);
    int ord = 32;
    int ird = 32;
    int protectionDomain;
    boolean vlan;
    int vlanTci;

    /** MACs as 48-bit values and the IP addresses (IPv4-mapped for IPv4, as {@link IpAddress} has them). */
    public RcPath addresses(long local, long remote, long srcHi, long srcLo, long dstHi, long dstLo) {
        localMac = local;
        remoteMac = remote;
        sourceHi = srcHi;
        sourceLo = srcLo;
        destinationHi = dstHi;
        destinationLo = dstLo;
        return this;
    }

    /** The IPv4 variant of {@link #addresses}. */
    public RcPath ipv4(long local, long remote, int source, int destination) {
        return addresses(local, remote, IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(source),
                IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(destination));
    }

    /** TOS / traffic class, TTL / hop limit, flow label, UDP source port (SRCPORTNUM). */
    public RcPath ip(int typeOfService, int timeToLive, int label, int sourcePort) {
        tos = typeOfService & 0xff;
        ttl = timeToLive & 0xff;
        flowLabel = label & 0xfffff;
        udpSourcePort = sourcePort & 0xffff;
        return this;
    }

    /** This QP's number, the destination QP (DESTQP) and the P_Key. */
    public RcPath queuePairs(int local, int remote, int pkey) {
        localQpn = local & Bth.QPN_MASK;
        remoteQpn = remote & Bth.QPN_MASK;
        partitionKey = pkey & 0xffff;
        return this;
    }

    public RcPath mtu(PathMtu pathMtu) {
        mtu = pathMtu;
        return this;
    }

    /** The SQ PSN (PSNNXT) and the expected PSN of the responder (EPSN). */
    public RcPath psns(int send, int receive) {
        sendPsn = send & Psn.MASK;
        receivePsn = receive & Psn.MASK;
        return this;
    }

    /**
     * Retry count and RNR retry count (0..7; an RNR retry count of 7 retries for ever, IBA §9.7.5.2.8), the RNR timer
     * code this QP's responder puts in its RNR NAKs (IBA Table 45) and the retransmit timeout.
     */
    public RcPath retries(int retry, int rnr, int rnrTimer, long timeoutNanos) {
        retryCount = retry & 7;
        rnrRetry = rnr & 7;
        rnrTimerCode = rnrTimer & 0x1f;
        retransmitTimeoutNanos = Math.max(1, timeoutNanos);
        return this;
    }

    /** READs this QP may have outstanding (ORDSIZE) and READs its responder keeps for replay (IRD), each at least 1. */
    public RcPath reads(int outstanding, int resources) {
        ord = Math.max(1, outstanding);
        ird = Math.max(1, resources);
        return this;
    }

    /** An 802.1Q tag on every frame (IRDMAQPC_INSERTVLANTAG and VLANTAG: priority 15:13, DEI 12, VLAN id 11:0). */
    public RcPath vlan(boolean insert, int tci) {
        vlan = insert;
        vlanTci = tci & 0xffff;
        return this;
    }

    public RcPath protectionDomain(int pd) {
        protectionDomain = pd;
        return this;
    }

    public PathMtu mtu() {
        return mtu;
    }

    public int localQpn() {
        return localQpn;
    }

    /** Writes the link, IP and UDP fields and the P_Key into {@code b}. */
    void applyTo(RoceFrameBuilder b) {
        b.ethernet(remoteMac, localMac);
        if (vlan) {
            b.vlan(vlanTci >>> 13, (vlanTci & 0x1000) != 0, vlanTci & 0xfff);
        } else {
            b.noVlan();
        }
        b.ipv6(sourceHi, sourceLo, destinationHi, destinationLo).tos(tos)
                .ttl(ttl).flowLabel(flowLabel).udp(udpSourcePort, false).partitionKey(partitionKey);
    }
}
