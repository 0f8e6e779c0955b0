package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.ByteWindow;
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
public final class TcpPacket extends ByteWindow {
    public enum Status implements dev.irdmaemu.fw.Check {
        ACCEPTED("accepted"),
        ETH_TRUNCATED("Ethernet: " + EthernetFrame.Status.TRUNCATED.describe()),
        ETH_VLAN_TAG_TRUNCATED("Ethernet: " + EthernetFrame.Status.TAG_TRUNCATED.describe()),
        NOT_IP("Ethernet: EtherType is neither IPv4 nor IPv6"),
        IPV4_TRUNCATED("IPv4: " + Ipv4Header.Status.TRUNCATED.describe()),
        IPV4_BAD_VERSION("IPv4: " + Ipv4Header.Status.BAD_VERSION.describe()),
        IPV4_IHL_TOO_SMALL("IPv4: " + Ipv4Header.Status.IHL_TOO_SMALL.describe()),
        IPV4_IHL_BEYOND_BUFFER("IPv4: " + Ipv4Header.Status.IHL_BEYOND_BUFFER.describe()),
        IPV4_TOTAL_LENGTH_BELOW_HEADER("IPv4: " + Ipv4Header.Status.TOTAL_LENGTH_BELOW_HEADER.describe()),
        IPV4_TOTAL_LENGTH_BEYOND_BUFFER("IPv4: " + Ipv4Header.Status.TOTAL_LENGTH_BEYOND_BUFFER.describe()),
        IPV4_BAD_CHECKSUM("IPv4: " + Ipv4Header.Status.BAD_CHECKSUM.describe()),
        IPV4_FRAGMENT("IPv4: " + Ipv4Header.Status.FRAGMENT.describe()),
        IPV6_TRUNCATED("IPv6: " + Ipv6Header.Status.TRUNCATED.describe()),
        IPV6_BAD_VERSION("IPv6: " + Ipv6Header.Status.BAD_VERSION.describe()),
        IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER("IPv6: " + Ipv6Header.Status.PAYLOAD_LENGTH_BEYOND_BUFFER.describe()),
        IPV6_EXTENSION_HEADER("IPv6: " + Ipv6Header.Status.EXTENSION_HEADER.describe()),
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

    private final EthernetFrame ethernet = new EthernetFrame();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();
    private final TcpHeader tcp = new TcpHeader();

    private boolean isIpv6;
    private int ipOffset;
    private int tcpOffset;
    private long sourceHi;
    private long sourceLo;
    private long destinationHi;
    private long destinationLo;
    /** The TCP pseudo-header sum, once the IP layer validated. */
    private long pseudo;

    /** Wrap a whole Ethernet frame (no FCS). */
    public TcpPacket wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        clear();
        ethernet.wrap(store, offset, this.length);
        return this;
    }

    private void clear() {
        failedAt = -1;
        isIpv6 = false;
        ipOffset = -1;
        tcpOffset = -1;
        sourceHi = 0;
        sourceLo = 0;
        destinationHi = 0;
        destinationLo = 0;
        pseudo = 0;
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
        return isIpv6 || (ipOffset >= 0 && ipv4.checksumVerifies());
    }

    /** True if the TCP checksum over the pseudo-header and segment verifies; after {@code ACCEPTED} only. */
    public boolean tcpChecksumVerifies() {
        return tcpOffset >= 0 && tcp.checksumValid(pseudo);
    }

    private Status validate(boolean checksums) {
        clear();
        ethernet.wrap(store, base, length);
        // Leave the IP and TCP flyweights empty until their layer is reached: empty windows on this frame's store
        // (a null store here, replaced by the frame's just after, would cost a reference store each frame).
        ipv4.wrap(store, base, 0);
        ipv6.wrap(store, base, 0);
        tcp.wrap(store, base, 0);

        EthernetFrame.Status es = ethernet.validate();
        if (!es.accepted()) {
            return fail(es == EthernetFrame.Status.TRUNCATED ? Status.ETH_TRUNCATED : Status.ETH_VLAN_TAG_TRUNCATED,
                    ethernet.failedAt());
        }
        int etherType = ethernet.etherType();
        ipOffset = ethernet.payloadOffset();
        long ipAt = base + ipOffset;
        long ipRoom = length - ipOffset;
        long segmentLength;
        if (etherType == EthernetFrame.ETHERTYPE_IPV4) {
            ipv4.wrap(store, ipAt, ipRoom);
            Ipv4Header.Status s = checksums ? ipv4.validate() : ipv4.validateStructure();
            if (!s.accepted()) {
                return fail(map(s), ipOffset + ipv4.failedAt());
            }
            if (ipv4.protocol() != InternetChecksum.PROTOCOL_TCP) {
                return fail(Status.NOT_TCP, ipOffset + 9);
            }
            tcpOffset = ipOffset + ipv4.headerLength();
            segmentLength = ipv4.payloadLength();
            sourceHi = IpAddress.IPV4_MAPPED_HI;
            sourceLo = IpAddress.mappedLo(ipv4.source());
            destinationHi = IpAddress.IPV4_MAPPED_HI;
            destinationLo = IpAddress.mappedLo(ipv4.destination());
            pseudo = InternetChecksum.ipv4PseudoHeaderSum(ipv4.source(), ipv4.destination(),
                    InternetChecksum.PROTOCOL_TCP, (int) segmentLength);
        } else if (etherType == EthernetFrame.ETHERTYPE_IPV6) {
            isIpv6 = true;
            Ipv6Header.Status s = ipv6.wrap(store, ipAt, ipRoom).validate();
            if (!s.accepted()) {
                return fail(map(s), ipOffset + ipv6.failedAt());
            }
            if (ipv6.nextHeader() != InternetChecksum.PROTOCOL_TCP) {
                return fail(Status.NOT_TCP, ipOffset + 6);
            }
            sourceHi = ipv6.sourceHi();
            sourceLo = ipv6.sourceLo();
            destinationHi = ipv6.destinationHi();
            destinationLo = ipv6.destinationLo();
            if (IpAddress.isIpv4Mapped(sourceHi, sourceLo)) {
                return fail(Status.IPV6_V4MAPPED_ADDRESS, ipOffset + 8);
            }
            if (IpAddress.isIpv4Mapped(destinationHi, destinationLo)) {
                return fail(Status.IPV6_V4MAPPED_ADDRESS, ipOffset + 24);
            }
            tcpOffset = ipOffset + Ipv6Header.HEADER_LENGTH;
            segmentLength = ipv6.payloadLength();
            pseudo = InternetChecksum.ipv6PseudoHeaderSum(sourceHi, sourceLo, destinationHi, destinationLo,
                    segmentLength, InternetChecksum.PROTOCOL_TCP);
        } else {
            return fail(Status.NOT_IP, ethernet.hasVlanTag() ? 16 : 12);
        }
        TcpHeader.Status ts = tcp.wrap(store, base + tcpOffset, segmentLength).validate();
        if (!ts.accepted()) {
            return fail(map(ts), tcpOffset + tcp.failedAt());
        }
        if (checksums && !tcp.checksumValid(pseudo)) {
            return fail(Status.TCP_BAD_CHECKSUM, tcpOffset + 16);
        }
        return Status.ACCEPTED;
    }

    private static Status map(Ipv4Header.Status s) {
        switch (s) {
            case TRUNCATED: return Status.IPV4_TRUNCATED;
            case BAD_VERSION: return Status.IPV4_BAD_VERSION;
            case IHL_TOO_SMALL: return Status.IPV4_IHL_TOO_SMALL;
            case IHL_BEYOND_BUFFER: return Status.IPV4_IHL_BEYOND_BUFFER;
            case TOTAL_LENGTH_BELOW_HEADER: return Status.IPV4_TOTAL_LENGTH_BELOW_HEADER;
            case TOTAL_LENGTH_BEYOND_BUFFER: return Status.IPV4_TOTAL_LENGTH_BEYOND_BUFFER;
            case BAD_CHECKSUM: return Status.IPV4_BAD_CHECKSUM;
            case FRAGMENT: return Status.IPV4_FRAGMENT;
            default: return Status.ACCEPTED;
        }
    }

    private static Status map(Ipv6Header.Status s) {
        switch (s) {
            case TRUNCATED: return Status.IPV6_TRUNCATED;
            case BAD_VERSION: return Status.IPV6_BAD_VERSION;
            case PAYLOAD_LENGTH_BEYOND_BUFFER: return Status.IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER;
            case EXTENSION_HEADER: return Status.IPV6_EXTENSION_HEADER;
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

    public TcpHeader tcp() {
        return tcp;
    }

    public boolean isIpv6() {
        return isIpv6;
    }

    /** 802.1Q VLAN id, -1 if the frame is untagged. */
    public int vlanId() {
        return ethernet.vlanId();
    }

    /** Offset of the IP header from the frame start, -1 before the Ethernet layer validated. */
    public int ipOffset() {
        return ipOffset;
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
