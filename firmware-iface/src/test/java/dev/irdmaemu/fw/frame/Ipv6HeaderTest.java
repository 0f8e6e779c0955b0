package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class Ipv6HeaderTest {
    /** Traffic class 0x12, flow label 0x34567, 8 bytes of TCP payload, hop limit 64, 2001:db8::1 -> ::2. */
    private static final String BASE = "61234567 0008 06 40"
            + "20010db8000000000000000000000001" + "20010db8000000000000000000000002" + "0102030405060708";

    private final Ipv6Header ip = new Ipv6Header();

    @Test
    void fixedHeaderFields() {
        byte[] b = Ref.hex(BASE);
        assertEquals(Ipv6Header.Status.ACCEPTED, ip.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(6, ip.version());
        assertEquals(0x12, ip.trafficClass());
        assertEquals(0x34567, ip.flowLabel());
        assertEquals(8, ip.payloadLength());
        assertEquals(6, ip.nextHeader());
        assertEquals(64, ip.hopLimit());
        assertEquals(0x20010db800000000L, ip.sourceHi());
        assertEquals(1L, ip.sourceLo());
        assertEquals(0x20010db800000000L, ip.destinationHi());
        assertEquals(2L, ip.destinationLo());
        assertEquals(40, ip.payloadOffset());
    }

    @Test
    void builderWritesTheExactBytes() {
        byte[] out = new byte[40];
        assertEquals(40, Ipv6Header.write(Ref.store(out), 0, 0x12, 0x34567, 8, 6, 64,
                0x20010db800000000L, 1L, 0x20010db800000000L, 2L));
        assertEquals(BASE.replace(" ", "").substring(0, 80), Ref.toHex(out, 0, 40));
        assertThrows(IllegalArgumentException.class, () -> Ipv6Header.write(Ref.store(out), 0, 0, 0, 0x10000, 6, 64,
                0, 0, 0, 0));
    }

    private static byte[] base(Consumer<byte[]> change) {
        byte[] b = Ref.hex(BASE);
        change.accept(b);
        return b;
    }

    static Stream<Arguments> checks() {
        return Stream.of(
                Arguments.of("valid", base(h -> { }), Ipv6Header.Status.ACCEPTED, -1L),
                Arguments.of("39 bytes", Arrays.copyOf(Ref.hex(BASE), 39), Ipv6Header.Status.TRUNCATED, 0L),
                Arguments.of("version 4", base(h -> h[0] = 0x41), Ipv6Header.Status.BAD_VERSION, 0L),
                Arguments.of("payload length 9 with 8 there", base(h -> Ref.put16(h, 4, 9)),
                        Ipv6Header.Status.PAYLOAD_LENGTH_BEYOND_BUFFER, 4L),
                Arguments.of("payload length 65535", base(h -> Ref.put16(h, 4, 0xffff)),
                        Ipv6Header.Status.PAYLOAD_LENGTH_BEYOND_BUFFER, 4L),
                Arguments.of("payload length 0", base(h -> Ref.put16(h, 4, 0)), Ipv6Header.Status.ACCEPTED, -1L),
                Arguments.of("fragment header", base(h -> h[6] = 44), Ipv6Header.Status.EXTENSION_HEADER, 6L));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checks")
    void eachCheck(String name, byte[] b, Ipv6Header.Status expected, long failedAt) {
        assertEquals(expected, ip.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(failedAt, ip.failedAt());
    }

    @ParameterizedTest(name = "next header {0} is an extension header")
    @ValueSource(ints = {0, 43, 44, 50, 51, 60, 135, 139, 140, 253, 254})
    void everyExtensionHeaderIsRejected(int nextHeader) {
        byte[] b = base(h -> h[6] = (byte) nextHeader);
        assertEquals(Ipv6Header.Status.EXTENSION_HEADER, ip.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(6, ip.failedAt());
    }

    @Test
    void noOtherNextHeaderValueIsAnExtensionHeader() {
        int[] ext = {0, 43, 44, 50, 51, 60, 135, 139, 140, 253, 254};
        IntStream.range(0, 256).filter(v -> Arrays.stream(ext).noneMatch(e -> e == v)).forEach(v -> {
            byte[] b = base(h -> h[6] = (byte) v);
            assertEquals(Ipv6Header.Status.ACCEPTED, ip.wrap(Ref.store(b), 0, b.length).validate(), "next header " + v);
        });
    }
}
