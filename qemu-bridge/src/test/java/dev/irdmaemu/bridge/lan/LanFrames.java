package dev.irdmaemu.bridge.lan;

import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IcmpMessage;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import net.openhft.chronicle.bytes.BytesStore;

/** Crafted frames a guest would send to the port: the good ones, and handles to break them. */
final class LanFrames {
    static final long MODEL_MAC = 0x02_00_00_00_00_01L;
    static final long GUEST_MAC = 0x02_00_00_00_00_02L;
    static final LanAddresses MODEL = LanAddresses.of(MODEL_MAC, IpEndpoint.of("192.0.2.1", 0), 24,
            IpEndpoint.of("2001:db8::1", 0), 64);
    static final int MODEL_V4 = IpAddress.ipv4(192, 0, 2, 1);
    static final int GUEST_V4 = IpAddress.ipv4(192, 0, 2, 2);
    static final long V6_HI = 0x2001_0db8_0000_0000L;
    static final long MODEL_V6_LO = 1;
    static final long GUEST_V6_LO = 2;
    static final long SOLICITED_HI = 0xff02_0000_0000_0000L;
    static final long SOLICITED_MODEL_LO = 0x0000_0001_ff00_0001L;
    /** RFC 2464 §7: 33:33 and the low 32 bits of ff02::1:ff00:1. */
    static final long SOLICITED_MODEL_MAC = 0x3333_ff00_0001L;

    private LanFrames() {
    }

    static byte[] bytes(BytesStore<?, ?> s, int length) {
        byte[] b = new byte[length];
        s.read(0, b, 0, length);
        return b;
    }

    static BytesStore<?, ?> store(byte[] b) {
        return BytesStore.wrap(b);
    }

    static byte[] arp(int operation, long ethDst, long senderMac, int senderIp, long targetMac, int targetIp) {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[60]);
        int n = EthernetFrame.write(s, 0, ethDst, senderMac, EthernetFrame.ETHERTYPE_ARP);
        ArpPacket.write(s, n, operation, senderMac, senderIp, targetMac, targetIp);
        return bytes(s, 60);
    }

    static byte[] arpRequest() {
        return arp(ArpPacket.REQUEST, 0xffff_ffff_ffffL, GUEST_MAC, GUEST_V4, 0, MODEL_V4);
    }

    /** An ICMP echo request from the guest, {@code data} bytes of payload. */
    static byte[] echo(int identifier, int sequence, int data) {
        int icmp = 8 + data;
        BytesStore<?, ?> s = BytesStore.wrap(new byte[14 + 20 + icmp]);
        int n = EthernetFrame.write(s, 0, MODEL_MAC, GUEST_MAC, EthernetFrame.ETHERTYPE_IPV4);
        n += Ipv4Header.write(s, n, 0, 20 + icmp, 0x1234, true, 64, IcmpMessage.PROTOCOL_ICMP, GUEST_V4, MODEL_V4);
        IcmpMessage.writeEchoHeader(s, n, IcmpMessage.ECHO_REQUEST, identifier, sequence);
        for (int i = 0; i < data; i++) {
            s.writeByte(n + 8 + i, (byte) (i * 7 + 1));
        }
        IcmpMessage.writeChecksum(s, n, icmp, 0);
        return bytes(s, 14 + 20 + icmp);
    }

    /** An ICMPv6 message from {@code src} to {@code dst} with a correct checksum; {@code body} after the checksum. */
    static byte[] icmp6(long ethDst, long ethSrc, int hopLimit, long srcHi, long srcLo, long dstHi, long dstLo,
                        int type, int code, byte[] body) {
        int icmp = 4 + body.length;
        BytesStore<?, ?> s = BytesStore.wrap(new byte[Math.max(60, 14 + 40 + icmp)]);
        int n = EthernetFrame.write(s, 0, ethDst, ethSrc, EthernetFrame.ETHERTYPE_IPV6);
        n += Ipv6Header.write(s, n, 0, 0, icmp, IcmpMessage.PROTOCOL_ICMPV6, hopLimit, srcHi, srcLo, dstHi, dstLo);
        NetworkOrder.put8(s, n, type);
        NetworkOrder.put8(s, n + 1, code);
        s.write(n + 4, body, 0, body.length);
        IcmpMessage.writeChecksum(s, n, icmp, InternetChecksum.ipv6PseudoHeaderSum(srcHi, srcLo, dstHi, dstLo, icmp,
                IcmpMessage.PROTOCOL_ICMPV6));
        return bytes(s, 14 + 40 + icmp);
    }

    /** Neighbor Solicitation body (reserved, target, options) for {@code target}, with options appended. */
    static byte[] solicitationBody(long targetHi, long targetLo, byte[] options) {
        byte[] b = new byte[4 + 16 + options.length];
        BytesStore<?, ?> s = BytesStore.wrap(b);
        NetworkOrder.put64(s, 4, targetHi);
        NetworkOrder.put64(s, 12, targetLo);
        System.arraycopy(options, 0, b, 20, options.length);
        return b;
    }

    static byte[] linkLayerOption(int type, long mac) {
        byte[] b = new byte[8];
        BytesStore<?, ?> s = BytesStore.wrap(b);
        NetworkOrder.put8(s, 0, type);
        NetworkOrder.put8(s, 1, 1);
        NetworkOrder.put48(s, 2, mac);
        return b;
    }

    /** What Linux sends to resolve 2001:db8::1: to its solicited-node address, with the source link-layer address. */
    static byte[] solicitation() {
        return icmp6(SOLICITED_MODEL_MAC, GUEST_MAC, 255, V6_HI, GUEST_V6_LO, SOLICITED_HI, SOLICITED_MODEL_LO,
                IcmpMessage.NEIGHBOR_SOLICITATION, 0, solicitationBody(V6_HI, MODEL_V6_LO,
                        linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER, GUEST_MAC)));
    }

    static byte[] echoBody(int identifier, int sequence, int data) {
        byte[] b = new byte[4 + data];
        BytesStore<?, ?> s = BytesStore.wrap(b);
        NetworkOrder.put16(s, 0, identifier);
        NetworkOrder.put16(s, 2, sequence);
        for (int i = 0; i < data; i++) {
            b[4 + i] = (byte) (i * 3 + 5);
        }
        return b;
    }

    static byte[] echo6(int identifier, int sequence, int data) {
        return icmp6(MODEL_MAC, GUEST_MAC, 64, V6_HI, GUEST_V6_LO, V6_HI, MODEL_V6_LO, IcmpMessage.ECHO6_REQUEST, 0,
                echoBody(identifier, sequence, data));
    }
}
