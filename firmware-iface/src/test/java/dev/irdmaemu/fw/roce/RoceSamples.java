package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.frame.IpAddress;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A representative set of RoCEv2 frames for the tests: RC SEND first/middle/last/only with and without immediate and
 * with invalidate, WRITE first/middle/last/only (RETH, immediate), READ request and responses, ACK, NAK, RNR NAK,
 * atomics, UD SEND over IPv4 and IPv6, a VLAN-tagged frame and a CNP.
 */
final class RoceSamples {
    static final long MAC_A = 0x02_00_00_00_00_0aL;
    static final long MAC_B = 0x02_00_00_00_00_0bL;
    static final int IP_A = IpAddress.ipv4(192, 0, 2, 1);
    static final int IP_B = IpAddress.ipv4(192, 0, 2, 2);
    /** 2001:db8::1 and 2001:db8::2 (RFC 3849 documentation prefix). */
    static final long V6_HI = 0x2001_0db8_0000_0000L;
    static final int MTU = 256;

    /** One frame: what it is called, its bytes. */
    record Sample(String name, byte[] bytes) {
    }

    private RoceSamples() {
    }

    static List<Sample> all() {
        List<Sample> out = new ArrayList<>();
        RoceFrameBuilder b = new RoceFrameBuilder();
        add(out, "RC SEND FIRST", base(b).bth(BthOpcode.RC_SEND_FIRST, 0x11, 100), MTU);
        add(out, "RC SEND MIDDLE", base(b).bth(BthOpcode.RC_SEND_MIDDLE, 0x11, 101), MTU);
        add(out, "RC SEND LAST", base(b).bth(BthOpcode.RC_SEND_LAST, 0x11, 102).flags(false, false, true), 13);
        add(out, "RC SEND ONLY", base(b).bth(BthOpcode.RC_SEND_ONLY, 0x11, 103).flags(true, false, true), 21);
        add(out, "RC SEND LAST IMM", base(b).bth(BthOpcode.RC_SEND_LAST_WITH_IMMEDIATE, 0x11, 104)
                .immediate(0xcafe0001).flags(false, false, true), 7);
        add(out, "RC SEND ONLY IMM", base(b).bth(BthOpcode.RC_SEND_ONLY_WITH_IMMEDIATE, 0x11, 105)
                .immediate(0x12345678).flags(false, false, true), 0);
        add(out, "RC SEND ONLY INV", base(b).bth(BthOpcode.RC_SEND_ONLY_WITH_INVALIDATE, 0x11, 106)
                .invalidate(0x0abc0001).flags(false, false, true), 16);
        add(out, "RC WRITE FIRST", base(b).bth(BthOpcode.RC_RDMA_WRITE_FIRST, 0x11, 107)
                .reth(0x7f00_1234_5000L, 0x1001, 600), MTU);
        add(out, "RC WRITE MIDDLE", base(b).bth(BthOpcode.RC_RDMA_WRITE_MIDDLE, 0x11, 108), MTU);
        add(out, "RC WRITE LAST IMM", base(b).bth(BthOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x11, 109)
                .immediate(7).flags(false, false, true), 88);
        add(out, "RC WRITE ONLY", base(b).bth(BthOpcode.RC_RDMA_WRITE_ONLY, 0x11, 110)
                .reth(0x1000, 0x2002, 30).flags(false, false, true), 30);
        add(out, "RC WRITE ONLY IMM", base(b).bth(BthOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x11, 111)
                .reth(0x2000, 0x2003, 4).immediate(0xfeedf00d).flags(false, false, true), 4);
        add(out, "RC READ REQUEST", base(b).bth(BthOpcode.RC_RDMA_READ_REQUEST, 0x11, 112)
                .reth(0x3000, 0x3003, 700).flags(false, false, true), 0);
        add(out, "RC READ RESPONSE FIRST", reverse(b).bth(BthOpcode.RC_RDMA_READ_RESPONSE_FIRST, 0x22, 112)
                .aeth(Aeth.ackSyndrome(Aeth.CREDITS_UNLIMITED), 3), MTU);
        add(out, "RC READ RESPONSE MIDDLE", reverse(b).bth(BthOpcode.RC_RDMA_READ_RESPONSE_MIDDLE, 0x22, 113), MTU);
        add(out, "RC READ RESPONSE LAST", reverse(b).bth(BthOpcode.RC_RDMA_READ_RESPONSE_LAST, 0x22, 114)
                .aeth(Aeth.ackSyndrome(Aeth.CREDITS_UNLIMITED), 3), 188);
        add(out, "RC READ RESPONSE ONLY", reverse(b).bth(BthOpcode.RC_RDMA_READ_RESPONSE_ONLY, 0x22, 115)
                .aeth(Aeth.ackSyndrome(4), 4), 9);
        add(out, "RC ACK", reverse(b).bth(BthOpcode.RC_ACKNOWLEDGE, 0x22, 111)
                .aeth(Aeth.ackSyndrome(Aeth.CREDITS_UNLIMITED), 2), 0);
        add(out, "RC NAK PSN", reverse(b).bth(BthOpcode.RC_ACKNOWLEDGE, 0x22, 120)
                .aeth(Aeth.nakSyndrome(NakCode.PSN_SEQUENCE_ERROR), 5), 0);
        add(out, "RC NAK REMOTE ACCESS", reverse(b).bth(BthOpcode.RC_ACKNOWLEDGE, 0x22, 121)
                .aeth(Aeth.nakSyndrome(NakCode.REMOTE_ACCESS_ERROR), 5), 0);
        add(out, "RC RNR NAK", reverse(b).bth(BthOpcode.RC_ACKNOWLEDGE, 0x22, 122).aeth(Aeth.rnrNakSyndrome(14), 5), 0);
        add(out, "RC COMPARE SWAP", base(b).bth(BthOpcode.RC_COMPARE_SWAP, 0x11, 130)
                .atomic(0x4000, 0x4004, 2, 1).flags(false, false, true), 0);
        add(out, "RC ATOMIC ACK", reverse(b).bth(BthOpcode.RC_ATOMIC_ACKNOWLEDGE, 0x22, 130)
                .aeth(Aeth.ackSyndrome(Aeth.CREDITS_UNLIMITED), 6).atomicAck(1), 0);
        add(out, "UD SEND ONLY v4", base(b).bth(BthOpcode.UD_SEND_ONLY, 1, 7).deth(Deth.GSI_Q_KEY, 1)
                .flags(false, false, false), 256);
        add(out, "UD SEND ONLY IMM v4", base(b).bth(BthOpcode.UD_SEND_ONLY_WITH_IMMEDIATE, 0x33, 8)
                .deth(0x1111, 0x44).immediate(99), 21);
        add(out, "UD SEND ONLY v6", base(b).ipv6(V6_HI, 1, V6_HI, 2).flowLabel(0x12345)
                .bth(BthOpcode.UD_SEND_ONLY, 1, 9)
                .deth(Deth.GSI_Q_KEY, 1), 256);
        add(out, "RC SEND ONLY v6", base(b).ipv6(V6_HI, 1, V6_HI, 2).tos(0x68).bth(BthOpcode.RC_SEND_ONLY, 0x55, 10)
                .flags(false, false, true), 19);
        add(out, "RC SEND ONLY vlan", base(b).vlan(3, false, 100).bth(BthOpcode.RC_SEND_ONLY, 0x55, 11)
                .flags(false, false, true), 64);
        add(out, "RC SEND ONLY CE", base(b).tos(0x03).ecn(true, false).bth(BthOpcode.RC_SEND_ONLY, 0x55, 12)
                .flags(false, false, true), 18);
        add(out, "CNP", reverse(b).cnp(0x11).tos(0x02), 0);
        add(out, "UC SEND ONLY", base(b).bth(BthOpcode.UC_SEND_ONLY, 0x66, 1), 10);
        return out;
    }

    private static RoceFrameBuilder base(RoceFrameBuilder b) {
        return b.reset().ethernet(MAC_B, MAC_A).ipv4(IP_A, IP_B).udp(0xc123, true).identification(0x100);
    }

    /** The responder's direction: B to A. */
    private static RoceFrameBuilder reverse(RoceFrameBuilder b) {
        return b.reset().ethernet(MAC_A, MAC_B).ipv4(IP_B, IP_A).udp(0xc321, false).identification(0x200);
    }

    private static void add(List<Sample> out, String name, RoceFrameBuilder b, int payloadLength) {
        BytesStore<?, byte[]> payload = BytesStore.wrap(new byte[Math.max(payloadLength, 1)]);
        for (int i = 0; i < payloadLength; i++) {
            payload.writeByte(i, (byte) (i * 7 + 1));
        }
        BytesStore<?, byte[]> frame = BytesStore.wrap(new byte[b.frameLength(payloadLength)]);
        int n = b.build(frame, 0, payload, 0, payloadLength);
        byte[] bytes = new byte[n];
        frame.read(0, bytes, 0, n);
        out.add(new Sample(name, bytes));
    }
}
