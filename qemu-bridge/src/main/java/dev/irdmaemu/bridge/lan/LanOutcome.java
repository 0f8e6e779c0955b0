package dev.irdmaemu.bridge.lan;

/** What the {@link LanResponder} did with one frame; each outcome has its counter. */
public enum LanOutcome {
    ARP_REPLIED("ARP request for the port's address answered"),
    ECHO_REPLIED("ICMP echo request answered"),
    NEIGHBOR_ADVERTISED("neighbor solicitation for the port's address answered"),
    ECHO6_REPLIED("ICMPv6 echo request answered"),
    NEIGHBOUR_NOTED("ARP reply or neighbor advertisement: the sender's address noted, nothing to answer"),
    NOT_FOR_US("a valid frame for another address, or of a kind the LAN function leaves alone"),
    FRAGMENT("an IPv4 fragment: the responder does not reassemble"),
    ADDRESS_CONFLICT("another station claims the port's address"),
    MALFORMED_ETHERNET("malformed Ethernet header"),
    MALFORMED_ARP("malformed ARP packet"),
    MALFORMED_IPV4("malformed IPv4 header"),
    MALFORMED_IPV6("malformed IPv6 header"),
    MALFORMED_ICMP("malformed ICMP message"),
    MALFORMED_ICMPV6("malformed ICMPv6 message"),
    MALFORMED_ND("Neighbor Discovery message that fails RFC 4861's validity checks"),
    TOO_LONG("the answer would not fit the port's transmit buffer");

    private final String description;

    LanOutcome(String description) {
        this.description = description;
    }

    public String describe() {
        return description;
    }

    /** True for the outcomes that drop a frame as malformed. */
    public boolean malformed() {
        return name().startsWith("MALFORMED_");
    }
}
