package dev.irdmaemu.bridge.lan;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IcmpMessage;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import dev.irdmaemu.model.port.FrameTransmitter;
import dev.irdmaemu.model.port.LanSink;
import java.util.OptionalLong;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LAN side of the port for the hosted node's own addresses. On the E810 the frames the RDMA block does not
 * take go to the LAN function (the ice netdev) and the host's network stack answers them; here this responder
 * plays that part, for what a peer needs before it can open an iWARP connection to the node:
 * <ul>
 *   <li>ARP (RFC 826): a request for the port's IPv4 address gets a reply;</li>
 *   <li>ICMP echo (RFC 792): a request to the port's IPv4 address gets a reply with the same identifier,
 *       sequence number and data;</li>
 *   <li>IPv6 Neighbor Discovery (RFC 4861 §7.2.4): a solicitation for the port's IPv6 address gets a solicited
 *       advertisement with the target link-layer address option (to all nodes, unsolicited, for a duplicate
 *       address detection probe);</li>
 *   <li>ICMPv6 echo (RFC 4443 §4.2): as for IPv4.</li>
 * </ul>
 * It learns its neighbours as a host does, from ARP (RFC 826's merge rule: update a known sender, add one that
 * addressed us) and from Neighbor Discovery (RFC 4861 §7.2.3: a solicitation's source link-layer address; §7.2.5:
 * an advertisement updates a known entry), inside the port's subnets only, and hands each new or changed entry
 * to a {@link NeighbourSink} (the CM's neighbour resolution).
 *
 * <p>Every frame is hostile: each is validated with the frame codecs, and a malformed one is dropped and counted
 * under its {@link LanOutcome}, never thrown on. Runs on the model's thread; allocation-free per frame.
 */
public final class LanResponder implements LanSink {
    private static final Logger LOG = LoggerFactory.getLogger(LanResponder.class);

    /** Where learned neighbours go (IPv4 as the IPv4-mapped IPv6 address: hi 0, lo ::ffff:a.b.c.d). */
    @FunctionalInterface
    public interface NeighbourSink {
        NeighbourSink NONE = (ipv4, hi, lo, mac) -> { };

        void learned(boolean ipv4, long addressHi, long addressLo, long mac);
    }

    /** Largest frame answered: ARP, Neighbor Discovery and echoes of ping's usual sizes; longer echoes are not. */
    public static final int MAX_FRAME = 2048;
    /**
     * IEEE 802.3 minimum frame without the FCS: shorter answers are padded with zeros (a tagged one to 64, IEEE
     * 802.1Q §6.9.1: the tag is inserted into a minimum-size frame, not taken out of its padding).
     */
    static final int MIN_FRAME = 60;
    /** Neighbour entries kept (the oldest is replaced when full). */
    static final int NEIGHBOURS = 64;
    static final long BROADCAST_MAC = 0xffff_ffff_ffffL;
    /** RFC 2464 §7: IPv6 multicast to 33:33 + the low 32 bits; ff02::1 (all nodes) is 33:33:00:00:00:01. */
    static final long ALL_NODES_MAC = 0x3333_0000_0001L;
    static final long ALL_NODES_HI = 0xff02_0000_0000_0000L;
    static final long ALL_NODES_LO = 1L;
    /** Linux's default TTL / hop limit for what it originates (net.ipv4.ip_default_ttl). */
    static final int DEFAULT_TTL = 64;

    private static final LanOutcome[] OUTCOMES = LanOutcome.values();

    private final LanAddresses self;
    private final LanTag tag;
    private final FrameTransmitter out;
    private final NeighbourSink neighbours;
    private final EthernetFrame ethernet = new EthernetFrame();
    private final ArpPacket arp = new ArpPacket();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();
    private final IcmpMessage icmp = new IcmpMessage();
    private final BytesStore<?, ?> tx = BytesStore.wrap(new byte[MAX_FRAME]);
    private final long[] counts = new long[OUTCOMES.length];
    private final boolean[] neighbourV4 = new boolean[NEIGHBOURS];
    private final long[] neighbourHi = new long[NEIGHBOURS];
    private final long[] neighbourLo = new long[NEIGHBOURS];
    private final long[] neighbourMac = new long[NEIGHBOURS];
    private int neighbourCount;
    private int neighbourNext;
    private int identification;
    private long frames;
    private Check lastRule;
    private long lastRuleAt = -1;

    /** The responder of the untagged netdev. */
    public LanResponder(LanAddresses self, FrameTransmitter out, NeighbourSink neighbours) {
        this(self, LanTag.UNTAGGED, out, neighbours);
    }

    /**
     * The responder of the netdev {@code tag} names: it takes only the frames of that VLAN (or only untagged ones)
     * and sends its answers with that tag, as a VLAN netdev on the host's NIC does (Linux net/8021q).
     */
    public LanResponder(LanAddresses self, LanTag tag, FrameTransmitter out, NeighbourSink neighbours) {
        this.self = self;
        this.tag = tag;
        this.out = out;
        this.neighbours = neighbours == null ? NeighbourSink.NONE : neighbours;
    }

    @Override
    public void frame(BytesStore<?, ?> store, long offset, int length) {
        frames++;
        lastRule = null;
        lastRuleAt = -1;
        LanOutcome o = handle(store, offset, length);
        counts[o.ordinal()]++;
        if (o.malformed() && LOG.isDebugEnabled()) {
            LOG.debug("LAN: {} frame of {} bytes dropped: {} at {}", o, length,
                    lastRule == null ? "?" : lastRule.describe(), lastRuleAt);
        }
    }

    private LanOutcome handle(BytesStore<?, ?> store, long offset, int length) {
        EthernetFrame.Status es = ethernet.wrap(store, offset, length).validate();
        if (!es.accepted()) {
            return rule(LanOutcome.MALFORMED_ETHERNET, es, ethernet.failedAt());
        }
        if (group(ethernet.source())) {
            // IEEE 802.3 §3.2.3: a source address is always an individual address
            return rule(LanOutcome.MALFORMED_ETHERNET, null, 6);
        }
        if (!tag.matches(ethernet)) {
            return LanOutcome.NOT_FOR_US; // another VLAN's netdev, or tagged where this one is not
        }
        long dst = ethernet.destination();
        if (!group(dst) && dst != self.mac()) {
            return LanOutcome.NOT_FOR_US;
        }
        long at = offset + ethernet.payloadOffset();
        long payload = ethernet.payloadLength();
        return switch (ethernet.etherType()) {
            case EthernetFrame.ETHERTYPE_ARP -> arp(store, at, payload);
            case EthernetFrame.ETHERTYPE_IPV4 -> ipv4(store, at, payload, group(dst));
            case EthernetFrame.ETHERTYPE_IPV6 -> ipv6(store, at, payload, group(dst));
            default -> LanOutcome.NOT_FOR_US;
        };
    }

    // ---- ARP

    private LanOutcome arp(BytesStore<?, ?> store, long at, long length) {
        ArpPacket.Status st = arp.wrap(store, at, length).validate();
        if (!st.accepted()) {
            return rule(LanOutcome.MALFORMED_ARP, st, ethernet.payloadOffset() + arp.failedAt());
        }
        int sender = arp.senderIp();
        int target = arp.targetIp();
        long senderMac = arp.senderMac();
        if (sender == self.ipv4()) {
            return LanOutcome.ADDRESS_CONFLICT;
        }
        boolean forUs = target == self.ipv4();
        // RFC 826, "Packet Reception": merge the sender into a known entry; add it when the packet is for us
        note(true, IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(sender), senderMac, forUs);
        if (!forUs) {
            return LanOutcome.NOT_FOR_US;
        }
        if (arp.operation() == ArpPacket.REPLY) {
            return LanOutcome.NEIGHBOUR_NOTED;
        }
        if (group(senderMac) || senderMac == 0) {
            return LanOutcome.NOT_FOR_US; // nobody to answer
        }
        int len = tag.write(tx, ethernet.source(), self.mac(), EthernetFrame.ETHERTYPE_ARP);
        len += ArpPacket.write(tx, len, ArpPacket.REPLY, self.mac(), self.ipv4(), senderMac, sender);
        send(len);
        return LanOutcome.ARP_REPLIED;
    }

    // ---- IPv4 / ICMP

    private LanOutcome ipv4(BytesStore<?, ?> store, long at, long length, boolean groupDestination) {
        Ipv4Header.Status st = ipv4.wrap(store, at, length).validate();
        if (st == Ipv4Header.Status.FRAGMENT) {
            return LanOutcome.FRAGMENT;
        }
        if (!st.accepted()) {
            return rule(LanOutcome.MALFORMED_IPV4, st, ethernet.payloadOffset() + ipv4.failedAt());
        }
        if (ipv4.destination() != self.ipv4() || ipv4.protocol() != IcmpMessage.PROTOCOL_ICMP || groupDestination) {
            return LanOutcome.NOT_FOR_US;
        }
        long icmpAt = at + ipv4.payloadOffset();
        int icmpLength = ipv4.payloadLength();
        IcmpMessage.Status is = icmp.wrap(store, icmpAt, icmpLength).validateV4();
        if (!is.accepted()) {
            return rule(LanOutcome.MALFORMED_ICMP, is, ethernet.payloadOffset() + ipv4.payloadOffset() + icmp.failedAt());
        }
        int source = ipv4.source();
        if (icmp.type() != IcmpMessage.ECHO_REQUEST || icmp.code() != 0 || !unicastV4(source)) {
            return LanOutcome.NOT_FOR_US;
        }
        int len = tag.headerLength() + Ipv4Header.MIN_HEADER_LENGTH + icmpLength;
        if (len > MAX_FRAME) {
            return LanOutcome.TOO_LONG;
        }
        // RFC 792 "Echo or Echo Reply Message": the same identifier, sequence number and data, type 0
        int ip = tag.write(tx, ethernet.source(), self.mac(), EthernetFrame.ETHERTYPE_IPV4);
        identification = identification + 1 & 0xffff;
        Ipv4Header.write(tx, ip, ipv4.tos(), Ipv4Header.MIN_HEADER_LENGTH + icmpLength, identification, false,
                DEFAULT_TTL, IcmpMessage.PROTOCOL_ICMP, self.ipv4(), source);
        long reply = ip + Ipv4Header.MIN_HEADER_LENGTH;
        tx.write(reply, store, icmpAt, icmpLength);
        NetworkOrder.put8(tx, reply, IcmpMessage.ECHO_REPLY);
        IcmpMessage.writeChecksum(tx, reply, icmpLength, 0);
        send(len);
        return LanOutcome.ECHO_REPLIED;
    }

    // ---- IPv6 / ICMPv6 / Neighbor Discovery

    private LanOutcome ipv6(BytesStore<?, ?> store, long at, long length, boolean groupDestination) {
        Ipv6Header.Status st = ipv6.wrap(store, at, length).validate();
        if (st == Ipv6Header.Status.EXTENSION_HEADER) {
            // MLD reports (RFC 3810 §5) come behind a hop-by-hop header: a host's own business, not ours
            return LanOutcome.NOT_FOR_US;
        }
        if (!st.accepted()) {
            return rule(LanOutcome.MALFORMED_IPV6, st, ethernet.payloadOffset() + ipv6.failedAt());
        }
        if (ipv6.nextHeader() != IcmpMessage.PROTOCOL_ICMPV6) {
            return LanOutcome.NOT_FOR_US;
        }
        long srcHi = ipv6.sourceHi();
        long srcLo = ipv6.sourceLo();
        long dstHi = ipv6.destinationHi();
        long dstLo = ipv6.destinationLo();
        long icmpAt = at + Ipv6Header.HEADER_LENGTH;
        int icmpLength = ipv6.payloadLength();
        IcmpMessage.Status is = icmp.wrap(store, icmpAt, icmpLength).validateV6(srcHi, srcLo, dstHi, dstLo);
        if (!is.accepted()) {
            return rule(LanOutcome.MALFORMED_ICMPV6, is, ethernet.payloadOffset() + Ipv6Header.HEADER_LENGTH + icmp.failedAt());
        }
        return switch (icmp.type()) {
            case IcmpMessage.NEIGHBOR_SOLICITATION -> solicitation(srcHi, srcLo, dstHi, dstLo);
            case IcmpMessage.NEIGHBOR_ADVERTISEMENT -> advertisement(dstHi);
            case IcmpMessage.ECHO6_REQUEST -> echo6(store, icmpAt, icmpLength, srcHi, srcLo, dstHi, dstLo,
                    groupDestination);
            default -> LanOutcome.NOT_FOR_US;
        };
    }

    private LanOutcome solicitation(long srcHi, long srcLo, long dstHi, long dstLo) {
        boolean unspecified = srcHi == 0 && srcLo == 0;
        IcmpMessage.Status nd = icmp.validateNeighborDiscovery(ipv6.hopLimit(), unspecified,
                solicitedNode(dstHi, dstLo), multicast(dstHi));
        if (!nd.accepted()) {
            return rule(LanOutcome.MALFORMED_ND, nd, ndAt(icmp.failedAt()));
        }
        if (!self.isOwnV6(icmp.targetHi(), icmp.targetLo())) {
            return LanOutcome.NOT_FOR_US;
        }
        if (multicast(srcHi)) {
            return rule(LanOutcome.MALFORMED_ND, null, -1); // RFC 4291 §2.7: never a source address
        }
        long sourceMac = icmp.linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER);
        int len;
        if (unspecified) {
            // RFC 4861 §7.2.4: a duplicate address detection probe is answered to all nodes, not solicited
            len = advertise(ALL_NODES_MAC, ALL_NODES_HI, ALL_NODES_LO, IcmpMessage.FLAG_OVERRIDE);
        } else {
            // §7.2.3: the source link-layer address creates or updates the sender's entry
            if (sourceMac >= 0) {
                note(false, srcHi, srcLo, sourceMac, true);
            }
            long to = sourceMac >= 0 && !group(sourceMac) ? sourceMac : ethernet.source();
            len = advertise(to, srcHi, srcLo, IcmpMessage.FLAG_SOLICITED | IcmpMessage.FLAG_OVERRIDE);
        }
        send(len);
        return LanOutcome.NEIGHBOR_ADVERTISED;
    }

    private int advertise(long toMac, long toHi, long toLo, int flags) {
        int ip = tag.write(tx, toMac, self.mac(), EthernetFrame.ETHERTYPE_IPV6);
        int ndLength = IcmpMessage.ND_LENGTH + IcmpMessage.LINK_LAYER_OPTION_LENGTH;
        // RFC 4861 §7.1.2: Neighbor Discovery is sent with hop limit 255
        Ipv6Header.write(tx, ip, 0, 0, ndLength, IcmpMessage.PROTOCOL_ICMPV6, 255, self.ipv6Hi(), self.ipv6Lo(),
                toHi, toLo);
        long nd = ip + Ipv6Header.HEADER_LENGTH;
        IcmpMessage.writeNeighborAdvertisement(tx, nd, flags, self.ipv6Hi(), self.ipv6Lo(), self.mac());
        IcmpMessage.writeChecksum(tx, nd, ndLength, InternetChecksum.ipv6PseudoHeaderSum(self.ipv6Hi(),
                self.ipv6Lo(), toHi, toLo, ndLength, IcmpMessage.PROTOCOL_ICMPV6));
        return (int) nd + ndLength;
    }

    private LanOutcome advertisement(long dstHi) {
        IcmpMessage.Status nd = icmp.validateNeighborDiscovery(ipv6.hopLimit(), false, false, multicast(dstHi));
        if (!nd.accepted()) {
            return rule(LanOutcome.MALFORMED_ND, nd, ndAt(icmp.failedAt()));
        }
        long targetMac = icmp.linkLayerOption(IcmpMessage.OPTION_TARGET_LINK_LAYER);
        if (self.isOwnV6(icmp.targetHi(), icmp.targetLo())) {
            return targetMac == self.mac() ? LanOutcome.NOT_FOR_US : LanOutcome.ADDRESS_CONFLICT;
        }
        if (targetMac < 0) {
            return LanOutcome.NOT_FOR_US;
        }
        // RFC 4861 §7.2.5: an advertisement updates an entry; it creates none
        note(false, icmp.targetHi(), icmp.targetLo(), targetMac, false);
        return LanOutcome.NEIGHBOUR_NOTED;
    }

    private LanOutcome echo6(BytesStore<?, ?> store, long icmpAt, int icmpLength, long srcHi, long srcLo, long dstHi,
                             long dstLo, boolean groupDestination) {
        if (!self.isOwnV6(dstHi, dstLo) || groupDestination || icmp.code() != 0 || multicast(srcHi)
                || srcHi == 0 && srcLo == 0) {
            return LanOutcome.NOT_FOR_US;
        }
        int len = tag.headerLength() + Ipv6Header.HEADER_LENGTH + icmpLength;
        if (len > MAX_FRAME) {
            return LanOutcome.TOO_LONG;
        }
        // RFC 4443 §4.2: the identifier, sequence number and data of the request, type 129
        int ip = tag.write(tx, ethernet.source(), self.mac(), EthernetFrame.ETHERTYPE_IPV6);
        Ipv6Header.write(tx, ip, ipv6.trafficClass(), 0, icmpLength, IcmpMessage.PROTOCOL_ICMPV6, DEFAULT_TTL,
                self.ipv6Hi(), self.ipv6Lo(), srcHi, srcLo);
        long reply = ip + Ipv6Header.HEADER_LENGTH;
        tx.write(reply, store, icmpAt, icmpLength);
        NetworkOrder.put8(tx, reply, IcmpMessage.ECHO6_REPLY);
        IcmpMessage.writeChecksum(tx, reply, icmpLength, InternetChecksum.ipv6PseudoHeaderSum(self.ipv6Hi(),
                self.ipv6Lo(), srcHi, srcLo, icmpLength, IcmpMessage.PROTOCOL_ICMPV6));
        send(len);
        return LanOutcome.ECHO6_REPLIED;
    }

    // ---- neighbours

    /**
     * Updates the entry of an on-link address (not ours, unicast) to {@code mac}, or adds it when {@code create};
     * tells the sink when an entry is new or changed.
     */
    private void note(boolean v4, long hi, long lo, long mac, boolean create) {
        if (mac == 0 || group(mac) || mac == self.mac()) {
            return;
        }
        if (v4 ? !unicastV4(IpAddress.ipv4(lo)) || !self.onLinkV4(IpAddress.ipv4(lo)) || IpAddress.ipv4(lo) == self.ipv4()
                : multicast(hi) || !self.onLinkV6(hi, lo) || self.isOwnV6(hi, lo)) {
            return;
        }
        for (int i = 0; i < neighbourCount; i++) {
            if (neighbourV4[i] == v4 && neighbourHi[i] == hi && neighbourLo[i] == lo) {
                if (neighbourMac[i] != mac) {
                    neighbourMac[i] = mac;
                    neighbours.learned(v4, hi, lo, mac);
                }
                return;
            }
        }
        if (!create) {
            return;
        }
        int i = neighbourCount < NEIGHBOURS ? neighbourCount++ : neighbourNext++ % NEIGHBOURS;
        neighbourV4[i] = v4;
        neighbourHi[i] = hi;
        neighbourLo[i] = lo;
        neighbourMac[i] = mac;
        neighbours.learned(v4, hi, lo, mac);
    }

    /** The MAC learned for an address (IPv4 as the mapped form), empty when none was. */
    public OptionalLong neighbour(boolean v4, long hi, long lo) {
        for (int i = 0; i < neighbourCount; i++) {
            if (neighbourV4[i] == v4 && neighbourHi[i] == hi && neighbourLo[i] == lo) {
                return OptionalLong.of(neighbourMac[i]);
            }
        }
        return OptionalLong.empty();
    }

    public int neighbourCount() {
        return neighbourCount;
    }

    // ---- helpers

    private void send(int length) {
        int len = length;
        int min = MIN_FRAME + tag.headerLength() - EthernetFrame.HEADER_LENGTH;
        while (len < min) {
            tx.writeByte(len++, (byte) 0);
        }
        out.transmit(tx, 0, len);
    }

    private LanOutcome rule(LanOutcome outcome, Check rule, long at) {
        lastRule = rule;
        lastRuleAt = at;
        return outcome;
    }

    /** A failed ND field's offset in the frame (-1: a rule on the IP header, e.g. the hop limit). */
    private long ndAt(long inMessage) {
        return inMessage < 0 ? ethernet.payloadOffset() + 7 : ethernet.payloadOffset() + Ipv6Header.HEADER_LENGTH + inMessage;
    }

    private static boolean group(long mac) {
        return (mac >>> 40 & 1) != 0;
    }

    private static boolean multicast(long hi) {
        return hi >>> 56 == 0xff;
    }

    /** RFC 4291 §2.7.1: ff02::1:ff00:0/104. */
    private static boolean solicitedNode(long hi, long lo) {
        return hi == LanAddresses.SOLICITED_NODE_HI && (lo & 0xffff_ffff_ff00_0000L) == 0x0000_0001_ff00_0000L;
    }

    /** Not 0.0.0.0, not multicast (224/4), not the limited broadcast. */
    private static boolean unicastV4(int a) {
        return a != 0 && a != -1 && (a >>> 28) != 0xe;
    }

    // ---- counters

    /** Frames handed to the LAN function. */
    public long frames() {
        return frames;
    }

    public long count(LanOutcome outcome) {
        return counts[outcome.ordinal()];
    }

    /** Frames answered (ARP replies, echo replies, neighbor advertisements). */
    public long answered() {
        return count(LanOutcome.ARP_REPLIED) + count(LanOutcome.ECHO_REPLIED) + count(LanOutcome.NEIGHBOR_ADVERTISED)
                + count(LanOutcome.ECHO6_REPLIED);
    }

    /** Frames dropped as malformed. */
    public long malformed() {
        long n = 0;
        for (LanOutcome o : OUTCOMES) {
            if (o.malformed()) {
                n += counts[o.ordinal()];
            }
        }
        return n;
    }

    /** The codec rule that dropped the last frame, or null (the last frame was fine, or failed a rule of ours). */
    public Check lastRule() {
        return lastRule;
    }

    /** Where in the last frame that rule failed (a byte offset from the frame's start), -1 if unknown. */
    public long lastRuleAt() {
        return lastRuleAt;
    }
}
