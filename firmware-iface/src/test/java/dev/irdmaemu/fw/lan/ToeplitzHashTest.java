package dev.irdmaemu.fw.lan;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Named.named;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Toeplitz hash against Microsoft's RSS verification suite ("Verifying the RSS Hash Calculation",
 * learn.microsoft.com windows-hardware/drivers/network): its 40-byte key and, for each source/destination pair, the
 * expected hash over the addresses alone and over addresses and TCP ports (input: source address, destination
 * address, source port, destination port, each in network order).
 */
class ToeplitzHashTest {
    /** The verification suite's key. */
    static final byte[] MS_KEY = bytes(
            0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
            0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
            0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa);

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    static int v4(int a, int b, int c, int d) {
        return a << 24 | b << 16 | c << 8 | d;
    }

    /** destination address:port, source address:port, hash of the IPv4 addresses, hash with the TCP ports. */
    static Stream<Arguments> ipv4() {
        return Stream.of(
                Arguments.of(named("161.142.100.80:1766 <- 66.9.149.187:2794", new int[] {
                        v4(161, 142, 100, 80), 1766, v4(66, 9, 149, 187), 2794}), 0x323e8fc2, 0x51ccc178),
                Arguments.of(named("65.69.140.83:4739 <- 199.92.111.2:14230", new int[] {
                        v4(65, 69, 140, 83), 4739, v4(199, 92, 111, 2), 14230}), 0xd718262a, 0xc626b0ea),
                Arguments.of(named("12.22.207.184:38024 <- 24.19.198.95:12898", new int[] {
                        v4(12, 22, 207, 184), 38024, v4(24, 19, 198, 95), 12898}), 0xd2d0a5de, 0x5c2b394a),
                Arguments.of(named("209.142.163.6:2217 <- 38.27.205.30:48228", new int[] {
                        v4(209, 142, 163, 6), 2217, v4(38, 27, 205, 30), 48228}), 0x82989176, 0xafc7327f),
                Arguments.of(named("202.188.127.2:1303 <- 153.39.163.191:44251", new int[] {
                        v4(202, 188, 127, 2), 1303, v4(153, 39, 163, 191), 44251}), 0x5d1809c5, 0x10e828a2));
    }

    @ParameterizedTest
    @MethodSource("ipv4")
    void ipv4MatchesTheVerificationSuite(int[] flow, int addressesOnly, int withPorts) {
        ToeplitzHash h = new ToeplitzHash().key(MS_KEY, MS_KEY.length);
        assertEquals(addressesOnly, h.start().addInt(flow[2]).addInt(flow[0]).value());
        assertEquals(withPorts, h.start().addInt(flow[2]).addInt(flow[0]).addShort(flow[3]).addShort(flow[1]).value());
        assertEquals(12, h.inputBytes());
    }

    /** destination, its port, source, its port (each address as two big-endian halves), the two hashes. */
    static Stream<Arguments> ipv6() {
        return Stream.of(
                Arguments.of(named("[3ffe:2501:200:3::1]:1766 <- [3ffe:2501:200:1fff::7]:2794", new long[] {
                        0x3ffe_2501_0200_0003L, 0x0000_0000_0000_0001L, 1766,
                        0x3ffe_2501_0200_1fffL, 0x0000_0000_0000_0007L, 2794}), 0x2cc18cd5, 0x40207d3d),
                Arguments.of(named("[ff02::1]:4739 <- [3ffe:501:8::260:97ff:fe40:efab]:14230", new long[] {
                        0xff02_0000_0000_0000L, 0x0000_0000_0000_0001L, 4739,
                        0x3ffe_0501_0008_0000L, 0x0260_97ff_fe40_efabL, 14230}), 0x0f0c461c, 0xdde51bbf),
                Arguments.of(named("[fe80::200:f8ff:fe21:67cf]:38024 <- [3ffe:1900:4545:3:200:f8ff:fe21:67cf]:44251",
                        new long[] {0xfe80_0000_0000_0000L, 0x0200_f8ff_fe21_67cfL, 38024,
                                0x3ffe_1900_4545_0003L, 0x0200_f8ff_fe21_67cfL, 44251}), 0x4b61e985, 0x02d1feef));
    }

    @ParameterizedTest
    @MethodSource("ipv6")
    void ipv6MatchesTheVerificationSuite(long[] flow, int addressesOnly, int withPorts) {
        ToeplitzHash h = new ToeplitzHash().key(MS_KEY, MS_KEY.length);
        assertEquals(addressesOnly, h.start().addLong(flow[3]).addLong(flow[4]).addLong(flow[0]).addLong(flow[1])
                .value());
        assertEquals(withPorts, h.start().addLong(flow[3]).addLong(flow[4]).addLong(flow[0]).addLong(flow[1])
                .addShort((int) flow[5]).addShort((int) flow[2]).value());
        assertEquals(36, h.inputBytes());
    }

    @Test
    void theExtendedKeyContinuesTheStandardOneAndAZeroKeyHashesToZero() {
        byte[] extended = new byte[ToeplitzHash.MAX_KEY_BYTES];
        System.arraycopy(MS_KEY, 0, extended, 0, MS_KEY.length);
        ToeplitzHash h = new ToeplitzHash().key(extended, extended.length);
        // an input of up to 36 bytes never reaches the 12 extended bytes: same hash as the 40-byte key
        assertEquals(0x51ccc178, h.start().addInt(v4(66, 9, 149, 187)).addInt(v4(161, 142, 100, 80)).addShort(2794)
                .addShort(1766).value());
        // the last bit of a 48-byte input XORs in key bits 383..414, all in the extended part
        h.start();
        for (int i = 0; i < 47; i++) {
            h.addByte(0);
        }
        assertEquals(0, h.addByte(1).value(), "the extended key is zero there");
        extended[48] = (byte) 0xFF;
        h.key(extended, extended.length).start();
        for (int i = 0; i < 47; i++) {
            h.addByte(0);
        }
        assertEquals(0x7F80_0000, h.addByte(1).value(), "key bits 384..391 land in result bits 30..23");
        assertEquals(0, new ToeplitzHash().key(new byte[52], 52).start().addInt(-1).addLong(-1L).value());
        assertThrows(IllegalArgumentException.class, () -> new ToeplitzHash().key(new byte[60], 53));
    }
}
