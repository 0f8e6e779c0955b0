package dev.irdmaemu.fw.roce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Every {@link RoceCheck} has a frame that draws it, at the field that broke the rule: lengths of every layer,
 * versions, protocol and port, the opcode (reserved, other transports), the pad count, the word alignment, the ICRC,
 * the path MTU. Frames are built valid, then one field is changed (and the lengths around it kept consistent where
 * the rule under test is not about them).
 */
class RoceFrameHostileTest {
    private static final int IP = 14;
    private static final int UDP = 34;
    private static final int BTH = 42;
    private static final Set<RoceCheck> SEEN = EnumSet.noneOf(RoceCheck.class);

    private final RoceFrame frame = new RoceFrame();

    @AfterAll
    static void everyCheckHasATest() {
        assertEquals(EnumSet.allOf(RoceCheck.class), SEEN);
    }

    private static RoceFrameBuilder v4() {
        return new RoceFrameBuilder().ethernet(RoceSamples.MAC_B, RoceSamples.MAC_A)
                .ipv4(RoceSamples.IP_A, RoceSamples.IP_B).udp(0xc001, false);
    }

    private static RoceFrameBuilder v6() {
        return new RoceFrameBuilder().ethernet(RoceSamples.MAC_B, RoceSamples.MAC_A)
                .ipv6(RoceSamples.V6_HI, 1, RoceSamples.V6_HI, 2).udp(0xc001, false);
    }

    private static byte[] build(RoceFrameBuilder b, int payload) {
        BytesStore<?, byte[]> p = BytesStore.wrap(new byte[Math.max(1, payload)]);
        BytesStore<?, byte[]> out = BytesStore.wrap(new byte[b.frameLength(payload)]);
        int n = b.build(out, 0, p, 0, payload);
        assertEquals(out.capacity(), n);
        return out.underlyingObject();
    }

    private static void put16(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    private static int get16(byte[] b, int at) {
        return (b[at] & 0xff) << 8 | b[at + 1] & 0xff;
    }

    /** Shrinks (negative) or grows the IPv4 total length and UDP length together, keeping the header checksum. */
    private static void adjustV4Lengths(byte[] b, int delta) {
        put16(b, IP + 2, get16(b, IP + 2) + delta);
        put16(b, UDP + 4, get16(b, UDP + 4) + delta);
    }

    private void structure(RoceCheck expected, int at, byte[] b, int length) {
        assertEquals(expected, frame.wrap(BytesStore.wrap(b), 0, length).validateStructure());
        assertEquals(at, frame.failedAt(), expected.name());
        SEEN.add(expected);
    }

    private void full(RoceCheck expected, int at, byte[] b, PathMtu mtu) {
        assertEquals(expected, frame.wrap(BytesStore.wrap(b), 0, b.length).validate(mtu));
        assertEquals(at, frame.failedAt(), expected.name());
        SEEN.add(expected);
    }

    private byte[] sendOnly(int payload, Consumer<byte[]> change) {
        byte[] b = build(v4().bth(BthOpcode.RC_SEND_ONLY, 5, 6), payload);
        change.accept(b);
        return b;
    }

    @Test
    void acceptedFrameIsAccepted() {
        byte[] b = sendOnly(30, x -> { });
        full(RoceCheck.ACCEPTED, -1, b, PathMtu.MTU_256);
    }

    @Test
    void ethernetLayer() {
        byte[] b = sendOnly(4, x -> { });
        structure(RoceCheck.ETH_TRUNCATED, 0, b, 10);
        byte[] tagged = build(v4().vlan(1, false, 7).bth(BthOpcode.RC_SEND_ONLY, 5, 6), 4);
        structure(RoceCheck.ETH_VLAN_TAG_TRUNCATED, 14, tagged, 16);
        structure(RoceCheck.NOT_IP, 12, sendOnly(4, x -> put16(x, 12, 0x0806)), b.length);
    }

    @Test
    void ipv4Layer() {
        byte[] b = sendOnly(4, x -> { });
        structure(RoceCheck.IPV4_TRUNCATED, IP, b, IP + 10);
        structure(RoceCheck.IPV4_BAD_VERSION, IP, sendOnly(4, x -> x[IP] = 0x55), b.length);
        structure(RoceCheck.IPV4_IHL_TOO_SMALL, IP, sendOnly(4, x -> x[IP] = 0x44), b.length);
        structure(RoceCheck.IPV4_IHL_BEYOND_BUFFER, IP, sendOnly(4, x -> x[IP] = 0x4f), IP + 50);
        structure(RoceCheck.IPV4_TOTAL_LENGTH_BELOW_HEADER, IP + 2, sendOnly(4, x -> put16(x, IP + 2, 19)), b.length);
        structure(RoceCheck.IPV4_TOTAL_LENGTH_BEYOND_BUFFER, IP + 2, sendOnly(4, x -> adjustV4Lengths(x, 4)),
                b.length);
        full(RoceCheck.IPV4_BAD_CHECKSUM, IP + 10, sendOnly(4, x -> x[IP + 4] ^= 1), PathMtu.MTU_256);
        structure(RoceCheck.IPV4_FRAGMENT, IP + 6, sendOnly(4, x -> x[IP + 6] |= 0x20), b.length);
        structure(RoceCheck.NOT_UDP, IP + 9, sendOnly(4, x -> x[IP + 9] = 6), b.length);
    }

    @Test
    void ipv6Layer() {
        byte[] b = build(v6().bth(BthOpcode.UD_SEND_ONLY, 1, 1), 8);
        structure(RoceCheck.IPV6_TRUNCATED, IP, b, IP + 39);
        byte[] m = b.clone();
        m[IP] = 0x46;
        structure(RoceCheck.IPV6_BAD_VERSION, IP, m, m.length);
        m = b.clone();
        put16(m, IP + 4, get16(m, IP + 4) + 1);
        structure(RoceCheck.IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER, IP + 4, m, m.length);
        m = b.clone();
        m[IP + 6] = 0;
        structure(RoceCheck.IPV6_EXTENSION_HEADER, IP + 6, m, m.length);
        // the next layers of an IPv6 frame: UDP sits at 54, the BTH at 62
        m = b.clone();
        put16(m, 54 + 4, get16(m, 54 + 4) - 4);
        structure(RoceCheck.UDP_LENGTH_MISMATCH, 54 + 4, m, m.length);
        m = b.clone();
        m[62 + 1] |= 0x01;
        structure(RoceCheck.BAD_TRANSPORT_VERSION, 62 + 1, m, m.length);
    }

    @Test
    void udpLayer() {
        byte[] b = sendOnly(4, x -> { });
        structure(RoceCheck.UDP_TRUNCATED, UDP, sendOnly(4, x -> put16(x, IP + 2, 20 + 4)), b.length);
        structure(RoceCheck.UDP_LENGTH_BELOW_HEADER, UDP + 4, sendOnly(4, x -> put16(x, UDP + 4, 7)), b.length);
        structure(RoceCheck.UDP_LENGTH_MISMATCH, UDP + 4, sendOnly(4, x -> put16(x, UDP + 4, get16(x, UDP + 4) + 1)),
                b.length);
        structure(RoceCheck.NOT_ROCEV2_PORT, UDP + 2, sendOnly(4, x -> put16(x, UDP + 2, 4792)), b.length);
        byte[] checked = build(v4().udp(0xc001, true).bth(BthOpcode.RC_SEND_ONLY, 5, 6), 8);
        checked[BTH + 12] ^= 0x40;
        full(RoceCheck.UDP_BAD_CHECKSUM, UDP + 6, checked, PathMtu.MTU_256);
    }

    @Test
    void opcodeAndVersion() {
        byte[] b = sendOnly(4, x -> { });
        structure(RoceCheck.BTH_TRUNCATED, BTH, sendOnly(4, x -> adjustV4Lengths(x, -(8 + 4))), b.length - 12);
        structure(RoceCheck.BAD_TRANSPORT_VERSION, BTH + 1, sendOnly(4, x -> x[BTH + 1] |= 0x08), b.length);
        for (int code : new int[] {0x40, 0x5f, 0xa0, 0xbf, 0xe0, 0xff}) {
            structure(RoceCheck.OTHER_TRANSPORT, BTH, sendOnly(4, x -> x[BTH] = (byte) code), b.length);
        }
        for (int code : new int[] {0x15, 0x18, 0x1e, 0x2c, 0x3f, 0x60, 0x66, 0x80, 0x82, 0x9f, 0xc0, 0xdf}) {
            structure(RoceCheck.RESERVED_OPCODE, BTH, sendOnly(4, x -> x[BTH] = (byte) code), b.length);
        }
    }

    @Test
    void headersIcrcAndPad() {
        byte[] b = sendOnly(0, x -> x[BTH] = (byte) BthOpcode.RC_RDMA_WRITE_ONLY.code());
        structure(RoceCheck.HEADERS_TRUNCATED, BTH + 16, b, b.length);
        byte[] ack = build(v4().bth(BthOpcode.RC_ACKNOWLEDGE, 5, 6), 0);
        byte[] m = ack.clone();
        adjustV4Lengths(m, -4);
        structure(RoceCheck.ICRC_TRUNCATED, BTH + 16, m, m.length - 4);
        m = sendOnly(8, x -> adjustV4Lengths(x, -1));
        structure(RoceCheck.NOT_WORD_ALIGNED, BTH + 12 + 8 - 1, m, m.length - 1);
        structure(RoceCheck.PAD_BEYOND_PAYLOAD, BTH + 1, sendOnly(0, x -> x[BTH + 1] |= 0x30), b.length);
        m = ack.clone();
        m[BTH + 1] |= 0x10;
        structure(RoceCheck.PAD_WITHOUT_PAYLOAD, BTH + 1, m, m.length);
        m = sendOnly(8, x -> x[BTH] = (byte) BthOpcode.RC_ACKNOWLEDGE.code());
        structure(RoceCheck.UNEXPECTED_PAYLOAD, BTH + 16, m, m.length);
        m = build(v4().bth(BthOpcode.RC_ATOMIC_WRITE, 5, 6), 4);
        structure(RoceCheck.ATOMIC_WRITE_NOT_8_BYTES, BTH + 12 + 16, m, m.length);
        full(RoceCheck.ACCEPTED, -1, build(v4().bth(BthOpcode.RC_ATOMIC_WRITE, 5, 6), 8), PathMtu.MTU_256);
        m = sendOnly(8, x -> x[BTH + 12 + 3] ^= 0x01);
        full(RoceCheck.BAD_ICRC, BTH + 12 + 8, m, PathMtu.MTU_256);
    }

    @Test
    void pathMtu() {
        full(RoceCheck.PAYLOAD_ABOVE_MTU, BTH + 12, sendOnly(257, x -> { }), PathMtu.MTU_256);
        full(RoceCheck.ACCEPTED, -1, sendOnly(257, x -> { }), PathMtu.MTU_512);
        byte[] first = build(v4().bth(BthOpcode.RC_SEND_FIRST, 5, 6), 100);
        full(RoceCheck.PAYLOAD_NOT_FULL_MTU, BTH + 12, first, PathMtu.MTU_256);
        byte[] middle = build(v4().bth(BthOpcode.RC_RDMA_WRITE_MIDDLE, 5, 6), 512);
        full(RoceCheck.PAYLOAD_ABOVE_MTU, BTH + 12, middle, PathMtu.MTU_256);
        full(RoceCheck.ACCEPTED, -1, middle, PathMtu.MTU_512);
        full(RoceCheck.PAYLOAD_NOT_FULL_MTU, BTH + 12, middle, PathMtu.MTU_1024);
        byte[] last = build(v4().bth(BthOpcode.RC_SEND_LAST, 5, 6), 0);
        full(RoceCheck.EMPTY_LAST_PACKET, BTH + 12, last, PathMtu.MTU_256);
        byte[] response = build(v4().bth(BthOpcode.RC_RDMA_READ_RESPONSE_LAST, 5, 6), 1);
        full(RoceCheck.ACCEPTED, -1, response, PathMtu.MTU_256);
        byte[] ud = build(v4().bth(BthOpcode.UD_SEND_ONLY, 1, 6), 1024);
        full(RoceCheck.PAYLOAD_ABOVE_MTU, BTH + 12 + 8, ud, PathMtu.MTU_512);
        full(RoceCheck.ACCEPTED, -1, ud, PathMtu.MTU_1024);
    }
}
