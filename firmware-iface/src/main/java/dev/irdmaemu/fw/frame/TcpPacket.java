package dev.irdmaemu.fw.frame;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Composite flyweight for the receive paths: one Ethernet frame (optionally 802.1Q tagged) carrying IPv4
 * or IPv6 carrying one TCP segment. {@link #validate()} walks the layers, checks the IPv4 header checksum
 * and the TCP checksum over the matching pseudo-header, and answers which rule of which layer failed;
 * {@link #failedAt()} is the byte offset of the failing field from the start of the frame.
 * {@link #validateStructure()} checks the same rules but neither checksum; then {@link #ipv4ChecksumVerifies()} and
 * {@link #tcpChecksumVerifies()} answer them separately. That is for readers of captures, where a sending host's
 * checksum offload leaves partial checksums; the receive paths use {@code validate()} and drop such frames.
 *
 * <p>After a successful validate the layer flyweights ({@link #ethernet()}, {@link #ipv4()} or
 * {@link #ipv6()}, {@link #tcp()}) are wrapped on their layers, and addresses are also available in the
 * family-neutral {@link IpAddress} form. Bytes after the IP datagram (Ethernet padding up to the 60-byte
 * minimum) are ignored. Offsets answered are relative to the frame start ({@link #offset()} in the store).
 * One instance is reused for every frame; nothing is allocated.
 */
public final class TcpPacket extends LinkAndIpFrame {
    public enum Status implements dev.irdmaemu.fw.Check {
        ACCEPTED("accepted"),
        ETH_TRUNCATED(LinkAndIpCheck.ETH_TRUNCATED.describe()),
        ETH_VLAN_TAG_TRUNCATED(LinkAndIpCheck.ETH_VLAN_TAG_TRUNCATED.describe()),
        NOT_IP(LinkAndIpCheck.NOT_IP.describe()),
        IPV4_TRUNCATED(LinkAndIpCheck.IPV4_TRUNCATED.describe()),
        IPV4_BAD_VERSION(LinkAndIpCheck.IPV4_BAD_VERSION.describe()),
        IPV4_IHL_TOO_SMALL(LinkAndIpCheck.IPV4_IHL_TOO_SMALL.describe()),
        IPV4_IHL_BEYOND_BUFFER(LinkAndIpCheck.IPV4_IHL_BEYOND_BUFFER.describe()),
        IPV4_TOTAL_LENGTH_BELOW_HEADER(LinkAndIpCheck.IPV4_TOTAL_LENGTH_BELOW_HEADER.describe()),
        IPV4_TOTAL_LENGTH_BEYOND_BUFFER(LinkAndIpCheck.IPV4_TOTAL_LENGTH_BEYOND_BUFFER.describe()),
        IPV4_BAD_CHECKSUM(LinkAndIpCheck.IPV4_BAD_CHECKSUM.describe()),
        IPV4_FRAGMENT(LinkAndIpCheck.IPV4_FRAGMENT.describe()),
        IPV6_TRUNCATED(LinkAndIpCheck.IPV6_TRUNCATED.describe()),
        IPV6_BAD_VERSION(LinkAndIpCheck.IPV6_BAD_VERSION.describe()),
        IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER(LinkAndIpCheck.IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER.describe()),
        IPV6_EXTENSION_HEADER(LinkAndIpCheck.IPV6_EXTENSION_HEADER.describe()),
        IPV6_V4MAPPED_ADDRESS("IPv6: source or destination is IPv4-mapped (::ffff:0:0/96), never valid on the wire"),
        NOT_TCP("IP protocol / next header is not TCP (6)"),
        TCP_TRUNCATED("TCP: " + TcpHeader.Status.TRUNCATED.describe()),
        TCP_DATA_OFFSET_TOO_SMALL("TCP: " + TcpHeader.Status.DATA_OFFSET_TOO_SMALL.describe()),
        TCP_DATA_OFFSET_BEYOND_SEGMENT("TCP: " + TcpHeader.Status.DATA_OFFSET_BEYOND_SEGMENT.describe()),
        TCP_OPTION_LENGTH_TOO_SMALL("TCP: " + TcpHeader.Status.OPTION_LENGTH_TOO_SMALL.describe()),
        TCP_OPTION_BEYOND_DATA_OFFSET("TCP: " + TcpHeader.Status.OPTION_BEYOND_DATA_OFFSET.describe()),
        TCP_MSS_BAD_LENGTH("TCP: " + TcpHeader.Status.MSS_BAD_LENGTH.describe()),
        TCP_WINDOW_SCALE_BAD_LENGTH("TCP: " + TcpHeader.Status.WINDOW_SCALE_BAD_LENGTH.describe()),
        TCP_SACK_PERMITTED_BAD_LENGTH("TCP: " + TcpHeader.Status.SACK_PERMITTED_BAD_LENGTH.describe()),
        TCP_TIMESTAMPS_BAD_LENGTH("TCP: " + TcpHeader.Status.TIMESTAMPS_BAD_LENGTH.describe()),
        TCP_BAD_CHECKSUM("TCP: checksum over the pseudo-header and segment does not verify");

        private final String description;

        Status(String description) {
            this.description = description;
        }

        @Override
        public String describe() {
            return description;
        }
    }

    private final TcpHeader tcp = new TcpHeader();

    private int tcpOffset;
    private long sourceHi;
    private long sourceLo;
    private long destinationHi;
    private long destinationLo;

    /** Wrap a whole Ethernet frame (no FCS). */
    public TcpPacket wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        clear();
        return this;
    }

    private void clear() {
        failedAt = -1;
        clearLinkAndIp();
        tcpOffset = -1;
        sourceHi = 0;
        sourceLo = 0;
        destinationHi = 0;
        destinationLo = 0;
    }

    public Status validate() {
        return validate(true);
    }

    /**
     * Every rule of {@link #validate()} but the IPv4 header checksum and the TCP checksum; answer those with
     * {@link #ipv4ChecksumVerifies()} and {@link #tcpChecksumVerifies()}.
     */
    public Status validateStructure() {
        return validate(false);
    }

    /**
     * True if the IPv4 header checksum verifies, or the frame is IPv6 (no header checksum). Meaningful once the IP
     * layer passed {@link #validateStructure()} (the status is {@code ACCEPTED}, {@code NOT_TCP} or a TCP rule).
     */
    public boolean ipv4ChecksumVerifies() {
        return isIpv6() || (ipOffset() >= 0 && ipv4().checksumVerifies());
    }

    /** True if the TCP checksum over the pseudo-header and segment verifies; after {@code ACCEPTED} only. */
    public boolean tcpChecksumVerifies() {
        return tcpOffset >= 0 && tcp.checksumValid(pseudoHeaderSum());
    }

    private Status validate(boolean checksums) {
        clear();
        // Leave the TCP flyweight empty until its layer is reached: an empty window on this frame's store (a null
        // store here, replaced by the frame's just after, would cost a reference store each frame).
        tcp.wrap(store, base, 0);
        LinkAndIpCheck link = validateLinkAndIp(InternetChecksum.PROTOCOL_TCP, checksums);
        if (!link.accepted()) {
            return map(link);
        }
        if (isIpv6()) {
            Ipv6Header ipv6 = ipv6();
            sourceHi = ipv6.sourceHi();
            sourceLo = ipv6.sourceLo();
            destinationHi = ipv6.destinationHi();
            destinationLo = ipv6.destinationLo();
            if (IpAddress.isIpv4Mapped(sourceHi, sourceLo)) {
                return fail(Status.IPV6_V4MAPPED_ADDRESS, ipOffset() + 8);
            }
            if (IpAddress.isIpv4Mapped(destinationHi, destinationLo)) {
                return fail(Status.IPV6_V4MAPPED_ADDRESS, ipOffset() + 24);
            }
        } else {
            sourceHi = IpAddress.IPV4_MAPPED_HI;
            sourceLo = IpAddress.mappedLo(ipv4().source());
            destinationHi = IpAddress.IPV4_MAPPED_HI;
            destinationLo = IpAddress.mappedLo(ipv4().destination());
        }
        tcpOffset = transportOffset();
        TcpHeader.Status ts = tcp.wrap(store, base + tcpOffset, transportLength()).validate();
        if (!ts.accepted()) {
            return fail(map(ts), tcpOffset + tcp.failedAt());
        }
        if (checksums && !tcp.checksumValid(pseudoHeaderSum())) {
            return fail(Status.TCP_BAD_CHECKSUM, tcpOffset + 16);
        }
        return Status.ACCEPTED;
    }

    private static Status map(LinkAndIpCheck c) {
        switch (c) {
            case ETH_TRUNCATED: return Status.ETH_TRUNCATED;
            case ETH_VLAN_TAG_TRUNCATED: return Status.ETH_VLAN_TAG_TRUNCATED;
            case NOT_IP: return Status.NOT_IP;
            case IPV4_TRUNCATED: return Status.IPV4_TRUNCATED;
            case IPV4_BAD_VERSION: return Status.IPV4_BAD_VERSION;
            case IPV4_IHL_TOO_SMALL: return Status.IPV4_IHL_TOO_SMALL;
            case IPV4_IHL_BEYOND_BUFFER: return Status.IPV4_IHL_BEYOND_BUFFER;
            case IPV4_TOTAL_LENGTH_BELOW_HEADER: return Status.IPV4_TOTAL_LENGTH_BELOW_HEADER;
            case IPV4_TOTAL_LENGTH_BEYOND_BUFFER: return Status.IPV4_TOTAL_LENGTH_BEYOND_BUFFER;
            case IPV4_BAD_CHECKSUM: return Status.IPV4_BAD_CHECKSUM;
            case IPV4_FRAGMENT: return Status.IPV4_FRAGMENT;
            case IPV6_TRUNCATED: return Status.IPV6_TRUNCATED;
            case IPV6_BAD_VERSION: return Status.IPV6_BAD_VERSION;
            case IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER: return Status.IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER;
            case IPV6_EXTENSION_HEADER: return Status.IPV6_EXTENSION_HEADER;
            case WRONG_TRANSPORT: return Status.NOT_TCP;
            default: return Status.ACCEPTED;
        }
    }

    private static Status map(TcpHeader.Status s) {
        switch (s) {
            case TRUNCATED: return Status.TCP_TRUNCATED;
            case DATA_OFFSET_TOO_SMALL: return Status.TCP_DATA_OFFSET_TOO_SMALL;
            case DATA_OFFSET_BEYOND_SEGMENT: return Status.TCP_DATA_OFFSET_BEYOND_SEGMENT;
            case OPTION_LENGTH_TOO_SMALL: return Status.TCP_OPTION_LENGTH_TOO_SMALL;
            case OPTION_BEYOND_DATA_OFFSET: return Status.TCP_OPTION_BEYOND_DATA_OFFSET;
            case MSS_BAD_LENGTH: return Status.TCP_MSS_BAD_LENGTH;
            case WINDOW_SCALE_BAD_LENGTH: return Status.TCP_WINDOW_SCALE_BAD_LENGTH;
            case SACK_PERMITTED_BAD_LENGTH: return Status.TCP_SACK_PERMITTED_BAD_LENGTH;
            case TIMESTAMPS_BAD_LENGTH: return Status.TCP_TIMESTAMPS_BAD_LENGTH;
            default: return Status.ACCEPTED;
        }
    }

    public TcpHeader tcp() {
        return tcp;
    }

    /** 802.1Q VLAN id, -1 if the frame is untagged. */
    public int vlanId() {
        return ethernet().vlanId();
    }

    /** Offset of the TCP header from the frame start, -1 before the IP layer validated. */
    public int tcpOffset() {
        return tcpOffset;
    }

    /** Offset of the TCP data from the frame start (valid after a successful validate). */
    public long tcpPayloadOffset() {
        return tcpOffset < 0 ? -1 : tcpOffset + tcp.headerLength();
    }

    public long tcpPayloadLength() {
        return tcpOffset < 0 ? 0 : tcp.payloadLength();
    }

    /** Source address in {@link IpAddress} form (IPv4 mapped), high half. */
    public long sourceHi() {
        return sourceHi;
    }

    public long sourceLo() {
        return sourceLo;
    }

    public long destinationHi() {
        return destinationHi;
    }

    public long destinationLo() {
        return destinationLo;
    }
}
