package dev.irdmaemu.bridge.lan;

import static dev.irdmaemu.bridge.lan.LanFrames.GUEST_MAC;
import static dev.irdmaemu.bridge.lan.LanFrames.MODEL;
import static dev.irdmaemu.bridge.lan.LanFrames.MODEL_MAC;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IpAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The LAN side of a NIC with a VLAN netdev on it (net/8021q): each frame reaches the responder of its tag, answers
 * leave with that tag and the VLAN's priority, padded to a tagged minimum frame; a frame of a VLAN nobody has, a
 * tag cut short, or a tagged frame where an untagged one belongs is dropped and counted, never thrown on.
 */
class LanNetdevsTest {
    static final int VLAN = 100;
    static final int PCP = 5;
    static final LanAddresses ON_VLAN = LanAddresses.of(MODEL_MAC, IpEndpoint.of("203.0.113.1", 0), 24,
            IpEndpoint.of("2001:db8:100::1", 0), 64);
    static final int VLAN_V4 = IpAddress.ipv4(203, 0, 113, 1);
    static final int GUEST_VLAN_V4 = IpAddress.ipv4(203, 0, 113, 2);

    final List<byte[]> sent = new ArrayList<>();
    final List<String> learned = new ArrayList<>();
    final LanResponder untagged = new LanResponder(MODEL, this::sent, this::learned);
    final LanResponder tagged = new LanResponder(ON_VLAN, new LanTag.Vlan(VLAN, PCP), this::sent, this::learned);
    final LanNetdevs netdevs = new LanNetdevs(List.of(untagged, tagged), List.of(LanTag.UNTAGGED,
            new LanTag.Vlan(VLAN, PCP)));

    private void sent(BytesStore<?, ?> s, long o, int l) {
        byte[] b = new byte[l];
        s.read(o, b, 0, l);
        sent.add(b);
    }

    private void learned(boolean v4, long hi, long lo, long mac) {
        learned.add(IpAddress.format(hi, lo, new StringBuilder()) + " " + Long.toHexString(mac));
    }

    private void offer(byte[] frame) {
        netdevs.frame(BytesStore.wrap(frame), 0, frame.length);
    }

    static byte[] tag(byte[] untaggedFrame, int tci) {
        byte[] t = new byte[untaggedFrame.length + 4];
        System.arraycopy(untaggedFrame, 0, t, 0, 12);
        t[12] = (byte) 0x81;
        t[14] = (byte) (tci >>> 8);
        t[15] = (byte) tci;
        System.arraycopy(untaggedFrame, 12, t, 16, untaggedFrame.length - 12);
        return t;
    }

    static byte[] arpFor(int target, int sender) {
        return LanFrames.arp(ArpPacket.REQUEST, 0xffff_ffff_ffffL, GUEST_MAC, sender, 0, target);
    }

    @Test
    void anArpRequestOnTheVlanIsAnsweredOnTheVlanWithItsPriority() {
        offer(tag(arpFor(VLAN_V4, GUEST_VLAN_V4), 3 << 13 | VLAN));
        assertEquals(1, sent.size());
        byte[] reply = sent.get(0);
        assertEquals(64, reply.length, "a tagged minimum frame: 60 bytes and the tag");
        EthernetFrame e = new EthernetFrame().wrap(BytesStore.wrap(reply), 0, reply.length);
        assertEquals(EthernetFrame.Status.ACCEPTED, e.validate());
        assertEquals(VLAN, e.vlanId());
        assertEquals(PCP, e.pcp(), "the VLAN netdev's own priority, not the request's");
        assertEquals(EthernetFrame.ETHERTYPE_ARP, e.etherType());
        ArpPacket a = new ArpPacket().wrap(BytesStore.wrap(reply), 18, reply.length - 18);
        assertEquals(ArpPacket.REPLY, a.operation());
        assertEquals(VLAN_V4, a.senderIp());
        assertEquals(GUEST_MAC, a.targetMac());
        assertEquals(List.of("203.0.113.2 20000000002"), learned, "the guest learned on the VLAN");
        assertEquals(1, tagged.count(LanOutcome.ARP_REPLIED));
        assertEquals(0, untagged.frames());
    }

    @Test
    void theUntaggedNetdevAnswersUntaggedAndPriorityTaggedRequestsUntagged() {
        byte[] arp = arpFor(LanFrames.MODEL_V4, LanFrames.GUEST_V4);
        offer(arp);
        offer(tag(arp, 6 << 13)); // VLAN id 0: a priority tag only
        assertEquals(2, sent.size());
        assertArrayEquals(sent.get(0), sent.get(1), "both answered alike, untagged");
        assertEquals(EthernetFrame.ETHERTYPE_ARP, (sent.get(0)[12] & 0xff) << 8 | sent.get(0)[13] & 0xff);
        assertEquals(2, untagged.count(LanOutcome.ARP_REPLIED));
        assertEquals(0, tagged.frames());
    }

    @Test
    void aRequestForTheVlansAddressUntaggedOrOnAnotherVlanIsNotAnswered() {
        offer(arpFor(VLAN_V4, GUEST_VLAN_V4)); // the right address, but untagged: the untagged netdev's, not ours
        offer(tag(arpFor(VLAN_V4, GUEST_VLAN_V4), PCP << 13 | 200)); // VLAN 200: no netdev
        offer(tag(arpFor(LanFrames.MODEL_V4, LanFrames.GUEST_V4), VLAN)); // the untagged address on VLAN 100
        assertTrue(sent.isEmpty(), "nothing answered");
        assertEquals(1, netdevs.unclaimed(), "VLAN 200 dropped and counted");
        assertEquals(1, untagged.count(LanOutcome.NOT_FOR_US));
        assertEquals(1, tagged.count(LanOutcome.NOT_FOR_US));
    }

    @Test
    void aTagCutShortOrATaggedRuntIsMalformedNotThrown() {
        byte[] arp = tag(arpFor(VLAN_V4, GUEST_VLAN_V4), VLAN);
        offer(Arrays.copyOf(arp, 15)); // ends inside the tag
        offer(Arrays.copyOf(arp, 18 + 10)); // tag whole, ARP cut short
        assertTrue(sent.isEmpty());
        assertEquals(1, untagged.count(LanOutcome.MALFORMED_ETHERNET), "the NIC's own netdev counts a broken tag");
        assertEquals(1, tagged.count(LanOutcome.MALFORMED_ARP), "the VLAN's responder its broken ARP");
    }

    @Test
    void oneResponderPerTagEachTagOnce() {
        LanTag.Vlan v = new LanTag.Vlan(VLAN, PCP);
        assertThrows(IllegalArgumentException.class, () -> new LanNetdevs(List.of(untagged, tagged),
                List.of(v, new LanTag.Vlan(VLAN, PCP))));
        assertThrows(IllegalArgumentException.class, () -> new LanNetdevs(List.of(untagged), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new LanTag.Vlan(0, 0), "VLAN 0 is a priority tag");
        assertThrows(IllegalArgumentException.class, () -> new LanTag.Vlan(4095, 0));
        assertThrows(IllegalArgumentException.class, () -> new LanTag.Vlan(1, 8));
    }
}
