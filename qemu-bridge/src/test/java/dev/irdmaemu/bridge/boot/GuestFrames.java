package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import net.openhft.chronicle.bytes.BytesStore;

/** What a guest (192.0.2.2, 02:00:00:00:00:02) puts on the wire to the hosted node, built with the codecs. */
final class GuestFrames {
    static final int GUEST_V4 = HostedNode.GUEST_V4.ipv4Address();
    static final int NODE_V4 = HostedNode.V4.ipv4Address();

    private GuestFrames() {
    }

    static byte[] arpRequest() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[60]);
        int n = EthernetFrame.write(s, 0, 0xffff_ffff_ffffL, HostedNode.GUEST_MAC, EthernetFrame.ETHERTYPE_ARP);
        ArpPacket.write(s, n, ArpPacket.REQUEST, HostedNode.GUEST_MAC, GUEST_V4, 0, NODE_V4);
        return bytes(s, 60);
    }

    /** A TCP segment from guest port {@code from} to node port {@code to}, with {@code payload}. */
    static byte[] tcp(int from, int to, long seq, long ack, int flags, byte[] payload) {
        TcpPacketBuilder b = new TcpPacketBuilder().reset().ethernet(HostedNode.MAC, HostedNode.GUEST_MAC)
                .ipv4(GUEST_V4, NODE_V4).ttl(64);
        b.tcp().reset().ports(from, to).sequenceNumber(seq).acknowledgmentNumber(ack).flags(flags).window(0xffff);
        if ((flags & TcpHeader.SYN) != 0) {
            b.tcp().mss(1460).windowScale(7);
        }
        BytesStore<?, ?> s = BytesStore.wrap(new byte[200 + payload.length]);
        int n = b.build(s, 0, BytesStore.wrap(payload), 0, payload.length);
        return bytes(s, n);
    }

    /** The MPA v2 request stock siw sends: CRC, the RTR message without the peer-to-peer bit. */
    static byte[] mpaRequest(boolean peerToPeer) {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[64]);
        int n = new MpaFrame.Builder().reset().request().revision(2).flags(MpaFrame.FLAG_CRC)
                .rtr(16, 16, peerToPeer, false, true, false).build(s, 0, 64);
        return bytes(s, n);
    }

    static TcpPacket parse(byte[] frame) {
        TcpPacket p = new TcpPacket().wrap(BytesStore.wrap(frame), 0, frame.length);
        return p.validate().accepted() ? p : null;
    }

    static boolean isTcp(byte[] frame, int flags) {
        TcpPacket p = parse(frame);
        return p != null && (p.tcp().flags() & flags) == flags;
    }

    static IpEndpoint guest(int port) {
        return HostedNode.GUEST_V4.withPort(port);
    }

    static byte[] bytes(BytesStore<?, ?> s, int n) {
        byte[] b = new byte[n];
        s.read(0, b, 0, n);
        return b;
    }
}
