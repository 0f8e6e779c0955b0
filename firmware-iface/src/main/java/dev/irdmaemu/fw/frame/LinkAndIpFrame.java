package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.ByteWindow;

/**
 * What the composite flyweights over received frames share: the Ethernet (optionally one 802.1Q tag) and IPv4 or IPv6
 * layers, walked and checked for the transport the frame must carry (RFC 791, RFC 8200; the IP checks of
 * drivers/infiniband/sw/rxe/rxe_recv.c and of a NIC's receive path, ice_txrx.c). {@link TcpPacket} and the RoCEv2
 * frame add their transport. The first rule broken is a {@link LinkAndIpCheck} with {@link #failedAt()} the byte
 * offset, from the frame start, of the field that broke it; once accepted, the layer flyweights are wrapped and the
 * transport's offset, length and pseudo-header sum are known. Nothing is allocated.
 */
public abstract class LinkAndIpFrame extends ByteWindow {
    private final EthernetFrame ethernet = new EthernetFrame();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();

    private boolean isIpv6;
    private int ipOffset = -1;
    private int ipHeaderLength;
    private long transportLength;
    private long pseudoHeaderSum;

    protected LinkAndIpFrame() {
    }

    /**
     * Forgets the last walk and wraps the Ethernet flyweight on the whole frame, the IP ones empty on the same store
     * (a null store here, replaced by the frame's just after, would cost a reference store each frame).
     */
    protected final void clearLinkAndIp() {
        isIpv6 = false;
        ipOffset = -1;
        ipHeaderLength = 0;
        transportLength = 0;
        pseudoHeaderSum = 0;
        ethernet.wrap(store, base, length);
        ipv4.wrap(store, base, 0);
        ipv6.wrap(store, base, 0);
    }

    /**
     * Checks the Ethernet and IP layers, the IPv4 header checksum too when {@code checksum}, and that the IP payload
     * is of transport {@code protocol} (6 TCP, 17 UDP); call {@link #clearLinkAndIp()} first.
     */
    protected final LinkAndIpCheck validateLinkAndIp(int protocol, boolean checksum) {
        EthernetFrame.Status es = ethernet.validate();
        if (!es.accepted()) {
            return fail(es == EthernetFrame.Status.TRUNCATED ? LinkAndIpCheck.ETH_TRUNCATED
                    : LinkAndIpCheck.ETH_VLAN_TAG_TRUNCATED, ethernet.failedAt());
        }
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

    public final EthernetFrame ethernet() {
        return ethernet;
    }

    /** Wrapped on the IPv4 header when the frame carries IPv4 (empty otherwise). */
    public final Ipv4Header ipv4() {
        return ipv4;
    }

    /** Wrapped on the IPv6 header when the frame carries IPv6 (empty otherwise). */
    public final Ipv6Header ipv6() {
        return ipv6;
    }

    /** True when the EtherType is IPv6 (whether or not the IPv6 header then passed). */
    public final boolean isIpv6() {
        return isIpv6;
    }

    /** Offset of the IP header from the frame start, -1 before the Ethernet layer validated. */
    public final int ipOffset() {
        return ipOffset;
    }

    /** Bytes of the IP header, once the IP layer was accepted. */
    protected final int ipHeaderLength() {
        return ipHeaderLength;
    }

    /** Offset of the transport header from the frame start, once the IP layer was accepted. */
    protected final int transportOffset() {
        return ipOffset + ipHeaderLength;
    }

    /** Bytes of the IP payload (the transport's segment or datagram), once the IP layer was accepted. */
    protected final long transportLength() {
        return transportLength;
    }

    /** The transport's pseudo-header sum (addresses, protocol, length), once the IP layer was accepted. */
    protected final long pseudoHeaderSum() {
        return pseudoHeaderSum;
    }
}
