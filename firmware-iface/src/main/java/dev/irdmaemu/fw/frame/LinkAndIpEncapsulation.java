package dev.irdmaemu.fw.frame;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Reusable, allocation-free writer of the link and network layers every emitted frame begins with: Ethernet
 * (optionally one 802.1Q tag, IEEE 802.1Q §9.6) and IPv4 (RFC 791) or IPv6 (RFC 8200), and the transport's
 * pseudo-header sum over the same addresses (RFC 793 §3.1, RFC 768, RFC 8200 §8.1), as drivers/infiniband/sw/rxe/
 * rxe_net.c prepares them for a RoCEv2 packet. {@link TcpPacketBuilder} and the RoCEv2 frame builder each hold one and
 * write their transport behind it.
 *
 * <p>Fields persist until changed or {@link #reset()}. Addresses are in the {@link IpAddress} form: both IPv4-mapped
 * means an IPv4 packet, neither means IPv6.
 */
public final class LinkAndIpEncapsulation {
    private long destinationMac;
    private long sourceMac;
    private boolean vlan;
    private int pcp;
    private boolean dei;
    private int vlanId;

    private boolean ipv6;
    private long sourceHi;
    private long sourceLo;
    private long destinationHi;
    private long destinationLo;
    private int tos;
    private int identification;
    private boolean dontFragment;
    private int ttl;
    private int flowLabel;

    /** The pseudo-header sum of the last {@link #write}. */
    private long pseudoHeaderSum;

    public LinkAndIpEncapsulation() {
        reset();
    }

    /** Back to defaults: no VLAN, IPv4 0.0.0.0 both ways, TOS 0, identification 0, DF set, TTL/hop limit 64. */
    public void reset() {
        destinationMac = 0;
        sourceMac = 0;
        vlan = false;
        pcp = 0;
        dei = false;
        vlanId = 0;
        ipv6 = false;
        sourceHi = IpAddress.IPV4_MAPPED_HI;
        sourceLo = IpAddress.mappedLo(0);
        destinationHi = IpAddress.IPV4_MAPPED_HI;
        destinationLo = IpAddress.mappedLo(0);
        tos = 0;
        identification = 0;
        dontFragment = true;
        ttl = 64;
        flowLabel = 0;
        pseudoHeaderSum = 0;
    }

    /** MAC addresses as 48-bit values (first octet in bits 47..40). */
    public void ethernet(long destination, long source) {
        this.destinationMac = destination & 0xffff_ffff_ffffL;
        this.sourceMac = source & 0xffff_ffff_ffffL;
    }

    /** One 802.1Q tag (priority, drop eligible, VLAN id). */
    public void vlan(int pcp, boolean dei, int vlanId) {
        if (pcp < 0 || pcp > 7 || vlanId < 0 || vlanId > 0xfff) {
            throw new IllegalArgumentException("802.1Q PCP must be 0..7 and VID 0..4095");
        }
        this.vlan = true;
        this.pcp = pcp;
        this.dei = dei;
        this.vlanId = vlanId;
    }

    public void noVlan() {
        this.vlan = false;
    }

    /** Both addresses of one family (see the class comment); mixed families are refused. */
    public void addresses(long sourceHi, long sourceLo, long destinationHi, long destinationLo) {
        boolean v4s = IpAddress.isIpv4Mapped(sourceHi, sourceLo);
        if (v4s != IpAddress.isIpv4Mapped(destinationHi, destinationLo)) {
            throw new IllegalArgumentException("source and destination are of different families");
        }
        this.ipv6 = !v4s;
        this.sourceHi = sourceHi;
        this.sourceLo = sourceLo;
        this.destinationHi = destinationHi;
        this.destinationLo = destinationLo;
    }

    /** IPv4 TOS octet, or IPv6 traffic class (same DSCP/ECN layout, RFC 2474 §3, RFC 3168 §5). */
    public void tos(int tos) {
        this.tos = tos & 0xff;
    }

    public void identification(int identification) {
        this.identification = identification & 0xffff;
    }

    public void dontFragment(boolean dontFragment) {
        this.dontFragment = dontFragment;
    }

    /** IPv4 TTL, or IPv6 hop limit. */
    public void ttl(int ttl) {
        this.ttl = ttl & 0xff;
    }

    public void flowLabel(int flowLabel) {
        this.flowLabel = flowLabel & 0xfffff;
    }

    public boolean isIpv6() {
        return ipv6;
    }

    /** Bytes of the Ethernet header: 14, or 18 with the tag. */
    public int linkLength() {
        return vlan ? EthernetFrame.TAGGED_HEADER_LENGTH : EthernetFrame.HEADER_LENGTH;
    }

    /** Bytes of the IP header: 20 (IPv4 without options) or 40. */
    public int ipHeaderLength() {
        return ipv6 ? Ipv6Header.HEADER_LENGTH : Ipv4Header.MIN_HEADER_LENGTH;
    }

    /** Bytes of the Ethernet and IP headers together. */
    public int length() {
        return linkLength() + ipHeaderLength();
    }

    /**
     * The largest IP payload one packet carries: 65535 for IPv6 (its payload length field), 65535 less the header
     * for IPv4 (its total length field).
     */
    public int maxIpPayload() {
        return ipv6 ? 0xffff : 0xffff - Ipv4Header.MIN_HEADER_LENGTH;
    }

    /**
     * Writes the Ethernet and IP headers at absolute {@code offset} for an IP payload of {@code ipPayload} bytes of
     * transport {@code protocol}, and keeps the matching pseudo-header sum ({@link #pseudoHeaderSum()}); answers the
     * absolute offset right after the IP header.
     */
    public long write(BytesStore<?, ?> out, long offset, int ipPayload, int protocol) {
        long at = offset;
        int etherType = ipv6 ? EthernetFrame.ETHERTYPE_IPV6 : EthernetFrame.ETHERTYPE_IPV4;
        at += vlan
                ? EthernetFrame.writeTagged(out, at, destinationMac, sourceMac, pcp, dei, vlanId, etherType)
                : EthernetFrame.write(out, at, destinationMac, sourceMac, etherType);
        if (ipv6) {
            at += Ipv6Header.write(out, at, tos, flowLabel, ipPayload, protocol, ttl,
                    sourceHi, sourceLo, destinationHi, destinationLo);
            pseudoHeaderSum = InternetChecksum.ipv6PseudoHeaderSum(sourceHi, sourceLo, destinationHi, destinationLo,
                    ipPayload, protocol);
        } else {
            int src = IpAddress.ipv4(sourceLo);
            int dst = IpAddress.ipv4(destinationLo);
            at += Ipv4Header.write(out, at, tos, Ipv4Header.MIN_HEADER_LENGTH + ipPayload, identification,
                    dontFragment, ttl, protocol, src, dst);
            pseudoHeaderSum = InternetChecksum.ipv4PseudoHeaderSum(src, dst, protocol, ipPayload);
        }
        return at;
    }

    /** The transport pseudo-header sum of the last {@link #write} (its addresses, protocol and length). */
    public long pseudoHeaderSum() {
        return pseudoHeaderSum;
    }
}
