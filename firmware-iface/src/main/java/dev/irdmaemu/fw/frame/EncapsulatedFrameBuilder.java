package dev.irdmaemu.fw.frame;

/**
 * The link and IP settings every frame builder offers, written through one {@link LinkAndIpEncapsulation}: the MAC
 * addresses, the 802.1Q tag, IPv4 addresses, TOS/traffic class, TTL/hop limit, flow label and identification (the
 * fields drivers/infiniband/sw/rxe/rxe_net.c fills before the transport). {@code B} is the builder's own class, so that
 * each setter answers it for chaining; the builder adds its transport and the address rules it needs.
 */
public abstract class EncapsulatedFrameBuilder<B extends EncapsulatedFrameBuilder<B>> implements FrameWriter {
    /** The Ethernet and IP headers this builder writes in front of its transport. */
    protected final LinkAndIpEncapsulation link = new LinkAndIpEncapsulation();

    protected EncapsulatedFrameBuilder() {
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** MAC addresses as 48-bit values (first octet in bits 47..40). */
    public final B ethernet(long destination, long source) {
        link.ethernet(destination, source);
        return self();
    }

    /** One 802.1Q tag (priority, drop eligible, VLAN id). */
    public final B vlan(int pcp, boolean dei, int vlanId) {
        link.vlan(pcp, dei, vlanId);
        return self();
    }

    public final B noVlan() {
        link.noVlan();
        return self();
    }

    public final B ipv4(int source, int destination) {
        link.addresses(IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(source),
                IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(destination));
        return self();
    }

    /**
     * IPv6 addresses, high and low halves; each builder says what it makes of IPv4-mapped ones (the TCP builder
     * refuses them, the RoCEv2 builder sends IPv4).
     */
    public abstract B ipv6(long sourceHi, long sourceLo, long destinationHi, long destinationLo);

    /** IPv4 TOS octet, or IPv6 traffic class (same DSCP/ECN layout, RFC 2474 §3, RFC 3168 §5; CE = 3). */
    public final B tos(int tos) {
        link.tos(tos);
        return self();
    }

    public final B identification(int identification) {
        link.identification(identification);
        return self();
    }

    /** IPv4 TTL, or IPv6 hop limit. */
    public final B ttl(int ttl) {
        link.ttl(ttl);
        return self();
    }

    public final B flowLabel(int flowLabel) {
        link.flowLabel(flowLabel);
        return self();
    }
}
