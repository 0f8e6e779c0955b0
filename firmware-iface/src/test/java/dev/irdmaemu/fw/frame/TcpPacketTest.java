package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TcpPacketTest {
    static final long MAC_A = 0x020000000001L;
    static final long MAC_B = 0x020000000002L;
    static final int V4_A = IpAddress.ipv4(192, 0, 2, 1);
    static final int V4_B = IpAddress.ipv4(198, 51, 100, 2);
    static final long V6_HI = 0x20010db800000000L;

    /**
     * A SYN, 192.0.2.1:12345 -> 198.51.100.2:4567, seq 0x01020304, window 0xfaf0, MSS 1460, written out by
     * hand from RFC 791 §3.1 and RFC 9293 §3.1. The checksums (324f IPv4, 6ae8 TCP) were computed outside the
     * project (a few lines of Python summing 16-bit words) and are recomputed in the test by {@link Ref}.
     */
    static final String SYN_V4 = ""
            + "020000000002 020000000001 0800"                // Ethernet: dst, src, IPv4
            + "4500 002c 1c46 4000 4006 324f"                  // IPv4: IHL 5, total 44, id, DF, TTL 64, TCP, csum
            + "c0000201 c6336402"                              // 192.0.2.1 -> 198.51.100.2
            + "3039 11d7 01020304 00000000"                    // TCP: ports, seq, ack
            + "6002 faf0 6ae8 0000"                            // data offset 6, SYN, window, csum, urgent
            + "020405b4";                                      // MSS 1460

    /**
     * A SYN over IPv6 in VLAN 100 (PCP 5), [2001:db8::1]:50000 -> [2001:db8::2]:4433, seq 0xfedcba98,
     * window 0xffff, MSS 1440, SACK-permitted, window scale 7 (RFC 8200 §3, IEEE 802.1Q, RFC 9293 §3.1).
     * TCP checksum 8599 computed outside the project and recomputed by {@link Ref}.
     */
    static final String SYN_V6_VLAN = ""
            + "020000000002 020000000001 8100 a064 86dd"      // Ethernet + 802.1Q (PCP 5, VID 100), IPv6
            + "60000000 0020 06 40"                            // IPv6: payload 32, TCP, hop limit 64
            + "20010db8000000000000000000000001"               // 2001:db8::1
            + "20010db8000000000000000000000002"               // 2001:db8::2
            + "c350 1151 fedcba98 00000000"                    // TCP: ports, seq, ack
            + "8002 ffff 8599 0000"                            // data offset 8, SYN, window, csum, urgent
            + "020405a0 01010402 01030307";                    // MSS 1440; NOP NOP SACK-perm; NOP WS 7

    private final TcpPacket packet = new TcpPacket();

    @Test
    void referenceChecksumsOfTheHandBuiltFramesMatchTheOfflineValues() {
        byte[] f = Ref.hex(SYN_V4);
        assertEquals(0x324f, Ref.u16(f, 24));
        Ref.fixIpv4Checksum(f, 14);
        Ref.fixTcpChecksumV4(f, 14);
        assertEquals(SYN_V4.replace(" ", ""), Ref.toHex(f, 0, f.length));

        byte[] g = Ref.hex(SYN_V6_VLAN);
        Ref.fixTcpChecksumV6(g, 18);
        assertEquals(SYN_V6_VLAN.replace(" ", ""), Ref.toHex(g, 0, g.length));
    }

    @Test
    void handBuiltIpv4SynValidates() {
        byte[] f = Ref.hex(SYN_V4);
        assertEquals(TcpPacket.Status.ACCEPTED, packet.wrap(Ref.store(f), 0, f.length).validate());
        assertFalse(packet.isIpv6());
        assertEquals(-1, packet.vlanId());
        assertEquals(14, packet.ipOffset());
        assertEquals(34, packet.tcpOffset());
        assertEquals(58, packet.tcpPayloadOffset());
        assertEquals(0, packet.tcpPayloadLength());
        assertEquals(MAC_B, packet.ethernet().destination());
        assertEquals(V4_A, packet.ipv4().source());
        assertEquals(V4_B, packet.ipv4().destination());
        assertTrue(IpAddress.isIpv4Mapped(packet.sourceHi(), packet.sourceLo()));
        assertEquals(IpAddress.mappedLo(V4_A), packet.sourceLo());
        assertEquals(IpAddress.mappedLo(V4_B), packet.destinationLo());
        TcpHeader t = packet.tcp();
        assertEquals(12345, t.sourcePort());
        assertEquals(4567, t.destinationPort());
        assertEquals(0x01020304L, t.sequenceNumber());
        assertTrue(t.syn());
        assertFalse(t.ack());
        assertEquals(1460, t.mss());
        assertEquals(0x6ae8, t.checksum());
    }

    @Test
    void handBuiltIpv6VlanSynValidates() {
        byte[] f = Ref.hex(SYN_V6_VLAN);
        assertEquals(TcpPacket.Status.ACCEPTED, packet.wrap(Ref.store(f), 0, f.length).validate());
        assertTrue(packet.isIpv6());
        assertEquals(100, packet.vlanId());
        assertEquals(5, packet.ethernet().pcp());
        assertEquals(18, packet.ipOffset());
        assertEquals(58, packet.tcpOffset());
        assertEquals(V6_HI, packet.sourceHi());
        assertEquals(1L, packet.sourceLo());
        assertEquals(V6_HI, packet.destinationHi());
        assertEquals(2L, packet.destinationLo());
        TcpHeader t = packet.tcp();
        assertEquals(50000, t.sourcePort());
        assertEquals(4433, t.destinationPort());
        assertEquals(0xfedcba98L, t.sequenceNumber());
        assertEquals(1440, t.mss());
        assertTrue(t.sackPermitted());
        assertEquals(7, t.windowScale());
        assertFalse(t.hasTimestamps());
    }

    @Test
    void builderReproducesTheHandBuiltIpv4SynByteForByte() {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(MAC_B, MAC_A).ipv4(V4_A, V4_B).identification(0x1c46);
        b.tcp().ports(12345, 4567).sequenceNumber(0x01020304L).flags(TcpHeader.SYN).window(0xfaf0).mss(1460);
        byte[] out = new byte[100];
        Arrays.fill(out, (byte) 0x5a);
        int len = b.build(Ref.store(out), 3);
        assertEquals(58, len);
        assertEquals(SYN_V4.replace(" ", ""), Ref.toHex(out, 3, len));
        assertEquals((byte) 0x5a, out[3 + len]); // nothing written past the frame
    }

    @Test
    void builderReproducesTheHandBuiltIpv6VlanSynByteForByte() {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(MAC_B, MAC_A).vlan(5, false, 100)
                .ipv6(V6_HI, 1, V6_HI, 2);
        b.tcp().ports(50000, 4433).sequenceNumber(0xfedcba98L).flags(TcpHeader.SYN).window(0xffff)
                .mss(1440).sackPermitted(true).windowScale(7);
        byte[] out = new byte[90];
        int len = b.build(Ref.store(out), 0);
        assertEquals(90, len);
        assertEquals(SYN_V6_VLAN.replace(" ", ""), Ref.toHex(out, 0, len));
    }

    @Test
    void builderCopiesOrReservesThePayloadAndChecksumsIt() {
        byte[] data = "hello, iWARP".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(MAC_B, MAC_A).ipv4(V4_A, V4_B);
        b.tcp().ports(1, 2).sequenceNumber(7).acknowledgmentNumber(9).flags(TcpHeader.ACK | TcpHeader.PSH)
                .window(100).timestamps(5, 6);
        byte[] out = new byte[200];
        BytesStore<?, byte[]> s = Ref.store(out);
        int len = b.build(s, 0, Ref.store(data), 0, data.length);
        assertEquals(14 + 20 + 32 + data.length, len);
        assertEquals(TcpPacket.Status.ACCEPTED, packet.wrap(s, 0, len).validate());
        assertEquals(data.length, packet.tcpPayloadLength());
        assertEquals(new String(data, java.nio.charset.StandardCharsets.US_ASCII),
                new String(out, (int) packet.tcpPayloadOffset(), data.length, java.nio.charset.StandardCharsets.US_ASCII));

        byte[] out2 = new byte[200];
        BytesStore<?, byte[]> s2 = Ref.store(out2);
        long at = b.begin(s2, 10, data.length);
        assertEquals(10 + 66, at);
        System.arraycopy(data, 0, out2, (int) at, data.length);
        assertEquals(len, b.finish());
        assertEquals(Ref.toHex(out, 0, len), Ref.toHex(out2, 10, len));
        assertThrows(IllegalStateException.class, b::finish);
        assertThrows(IllegalArgumentException.class, () -> b.build(Ref.store(new byte[len - 1]), 0,
                Ref.store(data), 0, data.length));
        assertThrows(IllegalArgumentException.class, () -> b.ipv6(0, IpAddress.mappedLo(V4_A), V6_HI, 2));
        assertThrows(IllegalArgumentException.class, () -> b.addresses(0, IpAddress.mappedLo(V4_A), V6_HI, 2));
    }

    @Test
    void oneZeroWordTurnedToAllOnesIsTheOneUndetectableWordChange() {
        // One's complement has two zeros (RFC 1071 §1): a 16-bit word 0x0000 replaced by 0xffff leaves the sum,
        // and so the checksum, unchanged. This is inherent to the Internet checksum, not a parser gap.
        byte[] payload = {0x41, 0x42, 0x00, 0x00, 0x43, 0x44};
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(MAC_B, MAC_A).ipv4(V4_A, V4_B);
        b.tcp().ports(1, 2).flags(TcpHeader.ACK).window(1);
        byte[] out = new byte[80];
        int len = b.build(Ref.store(out), 0, Ref.store(payload), 0, payload.length);
        int zeroWord = 14 + 20 + 20 + 2;
        out[zeroWord] = (byte) 0xff;
        out[zeroWord + 1] = (byte) 0xff;
        assertEquals(TcpPacket.Status.ACCEPTED, packet.wrap(Ref.store(out), 0, len).validate());
        out[zeroWord + 1] = (byte) 0xfe;
        assertEquals(TcpPacket.Status.TCP_BAD_CHECKSUM, packet.wrap(Ref.store(out), 0, len).validate());
    }

    // ---- every check of the composite, reached by a crafted frame ----

    private static byte[] v4(Consumer<byte[]> change) {
        byte[] f = Ref.hex(SYN_V4);
        change.accept(f);
        Ref.fixIpv4Checksum(f, 14);
        return f;
    }

    private static byte[] v6(Consumer<byte[]> change) {
        byte[] f = Ref.hex(SYN_V6_VLAN);
        change.accept(f);
        return f;
    }

    /** IPv4 frame whose TCP header (at 34) is replaced; TCP rules fire before the TCP checksum. */
    private static byte[] v4Tcp(String tcpHex) {
        byte[] tcp = Ref.hex(tcpHex);
        byte[] f = Ref.concat(Arrays.copyOf(Ref.hex(SYN_V4), 34), tcp);
        Ref.put16(f, 16, 20 + tcp.length);
        Ref.fixIpv4Checksum(f, 14);
        return f;
    }

    static Stream<Arguments> checks() {
        byte[] ipBadSum = Ref.hex(SYN_V4);
        ipBadSum[22] = 0x3f; // TTL changed, checksum not
        byte[] tcpBadSum = Ref.hex(SYN_V4);
        tcpBadSum[48] ^= 0x10; // window
        byte[] tcpBadSum6 = Ref.hex(SYN_V6_VLAN);
        tcpBadSum6[40] ^= 0x01; // last byte of the source address: in the pseudo-header only
        String tcp20 = "3039 11d7 01020304 00000000 5002 faf0 0000 0000";
        return Stream.of(
                Arguments.of("valid IPv4", Ref.hex(SYN_V4), TcpPacket.Status.ACCEPTED, -1L),
                Arguments.of("valid IPv6 in a VLAN", Ref.hex(SYN_V6_VLAN), TcpPacket.Status.ACCEPTED, -1L),
                Arguments.of("10 bytes", Arrays.copyOf(Ref.hex(SYN_V4), 10), TcpPacket.Status.ETH_TRUNCATED, 0L),
                Arguments.of("tag cut", Arrays.copyOf(Ref.hex(SYN_V6_VLAN), 16),
                        TcpPacket.Status.ETH_VLAN_TAG_TRUNCATED, 14L),
                Arguments.of("ARP", v4(f -> Ref.put16(f, 12, 0x0806)), TcpPacket.Status.NOT_IP, 12L),
                Arguments.of("ARP in a VLAN", v6(f -> Ref.put16(f, 16, 0x0806)), TcpPacket.Status.NOT_IP, 16L),
                Arguments.of("IPv4 cut at 19 bytes", Arrays.copyOf(Ref.hex(SYN_V4), 33),
                        TcpPacket.Status.IPV4_TRUNCATED, 14L),
                Arguments.of("IPv4 EtherType, version 6", v4(f -> f[14] = 0x65), TcpPacket.Status.IPV4_BAD_VERSION, 14L),
                Arguments.of("IHL 4", v4(f -> f[14] = 0x44), TcpPacket.Status.IPV4_IHL_TOO_SMALL, 14L),
                Arguments.of("IHL 15", v4(f -> f[14] = 0x4f), TcpPacket.Status.IPV4_IHL_BEYOND_BUFFER, 14L),
                Arguments.of("total length 10", v4(f -> Ref.put16(f, 16, 10)),
                        TcpPacket.Status.IPV4_TOTAL_LENGTH_BELOW_HEADER, 16L),
                Arguments.of("total length 45", v4(f -> Ref.put16(f, 16, 45)),
                        TcpPacket.Status.IPV4_TOTAL_LENGTH_BEYOND_BUFFER, 16L),
                Arguments.of("IPv4 checksum stale", ipBadSum, TcpPacket.Status.IPV4_BAD_CHECKSUM, 24L),
                Arguments.of("IPv4 MF", v4(f -> Ref.put16(f, 20, 0x6000)), TcpPacket.Status.IPV4_FRAGMENT, 20L),
                Arguments.of("UDP over IPv4", v4(f -> f[23] = 17), TcpPacket.Status.NOT_TCP, 23L),
                Arguments.of("IPv6 cut at 39 bytes", Arrays.copyOf(Ref.hex(SYN_V6_VLAN), 18 + 39),
                        TcpPacket.Status.IPV6_TRUNCATED, 18L),
                Arguments.of("IPv6 EtherType, version 4", v6(f -> f[18] = 0x40), TcpPacket.Status.IPV6_BAD_VERSION, 18L),
                Arguments.of("IPv6 payload length 33", v6(f -> Ref.put16(f, 22, 33)),
                        TcpPacket.Status.IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER, 22L),
                Arguments.of("IPv6 hop-by-hop", v6(f -> f[24] = 0), TcpPacket.Status.IPV6_EXTENSION_HEADER, 24L),
                Arguments.of("UDP over IPv6", v6(f -> f[24] = 17), TcpPacket.Status.NOT_TCP, 24L),
                Arguments.of("IPv6 source ::ffff:192.0.2.1", v6(f -> mapped(f, 26)),
                        TcpPacket.Status.IPV6_V4MAPPED_ADDRESS, 26L),
                Arguments.of("IPv6 destination ::ffff:192.0.2.1", v6(f -> mapped(f, 42)),
                        TcpPacket.Status.IPV6_V4MAPPED_ADDRESS, 42L),
                Arguments.of("TCP 19 bytes", v4Tcp(tcp20.substring(0, tcp20.length() - 2)),
                        TcpPacket.Status.TCP_TRUNCATED, 34L),
                Arguments.of("TCP data offset 4", v4Tcp(tcp20.replace("5002", "4002")),
                        TcpPacket.Status.TCP_DATA_OFFSET_TOO_SMALL, 46L),
                Arguments.of("TCP data offset 6, 20 bytes", v4Tcp(tcp20.replace("5002", "6002")),
                        TcpPacket.Status.TCP_DATA_OFFSET_BEYOND_SEGMENT, 46L),
                Arguments.of("TCP option length 0", v4Tcp(tcp20.replace("5002", "6002") + "fe000000"),
                        TcpPacket.Status.TCP_OPTION_LENGTH_TOO_SMALL, 55L),
                Arguments.of("TCP option past data offset", v4Tcp(tcp20.replace("5002", "6002") + "fe080000"),
                        TcpPacket.Status.TCP_OPTION_BEYOND_DATA_OFFSET, 55L),
                Arguments.of("TCP MSS length 3", v4Tcp(tcp20.replace("5002", "6002") + "02030000"),
                        TcpPacket.Status.TCP_MSS_BAD_LENGTH, 55L),
                Arguments.of("TCP WS length 4", v4Tcp(tcp20.replace("5002", "6002") + "03040000"),
                        TcpPacket.Status.TCP_WINDOW_SCALE_BAD_LENGTH, 55L),
                Arguments.of("TCP SACK-permitted length 3", v4Tcp(tcp20.replace("5002", "6002") + "04030000"),
                        TcpPacket.Status.TCP_SACK_PERMITTED_BAD_LENGTH, 55L),
                Arguments.of("TCP timestamps length 4", v4Tcp(tcp20.replace("5002", "6002") + "08040000"),
                        TcpPacket.Status.TCP_TIMESTAMPS_BAD_LENGTH, 55L),
                Arguments.of("TCP checksum, IPv4", tcpBadSum, TcpPacket.Status.TCP_BAD_CHECKSUM, 50L),
                Arguments.of("TCP checksum, IPv6 pseudo-header", tcpBadSum6, TcpPacket.Status.TCP_BAD_CHECKSUM, 74L));
    }

    private static void mapped(byte[] f, int at) {
        byte[] m = Ref.hex("00000000000000000000ffffc0000201");
        System.arraycopy(m, 0, f, at, 16);
        Ref.fixTcpChecksumV6(f, 18); // so that only the address rule can fire
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checks")
    void eachCheck(String name, byte[] f, TcpPacket.Status expected, long failedAt) {
        assertEquals(expected, packet.wrap(Ref.store(f), 0, f.length).validate());
        assertEquals(failedAt, packet.failedAt());
        assertEquals(expected.accepted(), expected == TcpPacket.Status.ACCEPTED);
        assertFalse(expected.describe().isEmpty());
    }

    /**
     * validateStructure: the same answer and offset as validate for every rule but the two checksums, which it
     * leaves to ipv4ChecksumVerifies and tcpChecksumVerifies.
     */
    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checks")
    void structureAndChecksumsSeparately(String name, byte[] f, TcpPacket.Status expected, long failedAt) {
        TcpPacket.Status s = packet.wrap(Ref.store(f), 0, f.length).validateStructure();
        if (expected == TcpPacket.Status.IPV4_BAD_CHECKSUM) {
            assertEquals(TcpPacket.Status.ACCEPTED, s);
            assertFalse(packet.ipv4ChecksumVerifies());
            assertTrue(packet.tcpChecksumVerifies()); // the TTL is not in the TCP pseudo-header
        } else if (expected == TcpPacket.Status.TCP_BAD_CHECKSUM) {
            assertEquals(TcpPacket.Status.ACCEPTED, s);
            assertTrue(packet.ipv4ChecksumVerifies());
            assertFalse(packet.tcpChecksumVerifies());
        } else {
            assertEquals(expected, s);
            assertEquals(failedAt, packet.failedAt());
            if (s.accepted()) {
                assertTrue(packet.ipv4ChecksumVerifies());
                assertTrue(packet.tcpChecksumVerifies());
            }
        }
        // and validate still refuses both checksums afterwards on the same instance
        assertEquals(expected, packet.wrap(Ref.store(f), 0, f.length).validate());
    }

    @Test
    void theCasesAboveReachEveryCheck() {
        Set<TcpPacket.Status> reached = checks().map(a -> (TcpPacket.Status) a.get()[2])
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(TcpPacket.Status.class)));
        assertEquals(EnumSet.allOf(TcpPacket.Status.class), reached);
    }

    @Test
    void ethernetPaddingAfterTheDatagramIsIgnored() {
        byte[] f = Arrays.copyOf(Ref.hex(SYN_V4), 60); // 802.3 minimum frame without FCS
        f[58] = (byte) 0xee;
        assertEquals(TcpPacket.Status.ACCEPTED, packet.wrap(Ref.store(f), 0, f.length).validate());
        assertEquals(0, packet.tcpPayloadLength());
    }
}
