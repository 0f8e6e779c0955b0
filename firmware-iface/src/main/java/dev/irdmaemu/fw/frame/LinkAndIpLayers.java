package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.ByteWindow;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The Ethernet (optionally one 802.1Q tag) and IPv4 or IPv6 layers of one received frame, walked and checked for a
 * given transport: the part the TCP and the RoCEv2 parsers share (RFC 791, RFC 8200; the IP checks of
 * drivers/infiniband/sw/rxe/rxe_recv.c and of a NIC's receive path, ice_txrx.c). {@link #validate} answers the first
 * rule broken as a {@link LinkAndIpCheck} and {@link #failedAt()} the byte offset, from the frame start, of the field
 * that broke it; once accepted, the layer flyweights are wrapped and the transport's offset, length and pseudo-header
 * sum are known. One instance is reused for every frame; nothing is allocated.
 */
public final class LinkAndIpLayers extends ByteWindow {
    private final EthernetFrame ethernet = new EthernetFrame();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();

    private boolean linkAccepted;
    private boolean isIpv6;
    private int ipOffset;
    private int ipHeaderLength;
    private long transportLength;
    private long pseudoHeaderSum;

    /**
     * Wraps the whole frame ({@code length} bytes at absolute {@code offset}, no FCS) with the IP flyweights empty on
     * the same store (a null store here, replaced by the frame's just after, would cost a reference store a frame).
     */
    public LinkAndIpLayers wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        linkAccepted = false;
        isIpv6 = false;
        ipOffset = 0;
        ipHeaderLength = 0;
        transportLength = 0;
        pseudoHeaderSum = 0;
        ethernet.wrap(store, offset, length);
        ipv4.wrap(store, offset, 0);
        ipv6.wrap(store, offset, 0);
        return this;
    }

    /**
     * Checks the wrapped frame's Ethernet and IP layers, the IPv4 header checksum too when {@code checksum}, and that
     * the IP payload is of transport {@code protocol} (RFC 790 numbers: 6 TCP, 17 UDP).
     */
    public LinkAndIpCheck validate(int protocol, boolean checksum) {
        wrap(store, base, length);
        EthernetFrame.Status es = ethernet.validate();
        if (!es.accepted()) {
            return fail(es == EthernetFrame.Status.TRUNCATED ? LinkAndIpCheck.ETH_TRUNCATED
                    : LinkAndIpCheck.ETH_VLAN_TAG_TRUNCATED, ethernet.failedAt());
        }
        linkAccepted = true;
        ipOffset = ethernet.payloadOffset();
        int etherType = ethernet.etherType();
        if (etherType == EthernetFrame.ETHERTYPE_IPV4) {
            return ipv4Layer(protocol, checksum);
        }
        if (etherType == EthernetFrame.ETHERTYPE_IPV6) {
            return ipv6Layer(protocol);
        }
        return fail(LinkAndIpCheck.NOT_IP, ipOffset - 2);
    }

    private LinkAndIpCheck ipv4Layer(int protocol, boolean checksum) {
        ipv4.wrap(store, base + ipOffset, length - ipOffset);
        Ipv4Header.Status s = checksum ? ipv4.validate() : ipv4.validateStructure();
        if (!s.accepted()) {
            return fail(LinkAndIpCheck.of(s), ipOffset + ipv4.failedAt());
        }
        if (ipv4.protocol() != protocol) {
            return fail(LinkAndIpCheck.WRONG_TRANSPORT, ipOffset + 9);
        }
        ipHeaderLength = ipv4.headerLength();
        transportLength = ipv4.payloadLength();
        pseudoHeaderSum = InternetChecksum.ipv4PseudoHeaderSum(ipv4.source(), ipv4.destination(), protocol,
                (int) transportLength);
        return LinkAndIpCheck.ACCEPTED;
    }

    private LinkAndIpCheck ipv6Layer(int protocol) {
        isIpv6 = true;
        Ipv6Header.Status s = ipv6.wrap(store, base + ipOffset, length - ipOffset).validate();
        if (!s.accepted()) {
            return fail(LinkAndIpCheck.of(s), ipOffset + ipv6.failedAt());
        }
        if (ipv6.nextHeader() != protocol) {
            return fail(LinkAndIpCheck.WRONG_TRANSPORT, ipOffset + 6);
        }
        ipHeaderLength = Ipv6Header.HEADER_LENGTH;
        transportLength = ipv6.payloadLength();
        pseudoHeaderSum = InternetChecksum.ipv6PseudoHeaderSum(ipv6.sourceHi(), ipv6.sourceLo(), ipv6.destinationHi(),
                ipv6.destinationLo(), transportLength, protocol);
        return LinkAndIpCheck.ACCEPTED;
    }

    public EthernetFrame ethernet() {
        return ethernet;
    }

    /** Wrapped on the IPv4 header when the frame carries IPv4 (empty otherwise). */
    public Ipv4Header ipv4() {
        return ipv4;
    }

    /** Wrapped on the IPv6 header when the frame carries IPv6 (empty otherwise). */
    public Ipv6Header ipv6() {
        return ipv6;
    }

    /** True once the Ethernet layer passed: {@link #ipOffset()} is then known. */
    public boolean linkAccepted() {
        return linkAccepted;
    }

    /** True when the EtherType is IPv6 (whether or not the IPv6 header then passed). */
    public boolean isIpv6() {
        return isIpv6;
    }

    /** Offset of the IP header from the frame start, once {@link #linkAccepted()}. */
    public int ipOffset() {
        return ipOffset;
    }

    /** Bytes of the IP header, after an accepted validate. */
    public int ipHeaderLength() {
        return ipHeaderLength;
    }

    /** Offset of the transport header from the frame start, after an accepted validate. */
    public int transportOffset() {
        return ipOffset + ipHeaderLength;
    }

    /** Bytes of the IP payload (the transport segment or datagram), after an accepted validate. */
    public long transportLength() {
        return transportLength;
    }

    /** The transport pseudo-header sum over the addresses, protocol and length, after an accepted validate. */
    public long pseudoHeaderSum() {
        return pseudoHeaderSum;
    }
}
