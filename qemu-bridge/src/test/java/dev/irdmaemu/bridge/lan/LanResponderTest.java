package dev.irdmaemu.bridge.lan;

import static dev.irdmaemu.bridge.lan.LanFrames.GUEST_MAC;
import static dev.irdmaemu.bridge.lan.LanFrames.GUEST_V4;
import static dev.irdmaemu.bridge.lan.LanFrames.GUEST_V6_LO;
import static dev.irdmaemu.bridge.lan.LanFrames.MODEL;
import static dev.irdmaemu.bridge.lan.LanFrames.MODEL_MAC;
import static dev.irdmaemu.bridge.lan.LanFrames.MODEL_V4;
import static dev.irdmaemu.bridge.lan.LanFrames.MODEL_V6_LO;
import static dev.irdmaemu.bridge.lan.LanFrames.SOLICITED_HI;
import static dev.irdmaemu.bridge.lan.LanFrames.SOLICITED_MODEL_LO;
import static dev.irdmaemu.bridge.lan.LanFrames.SOLICITED_MODEL_MAC;
import static dev.irdmaemu.bridge.lan.LanFrames.V6_HI;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IcmpMessage;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The LAN function's responder with crafted frames: each kind it answers, byte by byte where a peer looks, the
 * neighbours it learns, and every kind of malformed frame dropped and counted under its rule.
 */
class LanResponderTest {
    /** What the responder sent, and what it learned. */
    static final class Wire {
        final List<byte[]> sent = new ArrayList<>();
        final List<String> learned = new ArrayList<>();
        final LanResponder responder = new LanResponder(MODEL, (s, o, l) -> {
            byte[] b = new byte[l];
            s.read(o, b, 0, l);
            sent.add(b);
        }, (v4, hi, lo, mac) -> learned.add((v4 ? "v4 " : "v6 ") + IpAddress.format(hi, lo, new StringBuilder())
                + " " + Long.toHexString(mac)));

        LanOutcome offer(byte[] frame) {
            long[] before = counts();
            responder.frame(BytesStore.wrap(frame), 0, frame.length);
            long[] after = counts();
            LanOutcome changed = null;
            for (LanOutcome o : LanOutcome.values()) {
                if (after[o.ordinal()] != before[o.ordinal()]) {
                    assertNull(changed, "one outcome per frame");
                    assertEquals(before[o.ordinal()] + 1, after[o.ordinal()]);
                    changed = o;
                }
            }
            return changed;
        }

        long[] counts() {
            long[] c = new long[LanOutcome.values().length];
            for (LanOutcome o : LanOutcome.values()) {
                c[o.ordinal()] = responder.count(o);
            }
            return c;
        }

        BytesStore<?, ?> only() {
            assertEquals(1, sent.size(), "one answer");
            return BytesStore.wrap(sent.get(0));
        }
    }

    // ---- ARP

    @Test
    void anArpRequestForTheNodesAddressGetsAReplyAndTheRequesterIsLearned() {
        Wire w = new Wire();
        assertEquals(LanOutcome.ARP_REPLIED, w.offer(LanFrames.arpRequest()));
        BytesStore<?, ?> r = w.only();
        assertEquals(60, r.realCapacity(), "padded to the 802.3 minimum");
        EthernetFrame e = new EthernetFrame().wrap(r, 0, 60);
        assertEquals(GUEST_MAC, e.destination(), "to the requester");
        assertEquals(MODEL_MAC, e.source());
        assertEquals(EthernetFrame.ETHERTYPE_ARP, e.etherType());
        ArpPacket a = new ArpPacket().wrap(r, 14, 46);
        assertEquals(ArpPacket.Status.ACCEPTED, a.validate());
        assertEquals(ArpPacket.REPLY, a.operation());
        assertEquals(MODEL_MAC, a.senderMac());
        assertEquals(MODEL_V4, a.senderIp());
        assertEquals(GUEST_MAC, a.targetMac());
        assertEquals(GUEST_V4, a.targetIp());
        for (int i = 42; i < 60; i++) {
            assertEquals(0, r.readByte(i), "zero padding at " + i);
        }
        assertEquals(List.of("v4 192.0.2.2 20000000002"), w.learned);
        assertEquals(OptionalLong.of(GUEST_MAC), w.responder.neighbour(true, 0, IpAddress.mappedLo(GUEST_V4)));
    }

    @Test
    void arpForAnotherAddressIsLeftAloneAndTeachesNothing() {
        Wire w = new Wire();
        int other = IpAddress.ipv4(192, 0, 2, 9);
        assertEquals(LanOutcome.NOT_FOR_US, w.offer(LanFrames.arp(ArpPacket.REQUEST, 0xffff_ffff_ffffL, GUEST_MAC,
                GUEST_V4, 0, other)));
        assertTrue(w.sent.isEmpty());
        assertTrue(w.learned.isEmpty(), "RFC 826: a stranger is added only when the packet is for us");
    }

    @Test
    void aKnownNeighbourIsUpdatedByAGratuitousArpAndAReplyIsNoted() {
        Wire w = new Wire();
        w.offer(LanFrames.arpRequest());
        long moved = 0x02_00_00_00_00_99L;
        assertEquals(LanOutcome.NOT_FOR_US, w.offer(LanFrames.arp(ArpPacket.REQUEST, 0xffff_ffff_ffffL, moved,
                GUEST_V4, 0, GUEST_V4)));
        assertEquals(OptionalLong.of(moved), w.responder.neighbour(true, 0, IpAddress.mappedLo(GUEST_V4)));
        assertEquals(LanOutcome.NEIGHBOUR_NOTED, w.offer(LanFrames.arp(ArpPacket.REPLY, MODEL_MAC, GUEST_MAC,
                GUEST_V4, MODEL_MAC, MODEL_V4)));
        assertEquals(List.of("v4 192.0.2.2 20000000002", "v4 192.0.2.2 20000000099", "v4 192.0.2.2 20000000002"),
                w.learned);
        assertEquals(1, w.sent.size(), "only the first request was answered");
    }

    @Test
    void arpClaimingTheNodesAddressIsAConflictNotAnAnswer() {
        Wire w = new Wire();
        assertEquals(LanOutcome.ADDRESS_CONFLICT, w.offer(LanFrames.arp(ArpPacket.REQUEST, 0xffff_ffff_ffffL,
                GUEST_MAC, MODEL_V4, 0, MODEL_V4)));
        assertTrue(w.sent.isEmpty());
        assertTrue(w.learned.isEmpty());
    }

    @Test
    void anArpFromOutsideTheSubnetIsAnsweredButNotLearned() {
        Wire w = new Wire();
        int outside = IpAddress.ipv4(198, 51, 100, 7);
        assertEquals(LanOutcome.ARP_REPLIED, w.offer(LanFrames.arp(ArpPacket.REQUEST, 0xffff_ffff_ffffL, GUEST_MAC,
                outside, 0, MODEL_V4)));
        assertTrue(w.learned.isEmpty());
    }

    @Test
    void malformedArpIsDroppedUnderItsRule() {
        Wire w = new Wire();
        byte[] f = LanFrames.arpRequest();
        f[14 + 5] = 16; // protocol address length
        assertEquals(LanOutcome.MALFORMED_ARP, w.offer(f));
        assertSame(ArpPacket.Status.NOT_ETHERNET_IPV4, w.responder.lastRule());
        byte[] g = LanFrames.arpRequest();
        g[14 + 7] = 9; // operation
        assertEquals(LanOutcome.MALFORMED_ARP, w.offer(g));
        assertSame(ArpPacket.Status.UNKNOWN_OPERATION, w.responder.lastRule());
        assertEquals(14 + 6, w.responder.lastRuleAt());
        assertEquals(LanOutcome.MALFORMED_ARP, w.offer(Arrays.copyOf(LanFrames.arpRequest(), 14 + 27)));
        assertSame(ArpPacket.Status.TRUNCATED, w.responder.lastRule());
        assertTrue(w.sent.isEmpty());
        assertEquals(3, w.responder.malformed());
    }

    // ---- ICMP

    @Test
    void anEchoRequestGetsAReplyWithItsIdentifierSequenceAndData() {
        Wire w = new Wire();
        byte[] request = LanFrames.echo(0x4242, 7, 56);
        assertEquals(LanOutcome.ECHO_REPLIED, w.offer(request));
        BytesStore<?, ?> r = w.only();
        int len = (int) r.realCapacity();
        assertEquals(request.length, len);
        EthernetFrame e = new EthernetFrame().wrap(r, 0, len);
        assertEquals(GUEST_MAC, e.destination());
        assertEquals(MODEL_MAC, e.source());
        Ipv4Header ip = new Ipv4Header().wrap(r, 14, len - 14);
        assertEquals(Ipv4Header.Status.ACCEPTED, ip.validate(), "the header checksum verifies");
        assertEquals(MODEL_V4, ip.source());
        assertEquals(GUEST_V4, ip.destination());
        assertEquals(IcmpMessage.PROTOCOL_ICMP, ip.protocol());
        assertEquals(64, ip.ttl());
        IcmpMessage m = new IcmpMessage().wrap(r, 34, ip.payloadLength());
        assertEquals(IcmpMessage.Status.ACCEPTED, m.validateV4(), "the ICMP checksum verifies");
        assertEquals(IcmpMessage.ECHO_REPLY, m.type());
        assertEquals(0x4242, m.identifier());
        assertEquals(7, m.sequence());
        assertArrayEquals(Arrays.copyOfRange(request, 42, request.length), Arrays.copyOfRange(LanFrames.bytes(r, len), 42, len),
                "the data comes back unchanged");
    }

    @Test
    void aBadIcmpChecksumOrIpHeaderIsDroppedAndAFragmentIsNotReassembled() {
        Wire w = new Wire();
        byte[] f = LanFrames.echo(1, 1, 8);
        f[f.length - 1] ^= 1;
        assertEquals(LanOutcome.MALFORMED_ICMP, w.offer(f));
        assertSame(IcmpMessage.Status.BAD_CHECKSUM, w.responder.lastRule());
        assertEquals(34 + 2, w.responder.lastRuleAt());
        byte[] g = LanFrames.echo(1, 1, 8);
        g[14 + 8] = 3; // TTL changed, header checksum not
        assertEquals(LanOutcome.MALFORMED_IPV4, w.offer(g));
        assertSame(Ipv4Header.Status.BAD_CHECKSUM, w.responder.lastRule());
        byte[] h = LanFrames.echo(1, 1, 8);
        BytesStore<?, ?> s = BytesStore.wrap(h);
        NetworkOrder.put16(s, 14 + 6, 0x2000); // MF
        NetworkOrder.put16(s, 14 + 10, 0);
        NetworkOrder.put16(s, 14 + 10, InternetChecksum.checksum(s, 14, 20));
        assertEquals(LanOutcome.FRAGMENT, w.offer(h));
        byte[] t = Arrays.copyOf(LanFrames.echo(1, 1, 0), 14 + 20 + 7);
        NetworkOrder.put16(BytesStore.wrap(t), 14 + 2, 27);
        NetworkOrder.put16(BytesStore.wrap(t), 14 + 10, 0);
        NetworkOrder.put16(BytesStore.wrap(t), 14 + 10, InternetChecksum.checksum(BytesStore.wrap(t), 14, 20));
        assertEquals(LanOutcome.MALFORMED_ICMP, w.offer(t));
        assertSame(IcmpMessage.Status.TRUNCATED, w.responder.lastRule());
        assertTrue(w.sent.isEmpty());
    }

    @Test
    void echoToAnotherAddressOrOfAnotherTypeIsNotAnswered() {
        Wire w = new Wire();
        byte[] f = LanFrames.echo(1, 1, 8);
        BytesStore<?, ?> s = BytesStore.wrap(f);
        NetworkOrder.put8(s, 34, 13); // a timestamp request
        IcmpMessage.writeChecksum(s, 34, f.length - 34, 0);
        assertEquals(LanOutcome.NOT_FOR_US, w.offer(f));
        byte[] other = LanFrames.echo(1, 1, 8);
        NetworkOrder.put48(BytesStore.wrap(other), 0, 0x02_00_00_00_00_33L); // another station's MAC
        assertEquals(LanOutcome.NOT_FOR_US, w.offer(other));
        assertTrue(w.sent.isEmpty());
    }

    // ---- IPv6

    @Test
    void aSolicitationForTheNodesAddressGetsASolicitedAdvertisementWithItsMac() {
        Wire w = new Wire();
        assertEquals(LanOutcome.NEIGHBOR_ADVERTISED, w.offer(LanFrames.solicitation()));
        BytesStore<?, ?> r = w.only();
        int len = (int) r.realCapacity();
        assertEquals(14 + 40 + 32, len);
        EthernetFrame e = new EthernetFrame().wrap(r, 0, len);
        assertEquals(GUEST_MAC, e.destination(), "to the source link-layer address");
        assertEquals(EthernetFrame.ETHERTYPE_IPV6, e.etherType());
        Ipv6Header ip = new Ipv6Header().wrap(r, 14, len - 14);
        assertEquals(Ipv6Header.Status.ACCEPTED, ip.validate());
        assertEquals(255, ip.hopLimit());
        assertEquals(V6_HI, ip.sourceHi());
        assertEquals(MODEL_V6_LO, ip.sourceLo());
        assertEquals(GUEST_V6_LO, ip.destinationLo());
        IcmpMessage m = new IcmpMessage().wrap(r, 54, ip.payloadLength());
        assertEquals(IcmpMessage.Status.ACCEPTED, m.validateV6(ip.sourceHi(), ip.sourceLo(), ip.destinationHi(),
                ip.destinationLo()), "the ICMPv6 checksum verifies");
        assertEquals(IcmpMessage.Status.ACCEPTED, m.validateNeighborDiscovery(255, false, false, false));
        assertEquals(IcmpMessage.NEIGHBOR_ADVERTISEMENT, m.type());
        assertEquals(IcmpMessage.FLAG_SOLICITED | IcmpMessage.FLAG_OVERRIDE, m.flags(), "S and O, not a router");
        assertEquals(V6_HI, m.targetHi());
        assertEquals(MODEL_V6_LO, m.targetLo());
        assertEquals(MODEL_MAC, m.linkLayerOption(IcmpMessage.OPTION_TARGET_LINK_LAYER));
        assertEquals(List.of("v6 2001:db8::2 20000000002"), w.learned);
    }

    @Test
    void aDuplicateAddressProbeIsAnsweredToAllNodesUnsolicited() {
        Wire w = new Wire();
        byte[] probe = LanFrames.icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 255, 0, 0, SOLICITED_HI, SOLICITED_MODEL_LO,
                IcmpMessage.NEIGHBOR_SOLICITATION, 0, LanFrames.solicitationBody(V6_HI, MODEL_V6_LO, new byte[0]));
        assertEquals(LanOutcome.NEIGHBOR_ADVERTISED, w.offer(probe));
        BytesStore<?, ?> r = w.only();
        assertEquals(LanResponder.ALL_NODES_MAC, new EthernetFrame().wrap(r, 0, 86).destination());
        Ipv6Header ip = new Ipv6Header().wrap(r, 14, 72);
        assertEquals(LanResponder.ALL_NODES_HI, ip.destinationHi());
        assertEquals(LanResponder.ALL_NODES_LO, ip.destinationLo());
        IcmpMessage m = new IcmpMessage().wrap(r, 54, 32);
        assertEquals(IcmpMessage.Status.ACCEPTED, m.validateV6(ip.sourceHi(), ip.sourceLo(), ip.destinationHi(),
                ip.destinationLo()));
        assertEquals(IcmpMessage.Status.ACCEPTED, m.validateNeighborDiscovery(255, false, false, true),
                "not solicited, as RFC 4861 §7.1.2 requires for a multicast destination");
        assertEquals(IcmpMessage.FLAG_OVERRIDE, m.flags());
        assertTrue(w.learned.isEmpty());
    }

    @Test
    void neighborDiscoveryThatFailsRfc4861sChecksIsDropped() {
        Wire w = new Wire();
        byte[] option = LanFrames.linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER, GUEST_MAC);
        byte[] body = LanFrames.solicitationBody(V6_HI, MODEL_V6_LO, option);
        assertEquals(LanOutcome.MALFORMED_ND, w.offer(LanFrames.icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 64, V6_HI,
                GUEST_V6_LO, SOLICITED_HI, SOLICITED_MODEL_LO, IcmpMessage.NEIGHBOR_SOLICITATION, 0, body)),
                "hop limit 64: it came through a router");
        assertSame(IcmpMessage.Status.ND_HOP_LIMIT, w.responder.lastRule());
        assertEquals(LanOutcome.MALFORMED_ND, w.offer(LanFrames.icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 255, V6_HI,
                GUEST_V6_LO, SOLICITED_HI, SOLICITED_MODEL_LO, IcmpMessage.NEIGHBOR_SOLICITATION, 1, body)));
        assertSame(IcmpMessage.Status.ND_CODE, w.responder.lastRule());
        byte[] zero = option.clone();
        zero[1] = 0;
        assertEquals(LanOutcome.MALFORMED_ND, w.offer(LanFrames.icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 255, V6_HI,
                GUEST_V6_LO, SOLICITED_HI, SOLICITED_MODEL_LO, IcmpMessage.NEIGHBOR_SOLICITATION, 0,
                LanFrames.solicitationBody(V6_HI, MODEL_V6_LO, zero))), "a zero-length option");
        assertSame(IcmpMessage.Status.ND_BAD_OPTION, w.responder.lastRule());
        assertEquals(14 + 40 + 24, w.responder.lastRuleAt());
        byte[] overrun = option.clone();
        overrun[1] = 2;
        assertEquals(LanOutcome.MALFORMED_ND, w.offer(LanFrames.icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 255, V6_HI,
                GUEST_V6_LO, SOLICITED_HI, SOLICITED_MODEL_LO, IcmpMessage.NEIGHBOR_SOLICITATION, 0,
                LanFrames.solicitationBody(V6_HI, MODEL_V6_LO, overrun))), "an option reaching past the message");
        assertSame(IcmpMessage.Status.ND_BAD_OPTION, w.responder.lastRule());
        assertEquals(LanOutcome.MALFORMED_ND, w.offer(LanFrames.icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 255, 0, 0,
                SOLICITED_HI, SOLICITED_MODEL_LO, IcmpMessage.NEIGHBOR_SOLICITATION, 0, body)),
                "a probe from :: carrying a source link-layer address");
        assertSame(IcmpMessage.Status.ND_UNSPECIFIED_SOURCE, w.responder.lastRule());
        assertEquals(LanOutcome.MALFORMED_ND, w.offer(LanFrames.icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 255, V6_HI,
                GUEST_V6_LO, SOLICITED_HI, SOLICITED_MODEL_LO, IcmpMessage.NEIGHBOR_SOLICITATION, 0,
                LanFrames.solicitationBody(0xff02_0000_0000_0000L, 1, new byte[0]))), "a multicast target");
        assertSame(IcmpMessage.Status.ND_MULTICAST_TARGET, w.responder.lastRule());
        assertEquals(LanOutcome.MALFORMED_ND, w.offer(LanFrames.icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 255, V6_HI,
                GUEST_V6_LO, SOLICITED_HI, SOLICITED_MODEL_LO, IcmpMessage.NEIGHBOR_SOLICITATION, 0, new byte[12])),
                "16 octets: no room for the target");
        assertSame(IcmpMessage.Status.ND_TRUNCATED, w.responder.lastRule());
        byte[] advert = new byte[20];
        advert[0] = (byte) IcmpMessage.FLAG_SOLICITED;
        assertEquals(LanOutcome.MALFORMED_ND, w.offer(LanFrames.icmp6(LanResponder.ALL_NODES_MAC, GUEST_MAC, 255,
                V6_HI, GUEST_V6_LO, LanResponder.ALL_NODES_HI, LanResponder.ALL_NODES_LO,
                IcmpMessage.NEIGHBOR_ADVERTISEMENT, 0, advert)), "solicited, to all nodes");
        assertSame(IcmpMessage.Status.ND_SOLICITED_TO_MULTICAST, w.responder.lastRule());
        assertTrue(w.sent.isEmpty());
        assertTrue(w.learned.isEmpty());
        assertEquals(8, w.responder.malformed());
    }

    @Test
    void anAdvertisementUpdatesAKnownNeighbourAndCreatesNone() {
        Wire w = new Wire();
        byte[] body = new byte[20 + 8];
        BytesStore<?, ?> s = BytesStore.wrap(body);
        NetworkOrder.put64(s, 4, V6_HI);
        NetworkOrder.put64(s, 12, GUEST_V6_LO);
        System.arraycopy(LanFrames.linkLayerOption(IcmpMessage.OPTION_TARGET_LINK_LAYER, 0x02_00_00_00_00_77L), 0,
                body, 20, 8);
        byte[] advert = LanFrames.icmp6(LanResponder.ALL_NODES_MAC, GUEST_MAC, 255, V6_HI, GUEST_V6_LO,
                LanResponder.ALL_NODES_HI, LanResponder.ALL_NODES_LO, IcmpMessage.NEIGHBOR_ADVERTISEMENT, 0, body);
        assertEquals(LanOutcome.NEIGHBOUR_NOTED, w.offer(advert));
        assertTrue(w.learned.isEmpty(), "RFC 4861 §7.2.5: no entry, nothing created");
        w.offer(LanFrames.solicitation());
        w.offer(advert);
        assertEquals(List.of("v6 2001:db8::2 20000000002", "v6 2001:db8::2 20000000077"), w.learned);
    }

    @Test
    void anIcmpv6EchoGetsAReplyAndABadChecksumIsDropped() {
        Wire w = new Wire();
        byte[] request = LanFrames.echo6(0x77, 3, 40);
        assertEquals(LanOutcome.ECHO6_REPLIED, w.offer(request));
        BytesStore<?, ?> r = w.only();
        int len = (int) r.realCapacity();
        assertEquals(request.length, len);
        Ipv6Header ip = new Ipv6Header().wrap(r, 14, len - 14);
        assertEquals(Ipv6Header.Status.ACCEPTED, ip.validate());
        assertEquals(GUEST_V6_LO, ip.destinationLo());
        assertEquals(64, ip.hopLimit());
        IcmpMessage m = new IcmpMessage().wrap(r, 54, ip.payloadLength());
        assertEquals(IcmpMessage.Status.ACCEPTED, m.validateV6(ip.sourceHi(), ip.sourceLo(), ip.destinationHi(),
                ip.destinationLo()));
        assertEquals(IcmpMessage.ECHO6_REPLY, m.type());
        assertEquals(0x77, m.identifier());
        assertEquals(3, m.sequence());
        assertArrayEquals(Arrays.copyOfRange(request, 62, len), Arrays.copyOfRange(LanFrames.bytes(r, len), 62, len));
        byte[] bad = LanFrames.echo6(1, 1, 4);
        bad[bad.length - 1] ^= 0x40;
        assertEquals(LanOutcome.MALFORMED_ICMPV6, w.offer(bad));
        assertSame(IcmpMessage.Status.BAD_CHECKSUM, w.responder.lastRule());
        assertEquals(1, w.sent.size());
    }

    @Test
    void mldBehindAHopByHopHeaderIsNotOursButAShortIpv6HeaderIsMalformed() {
        Wire w = new Wire();
        byte[] f = LanFrames.echo6(1, 1, 4);
        f[14 + 6] = 0; // next header: hop-by-hop options
        assertEquals(LanOutcome.NOT_FOR_US, w.offer(f));
        byte[] g = LanFrames.echo6(1, 1, 4);
        NetworkOrder.put16(BytesStore.wrap(g), 14 + 4, 2000);
        assertEquals(LanOutcome.MALFORMED_IPV6, w.offer(g));
        assertSame(Ipv6Header.Status.PAYLOAD_LENGTH_BEYOND_BUFFER, w.responder.lastRule());
        assertTrue(w.sent.isEmpty());
    }

    // ---- Ethernet

    @Test
    void aTaggedFrameAGroupSourceAndARuntAreNotAnswered() {
        Wire w = new Wire();
        byte[] arp = LanFrames.arpRequest();
        byte[] tagged = new byte[arp.length + 4];
        System.arraycopy(arp, 0, tagged, 0, 12);
        tagged[12] = (byte) 0x81;
        tagged[14] = 0;
        tagged[15] = 100;
        System.arraycopy(arp, 12, tagged, 16, arp.length - 12);
        assertEquals(LanOutcome.NOT_FOR_US, w.offer(tagged));
        byte[] group = LanFrames.arpRequest();
        group[6] |= 1;
        assertEquals(LanOutcome.MALFORMED_ETHERNET, w.offer(group));
        assertEquals(LanOutcome.MALFORMED_ETHERNET, w.offer(new byte[13]));
        assertSame(EthernetFrame.Status.TRUNCATED, w.responder.lastRule());
        assertEquals(LanOutcome.MALFORMED_ARP, w.offer(Arrays.copyOf(LanFrames.arpRequest(), 14)), "ARP with no body");
        assertTrue(w.sent.isEmpty());
    }

    @Test
    void everyPrefixOfEveryGoodFrameIsHandledWithoutAnException() {
        Wire w = new Wire();
        List<byte[]> good = List.of(LanFrames.arpRequest(), LanFrames.echo(1, 2, 30), LanFrames.solicitation(),
                LanFrames.echo6(3, 4, 30));
        long offered = 0;
        for (byte[] f : good) {
            for (int n = 0; n <= f.length; n++) {
                w.responder.frame(BytesStore.wrap(Arrays.copyOf(f, n)), 0, n);
                offered++;
            }
        }
        long total = 0;
        for (LanOutcome o : LanOutcome.values()) {
            total += w.responder.count(o);
        }
        assertEquals(offered, w.responder.frames());
        assertEquals(offered, total, "every frame counted once");
        // the ARP request is 42 bytes padded to 60: each prefix from 42 bytes on holds all of it
        assertEquals(60 - 42 + 1 + 3, w.responder.answered(), "only the whole packets are answered");
    }

    @Test
    void answeringAllocatesNothingPerFrame() {
        BytesStore<?, ?> sink = BytesStore.wrap(new byte[LanResponder.MAX_FRAME]);
        long[] sent = new long[1];
        LanResponder r = new LanResponder(MODEL, (s, o, l) -> sent[0]++, LanResponder.NeighbourSink.NONE);
        List<BytesStore<?, ?>> frames = List.of(BytesStore.wrap(LanFrames.arpRequest()),
                BytesStore.wrap(LanFrames.echo(1, 2, 56)), BytesStore.wrap(LanFrames.solicitation()),
                BytesStore.wrap(LanFrames.echo6(3, 4, 56)));
        int[] lengths = frames.stream().mapToInt(f -> (int) f.realCapacity()).toArray();
        for (int i = 0; i < 20_000; i++) {
            for (int k = 0; k < 4; k++) {
                r.frame(frames.get(k), 0, lengths[k]);
            }
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
        for (int i = 0; i < 50_000; i++) {
            for (int k = 0; k < 4; k++) {
                r.frame(frames.get(k), 0, lengths[k]);
            }
        }
        long bytes = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        assertTrue(bytes < 4096, bytes + " bytes for 200000 frames");
        assertEquals(280_000, sent[0]);
        assertEquals(sink.realCapacity(), LanResponder.MAX_FRAME);
    }
}
