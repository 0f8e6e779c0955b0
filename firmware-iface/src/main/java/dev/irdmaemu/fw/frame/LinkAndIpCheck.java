package dev.irdmaemu.fw.frame;

/**
 * The rules {@link LinkAndIpLayers} applies to the Ethernet and IP layers of a received frame, one constant each
 * (IEEE 802.1Q, RFC 791, RFC 8200, as ice_txrx.c and drivers/infiniband/sw/rxe/rxe_recv.c take a frame apart), from
 * the Ethernet header inwards; the last one is the transport the caller expects. The whole-frame verdicts of the TCP
 * and RoCEv2 parsers start with these.
 */
public enum LinkAndIpCheck implements dev.irdmaemu.fw.Check {
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
    WRONG_TRANSPORT("IP protocol / next header is not the expected transport");

    private final String description;

    LinkAndIpCheck(String description) {
        this.description = description;
    }

    @Override
    public String describe() {
        return description;
    }

    static LinkAndIpCheck of(Ipv4Header.Status s) {
        switch (s) {
            case TRUNCATED: return IPV4_TRUNCATED;
            case BAD_VERSION: return IPV4_BAD_VERSION;
            case IHL_TOO_SMALL: return IPV4_IHL_TOO_SMALL;
            case IHL_BEYOND_BUFFER: return IPV4_IHL_BEYOND_BUFFER;
            case TOTAL_LENGTH_BELOW_HEADER: return IPV4_TOTAL_LENGTH_BELOW_HEADER;
            case TOTAL_LENGTH_BEYOND_BUFFER: return IPV4_TOTAL_LENGTH_BEYOND_BUFFER;
            case BAD_CHECKSUM: return IPV4_BAD_CHECKSUM;
            case FRAGMENT: return IPV4_FRAGMENT;
            default: return ACCEPTED;
        }
    }

    static LinkAndIpCheck of(Ipv6Header.Status s) {
        switch (s) {
            case TRUNCATED: return IPV6_TRUNCATED;
            case BAD_VERSION: return IPV6_BAD_VERSION;
            case PAYLOAD_LENGTH_BEYOND_BUFFER: return IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER;
            case EXTENSION_HEADER: return IPV6_EXTENSION_HEADER;
            default: return ACCEPTED;
        }
    }
}
