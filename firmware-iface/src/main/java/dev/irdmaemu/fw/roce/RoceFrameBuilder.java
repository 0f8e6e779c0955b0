package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.EncapsulatedFrameBuilder;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.UdpHeader;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Reusable, allocation-free writer of a whole RoCEv2 frame (IBA Vol. 1 Annex A17; the encapsulation of
 * drivers/infiniband/sw/rxe/rxe_net.c): Ethernet (optionally one 802.1Q tag), IPv4 (DF set) or IPv6, UDP from the
 * flow's entropy port to 4791, the BTH, the extension headers the opcode carries (IBA's order, {@link BthOpcode}),
 * the payload, zero pad to a word with the BTH pad count to match, and the ICRC; every length, the IPv4 header
 * checksum and (unless turned off) the UDP checksum filled in.
 *
 * <p>Fields persist until changed or {@link #reset()}. Headers the opcode does not carry are not written, whatever
 * their fields hold. Either {@link #build} with the payload copied from a caller's range, or {@link #begin} to
 * reserve it, write it at the answered offset, then {@link #finish()}. Values are written as given (any P_Key, ECN
 * bits, syndrome), so tests can craft what a receiver must refuse; what cannot be represented (payload on an opcode
 * that has none, a frame past 65535 IP bytes or the buffer) throws {@link IllegalArgumentException}.
 */
public final class RoceFrameBuilder extends EncapsulatedFrameBuilder<RoceFrameBuilder> {
    private int udpSourcePort;
    private boolean udpChecksum;

    private BthOpcode opcode;
    private int bthFlags;
    private int partitionKey;
    private int ecn;
    private int destinationQp;
    private boolean ackRequest;
    private int psn;

    private long virtualAddress;
    private int remoteKey;
    private int dmaLength;
    private int syndrome;
    private int msn;
    private int queueKey;
    private int sourceQp;
    private int immediate;
    private int invalidateKey;
    private long swapOrAdd;
    private long compare;
    private long originalData;
    private int feth;

    // between begin() and finish()
    private BytesStore<?, ?> out;
    private long frameOffset = -1;
    private int udpOffset;
    private int udpLength;
    private int pad;

    public RoceFrameBuilder() {
        reset();
    }

    /**
     * Back to defaults: no VLAN, IPv4 0.0.0.0, TOS 0, TTL 64, UDP source port 0xC000 with checksum, RC SEND ONLY to
     * QP 0, P_Key 0xffff, no flags, PSN 0, every extension field 0.
     */
    public RoceFrameBuilder reset() {
        link.reset();
        udpSourcePort = 0xc000;
        udpChecksum = true;
        opcode = BthOpcode.RC_SEND_ONLY;
        bthFlags = 0;
        partitionKey = Bth.DEFAULT_P_KEY;
        ecn = 0;
        destinationQp = 0;
        ackRequest = false;
        psn = 0;
        reth(0, 0, 0);
        aeth(0, 0);
        deth(0, 0);
        immediate = 0;
        invalidateKey = 0;
        atomic(0, 0, 0, 0);
        originalData = 0;
        feth = 0;
        frameOffset = -1;
        out = null;
        return this;
    }

    /** IPv6 addresses (a RoCEv2 GID is one); IPv4-mapped ones mean IPv4, as in {@link IpAddress}. */
    @Override
    public RoceFrameBuilder ipv6(long sourceHi, long sourceLo, long destinationHi, long destinationLo) {
        link.addresses(sourceHi, sourceLo, destinationHi, destinationLo);
        return this;
    }

    /** UDP source port (the flow's entropy, ib_verbs.h rdma_flow_label_to_udp_sport) and whether to checksum. */
    public RoceFrameBuilder udp(int sourcePort, boolean fillChecksum) {
        udpSourcePort = sourcePort & 0xffff;
        udpChecksum = fillChecksum;
        return this;
    }

    /** The opcode, the destination QP and the PSN (both 24 bits). */
    public RoceFrameBuilder bth(BthOpcode opcode, int destinationQp, int psn) {
        this.opcode = opcode;
        this.destinationQp = destinationQp & Bth.QPN_MASK;
        this.psn = psn & Bth.PSN_MASK;
        return this;
    }

    /** Solicited event, migration request and acknowledge request bits. */
    public RoceFrameBuilder flags(boolean solicitedEvent, boolean migrationRequest, boolean ackRequest) {
        bthFlags = (solicitedEvent ? Bth.FLAG_SE : 0) | (migrationRequest ? Bth.FLAG_MIG_REQ : 0);
        this.ackRequest = ackRequest;
        return this;
    }

    public RoceFrameBuilder partitionKey(int partitionKey) {
        this.partitionKey = partitionKey & 0xffff;
        return this;
    }

    /** The BTH's FECN and BECN bits (IBA Annex A17). */
    public RoceFrameBuilder ecn(boolean fecn, boolean becn) {
        ecn = (fecn ? Bth.FECN : 0) | (becn ? Bth.BECN : 0);
        return this;
    }

    public RoceFrameBuilder reth(long virtualAddress, int remoteKey, int dmaLength) {
        this.virtualAddress = virtualAddress;
        this.remoteKey = remoteKey;
        this.dmaLength = dmaLength;
        return this;
    }

    /** The AETH: a syndrome from {@link Aeth#ackSyndrome} and its siblings, and the MSN. */
    public RoceFrameBuilder aeth(int syndrome, int msn) {
        this.syndrome = syndrome & 0xff;
        this.msn = msn & Aeth.MSN_MASK;
        return this;
    }

    public RoceFrameBuilder deth(int queueKey, int sourceQp) {
        this.queueKey = queueKey;
        this.sourceQp = sourceQp & Bth.QPN_MASK;
        return this;
    }

    public RoceFrameBuilder immediate(int immediate) {
        this.immediate = immediate;
        return this;
    }

    /** The IETH's R_Key (SEND WITH INVALIDATE). */
    public RoceFrameBuilder invalidate(int remoteKey) {
        this.invalidateKey = remoteKey;
        return this;
    }

    /** The AtomicETH: address and R_Key of the target, swap or add data, compare data. */
    public RoceFrameBuilder atomic(long virtualAddress, int remoteKey, long swapOrAdd, long compare) {
        this.virtualAddress = virtualAddress;
        this.remoteKey = remoteKey;
        this.swapOrAdd = swapOrAdd;
        this.compare = compare;
        return this;
    }

    public RoceFrameBuilder atomicAck(long originalData) {
        this.originalData = originalData;
        return this;
    }

    /** The FETH word of a FLUSH. */
    public RoceFrameBuilder feth(int bits) {
        this.feth = bits;
        return this;
    }

    /**
     * A CNP (IBA Annex A17) to {@code destinationQp}: opcode 0x81, P_Key 0xffff, BECN set, FECN clear, no flags,
     * PSN 0; the addresses, UDP port and DSCP stay as set.
     */
    public RoceFrameBuilder cnp(int destinationQp) {
        bth(BthOpcode.CNP, destinationQp, 0);
        flags(false, false, false);
        partitionKey(Cnp.P_KEY);
        return ecn(false, true);
    }

    /** Bytes the frame takes with {@code payloadLength} payload bytes. */
    public int frameLength(int payloadLength) {
        return link.length() + UdpHeader.HEADER_LENGTH + Bth.LENGTH + opcode.extensionHeadersLength()
                + payloadLength + (-payloadLength & 3) + Icrc.LENGTH;
    }

    /**
     * Writes every header for {@code payloadLength} payload bytes at absolute {@code offset}; answers the absolute
     * offset of the payload, which the caller writes before {@link #finish()}.
     */
    @Override
    public long begin(BytesStore<?, ?> out, long offset, int payloadLength) {
        if (payloadLength < 0 || payloadLength > 0 && !opcode.carriesPayload()) {
            throw new IllegalArgumentException(opcode + " cannot carry " + payloadLength + " payload bytes");
        }
        int total = frameLength(payloadLength);
        int ipLength = total - link.linkLength();
        if (ipLength - link.ipHeaderLength() > link.maxIpPayload()) {
            throw new IllegalArgumentException("RoCEv2 packet of " + ipLength + " IP bytes does not fit");
        }
        NetworkOrder.requireRange(out, offset, total);
        pad = -payloadLength & 3;
        udpLength = total - link.length();
        long at = link.write(out, offset, udpLength, UdpHeader.PROTOCOL_UDP);
        udpOffset = (int) (at - offset);
        at += UdpHeader.write(out, at, udpSourcePort, RoceFrame.UDP_PORT, udpLength);
        at += Bth.write(out, at, opcode.code(), bthFlags | Bth.flagsByte(false, false, pad), partitionKey, ecn,
                destinationQp, ackRequest, psn);
        at += writeExtensionHeaders(out, at);
        if (this.out != out) {
            this.out = out; // a reference store runs the GC's write barrier: skipped for the same buffer
        }
        frameOffset = offset;
        return at;
    }

    /** The extension headers {@link #opcode} carries, in IBA's order; answers their length. */
    private int writeExtensionHeaders(BytesStore<?, ?> out, long at) {
        long start = at;
        for (ExtensionHeader h : HEADERS) {
            if (opcode.carries(h)) {
                at += switch (h) {
                    case DETH -> Deth.write(out, at, queueKey, sourceQp);
                    case FETH -> put32(out, at, feth);
                    case RETH -> Reth.write(out, at, virtualAddress, remoteKey, dmaLength);
                    case ATOMIC_ETH -> AtomicEth.write(out, at, virtualAddress, remoteKey, swapOrAdd, compare);
                    case AETH -> Aeth.write(out, at, syndrome, msn);
                    case ATOMIC_ACK_ETH -> AtomicAckEth.write(out, at, originalData);
                    case IMM_DT -> ImmDt.write(out, at, immediate);
                    case IETH -> Ieth.write(out, at, invalidateKey);
                    case CNP_RESERVED -> Cnp.write(out, at);
                };
            }
        }
        return (int) (at - start);
    }

    private static final ExtensionHeader[] HEADERS = ExtensionHeader.values();

    private static int put32(BytesStore<?, ?> out, long at, int v) {
        NetworkOrder.put32(out, at, v);
        return 4;
    }

    /** Writes the pad, the ICRC and the UDP checksum over the payload now in place; answers the frame length. */
    @Override
    public int finish() {
        if (frameOffset < 0) {
            throw new IllegalStateException("finish() without begin()");
        }
        long udpAt = frameOffset + udpOffset;
        long padAt = udpAt + udpLength - Icrc.LENGTH - pad;
        for (int i = 0; i < pad; i++) {
            NetworkOrder.put8(out, padAt + i, 0);
        }
        long icrcAt = padAt + pad;
        Icrc.write(out, icrcAt, Icrc.compute(out, frameOffset + link.linkLength(), link.ipHeaderLength(),
                link.isIpv6(), icrcAt));
        if (udpChecksum) {
            UdpHeader.writeChecksum(out, udpAt, udpLength, link.pseudoHeaderSum());
        }
        int length = (int) (icrcAt + Icrc.LENGTH - frameOffset);
        frameOffset = -1;
        return length;
    }

    /** The opcode set; callers that build several kinds of packet can ask. */
    public BthOpcode opcode() {
        return opcode;
    }
}
