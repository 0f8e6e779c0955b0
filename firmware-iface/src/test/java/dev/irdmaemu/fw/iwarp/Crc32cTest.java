package dev.irdmaemu.fw.iwarp;

import static dev.irdmaemu.fw.iwarp.Stores.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** CRC32c known answers: RFC 3720 appendix B.4, bytes as the RFC lists them on the wire. */
class Crc32cTest {
    static Stream<Arguments> rfc3720B4() {
        byte[] zeros = new byte[32];
        byte[] ones = new byte[32];
        byte[] inc = new byte[32];
        byte[] dec = new byte[32];
        for (int i = 0; i < 32; i++) {
            ones[i] = (byte) 0xff;
            inc[i] = (byte) i;
            dec[i] = (byte) (31 - i);
        }
        byte[] iscsiRead = hex("01 c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
                + "14 00 00 00 00 00 04 00 00 00 00 14 00 00 00 18"
                + "28 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00");
        return Stream.of(
                Arguments.of("32 bytes of zeroes", zeros, hex("aa 36 91 8a")),
                Arguments.of("32 bytes of ones", ones, hex("43 ab a8 62")),
                Arguments.of("32 bytes incrementing 00..1f", inc, hex("4e 79 dd 46")),
                Arguments.of("32 bytes decrementing 1f..00", dec, hex("5c db 3f 11")),
                Arguments.of("iSCSI read (10) command PDU", iscsiRead, hex("56 3a 96 d9")));
    }

    private static byte[] wire(int crc) {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[4]);
        Crc32c.writeWire(s, 0, crc);
        return Stores.read(s, 0, 4);
    }

    @ParameterizedTest(name = "{0}, off-heap")
    @MethodSource("rfc3720B4")
    void nativeStore(String name, byte[] data, byte[] expectedWire) {
        BytesStore<?, ?> s = Stores.nativeAt(data, 7);
        try {
            assertArrayEquals(expectedWire, wire(new Crc32c().compute(s, 7, data.length)));
        } finally {
            s.releaseLast();
        }
    }

    @ParameterizedTest(name = "{0}, heap")
    @MethodSource("rfc3720B4")
    void heapStore(String name, byte[] data, byte[] expectedWire) {
        byte[] padded = new byte[data.length + 10];
        System.arraycopy(data, 0, padded, 5, data.length);
        assertArrayEquals(expectedWire, wire(new Crc32c().compute(Stores.heap(padded), 5, data.length)));
    }

    @ParameterizedTest(name = "{0}, direct ByteBuffer store")
    @MethodSource("rfc3720B4")
    void directByteBufferStore(String name, byte[] data, byte[] expectedWire) {
        BytesStore<?, ?> s = Stores.directBufferAt(data, 3);
        assertArrayEquals(expectedWire, wire(new Crc32c().compute(s, 3, data.length)));
    }

    @ParameterizedTest(name = "{0}, elastic Bytes")
    @MethodSource("rfc3720B4")
    void elasticBytes(String name, byte[] data, byte[] expectedWire) {
        Bytes<Void> b = Bytes.allocateElasticDirect(16);
        try {
            b.write(new byte[9]);
            b.write(data);
            assertArrayEquals(expectedWire, wire(new Crc32c().compute(b, 9, data.length)));
        } finally {
            b.releaseLast();
        }
    }

    @Test
    void wireOrderIsLeastSignificantByteFirst() {
        // RFC 3720 B.4: 32 zero bytes give CRC register value 0x8A9136AA, listed on the wire as aa 36 91 8a.
        assertEquals(0x8A9136AA, new Crc32c().compute(Stores.heap(new byte[32]), 0, 32));
        assertArrayEquals(hex("aa 36 91 8a"), wire(0x8A9136AA));
        assertEquals(0x8A9136AA, Crc32c.readWire(Stores.heap(hex("aa 36 91 8a")), 0));
    }

    @Test
    void nativeStoresUseTheZeroCopyDirectView() {
        // The re-pointed direct ByteBuffer passed its self-test in this JVM (the fast, allocation-free path).
        org.junit.jupiter.api.Assertions.assertTrue(Crc32c.zeroCopyNative());
    }

    @Test
    void zeroLengthIsTheEmptyCrc() {
        assertEquals(0, new Crc32c().compute(Stores.heap(new byte[1]), 0, 0));
    }

    @Property(tries = 200)
    void incrementalEqualsOneShot(@ForAll @Size(max = 9000) byte[] data, @ForAll @IntRange(max = 9000) int cut1,
                                  @ForAll @IntRange(max = 9000) int cut2, @ForAll boolean offHeap) {
        int a = Math.min(cut1, data.length);
        int b = Math.max(a, Math.min(cut2, data.length));
        BytesStore<?, ?> s = offHeap ? Stores.nativeAt(data, 1) : Stores.heap(concat(new byte[1], data));
        try {
            Crc32c c = new Crc32c();
            int one = c.compute(s, 1, data.length);
            int inc = c.start().update(s, 1, a).update(s, 1 + a, b - a).update(s, 1 + b, data.length - b).finish();
            java.util.zip.CRC32C ref = new java.util.zip.CRC32C();
            ref.update(data);
            assertEquals((int) ref.getValue(), one);
            assertEquals(one, inc);
        } finally {
            if (offHeap) {
                s.releaseLast();
            }
        }
    }

    private static byte[] concat(byte[] x, byte[] y) {
        byte[] r = new byte[x.length + y.length];
        System.arraycopy(x, 0, r, 0, x.length);
        System.arraycopy(y, 0, r, x.length, y.length);
        return r;
    }
}
