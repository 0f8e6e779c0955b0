package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class Ipv4HeaderTest {
    /** 192.0.2.1 -> 198.51.100.2, TCP, DF, id 0x1c46, total length 28 (8 bytes of payload). */
    private static final String BASE = "4500001c 1c464000 40060000 c0000201 c6336402 0102030405060708";

    private final Ipv4Header ip = new Ipv4Header();

    @Test
    void classicExampleHeaderValidatesAndReadsBack() {
        // The worked example of Wikipedia's "Internet checksum" article, checksum b861, total length 0x73:
        // padded with zero payload to its total length so every rule applies.
        byte[] b = Arrays.copyOf(Ref.hex("4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7"), 0x73);
        assertEquals(Ipv4Header.Status.ACCEPTED, ip.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(4, ip.version());
        assertEquals(5, ip.ihl());
        assertEquals(0x73, ip.totalLength());
        assertEquals(0, ip.identification());
        assertTrue(ip.dontFragment());
        assertFalse(ip.moreFragments());
        assertEquals(0x40, ip.ttl());
        assertEquals(17, ip.protocol());
        assertEquals(0xb861, ip.headerChecksum());
        assertEquals(0xc0a80001, ip.source());
        assertEquals(0xc0a800c7, ip.destination());
        assertEquals(20, ip.payloadOffset());
        assertEquals(0x73 - 20, ip.payloadLength());
    }

    @Test
    void tosSplitsIntoDscpAndEcn() {
        byte[] b = base(h -> h[1] = (byte) 0xb9); // DSCP 46 (EF), ECN 1 (ECT(1))
        ip.wrap(Ref.store(b), 0, b.length);
        assertEquals(Ipv4Header.Status.ACCEPTED, ip.validate());
        assertEquals(0xb9, ip.tos());
        assertEquals(46, ip.dscp());
        assertEquals(1, ip.ecn());
    }

    @Test
    void optionsAreSkippedByIhl() {
        // IHL 6: 4 option bytes (NOP NOP NOP EOL), never interpreted; payload starts at 24.
        byte[] b = Ref.hex("46000020 1c464000 40060000 c0000201 c6336402 01010100 0102030405060708");
        Ref.fixIpv4Checksum(b, 0);
        assertEquals(Ipv4Header.Status.ACCEPTED, ip.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(24, ip.payloadOffset());
        assertEquals(8, ip.payloadLength());
    }

    @Test
    void builderWritesAHeaderTheReferenceChecksumAgreesWith() {
        byte[] out = new byte[20];
        assertEquals(20, Ipv4Header.write(Ref.store(out), 0, 0, 28, 0x1c46, true, 64, 6,
                IpAddress.ipv4(192, 0, 2, 1), IpAddress.ipv4(198, 51, 100, 2)));
        byte[] expected = Ref.hex(BASE.substring(0, BASE.lastIndexOf(' ')));
        Ref.fixIpv4Checksum(expected, 0);
        assertEquals(Ref.toHex(expected, 0, 20), Ref.toHex(out, 0, 20));
        assertThrows(IllegalArgumentException.class,
                () -> Ipv4Header.write(Ref.store(out), 0, 0, 19, 0, true, 64, 6, 0, 0));
        assertThrows(IllegalArgumentException.class,
                () -> Ipv4Header.write(Ref.store(out), 1, 0, 20, 0, true, 64, 6, 0, 0));
    }

    private static byte[] base(Consumer<byte[]> change) {
        byte[] b = Ref.hex(BASE);
        change.accept(b);
        Ref.fixIpv4Checksum(b, 0);
        return b;
    }

    static Stream<Arguments> checks() {
        byte[] badSum = base(h -> { });
        badSum[5] ^= 0x01; // identification changed after the checksum was computed
        return Stream.of(
                Arguments.of("valid", base(h -> { }), Ipv4Header.Status.ACCEPTED, -1L),
                Arguments.of("19 bytes", Arrays.copyOf(Ref.hex(BASE), 19), Ipv4Header.Status.TRUNCATED, 0L),
                Arguments.of("version 6", base(h -> h[0] = 0x65), Ipv4Header.Status.BAD_VERSION, 0L),
                Arguments.of("IHL 4", base(h -> h[0] = 0x44), Ipv4Header.Status.IHL_TOO_SMALL, 0L),
                Arguments.of("IHL 0", base(h -> h[0] = 0x40), Ipv4Header.Status.IHL_TOO_SMALL, 0L),
                Arguments.of("IHL 15 in 28 bytes", ihl15(), Ipv4Header.Status.IHL_BEYOND_BUFFER, 0L),
                Arguments.of("total length 19", base(h -> Ref.put16(h, 2, 19)),
                        Ipv4Header.Status.TOTAL_LENGTH_BELOW_HEADER, 2L),
                Arguments.of("total length 29 in 28 bytes", base(h -> Ref.put16(h, 2, 29)),
                        Ipv4Header.Status.TOTAL_LENGTH_BEYOND_BUFFER, 2L),
                Arguments.of("checksum off by one bit", badSum, Ipv4Header.Status.BAD_CHECKSUM, 10L),
                Arguments.of("MF set", base(h -> Ref.put16(h, 6, 0x2000)), Ipv4Header.Status.FRAGMENT, 6L),
                Arguments.of("fragment offset 1", base(h -> Ref.put16(h, 6, 0x4001)), Ipv4Header.Status.FRAGMENT, 6L),
                Arguments.of("total length 20, Ethernet padding after", base(h -> Ref.put16(h, 2, 20)),
                        Ipv4Header.Status.ACCEPTED, -1L));
    }

    private static byte[] ihl15() {
        byte[] b = Ref.hex(BASE);
        b[0] = 0x4f;
        // the checksum cannot cover 60 bytes that are not there; the length rule fires first
        return b;
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checks")
    void eachCheck(String name, byte[] b, Ipv4Header.Status expected, long failedAt) {
        assertEquals(expected, ip.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(failedAt, ip.failedAt());
    }

    /** validateStructure answers every rule but the checksum, which checksumVerifies answers alone. */
    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checks")
    void structureAndChecksumSeparately(String name, byte[] b, Ipv4Header.Status expected, long failedAt) {
        Ipv4Header.Status s = ip.wrap(Ref.store(b), 0, b.length).validateStructure();
        if (expected == Ipv4Header.Status.BAD_CHECKSUM) {
            assertEquals(Ipv4Header.Status.ACCEPTED, s);
            assertFalse(ip.checksumVerifies());
        } else {
            assertEquals(expected, s);
            assertEquals(failedAt, ip.failedAt());
            if (s.accepted()) {
                assertTrue(ip.checksumVerifies());
            }
        }
    }
}
