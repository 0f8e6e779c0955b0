package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * {@link MpaReplyProbe} answers as validating every frame would: its first look, without validation, never turns
 * away a frame the validation accepts.
 */
class MpaReplyProbeTest {
    @Test
    void answersAsTheValidationOfEveryFrameWould() {
        List<byte[]> frames = new ArrayList<>();
        for (int vlan = -1; vlan <= 5; vlan += 6) {
            for (boolean v6 : new boolean[] {false, true}) {
                frames.add(frame(vlan, v6, mpa(true, 0)));
                frames.add(frame(vlan, v6, mpa(true, MpaFrame.FLAG_REJECT)));
                frames.add(frame(vlan, v6, mpa(false, 0)));
                frames.add(frame(vlan, v6, new byte[0]));
            }
        }
        frames.add(GuestFrames.arpRequest());
        int accepting = 0;
        MpaReplyProbe probe = new MpaReplyProbe();
        Random random = new Random(5044);
        for (byte[] f : frames) {
            accepting += check(probe, f) ? 1 : 0;
            for (int n = 0; n < f.length; n++) {
                check(probe, Arrays.copyOf(f, n));
            }
            for (int i = 0; i < 2000; i++) {
                byte[] g = f.clone();
                g[random.nextInt(g.length)] ^= (byte) (1 << random.nextInt(8));
                check(probe, g);
            }
        }
        assertEquals(4, accepting, "the accepting reply, tagged or not, over IPv4 and IPv6");
    }

    @Test
    void anAcceptingReplyIsRecognisedAndARejectIsNot() {
        MpaReplyProbe probe = new MpaReplyProbe();
        byte[] reply = frame(-1, false, mpa(true, 0));
        assertTrue(probe.isAcceptingReply(BytesStore.wrap(reply), 0, reply.length));
        byte[] reject = frame(-1, false, mpa(true, MpaFrame.FLAG_REJECT));
        assertFalse(probe.isAcceptingReply(BytesStore.wrap(reject), 0, reject.length));
    }

    /** The probe's answer, checked against validating the frame and reading its TCP data (HostedNode's before). */
    private static boolean check(MpaReplyProbe probe, byte[] f) {
        BytesStore<?, ?> s = BytesStore.wrap(f);
        boolean expected = false;
        TcpPacket p = new TcpPacket().wrap(s, 0, f.length);
        if (p.validate().accepted() && p.tcpPayloadLength() >= MpaFrame.HEADER_SIZE) {
            MpaFrame m = new MpaFrame().wrap(s, p.offset() + p.tcpPayloadOffset(), p.tcpPayloadLength());
            expected = m.isReply() && !m.isReject();
        }
        boolean actual = probe.isAcceptingReply(s, 0, f.length);
        assertEquals(expected, actual);
        return actual;
    }

    private static byte[] mpa(boolean reply, int flags) {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[64]);
        MpaFrame.Builder b = new MpaFrame.Builder().reset();
        (reply ? b.reply() : b.request()).revision(2).flags(MpaFrame.FLAG_CRC | flags).rtr(16, 16, false, false, true,
                false);
        return GuestFrames.bytes(s, b.build(s, 0, 64));
    }

    private static byte[] frame(int vlan, boolean v6, byte[] payload) {
        TcpPacketBuilder b = new TcpPacketBuilder().reset().ethernet(HostedNode.GUEST_MAC, HostedNode.MAC);
        if (vlan >= 0) {
            b.vlan(0, false, vlan);
        }
        if (v6) {
            b.ipv6(HostedNode.V6.addressHi(), HostedNode.V6.addressLo(), HostedNode.GUEST_V6.addressHi(),
                    HostedNode.GUEST_V6.addressLo());
        } else {
            b.ipv4(GuestFrames.NODE_V4, GuestFrames.GUEST_V4);
        }
        b.ttl(64).tcp().reset().ports(4791, 40000).sequenceNumber(7).acknowledgmentNumber(9)
                .flags(TcpHeader.ACK | TcpHeader.PSH).window(0xffff);
        BytesStore<?, ?> s = BytesStore.wrap(new byte[200 + payload.length]);
        int n = b.build(s, 0, BytesStore.wrap(payload), 0, payload.length);
        return GuestFrames.bytes(s, n);
    }
}
