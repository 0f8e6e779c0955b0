package dev.irdmaemu.fw.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.zip.CRC32C;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** MPA FPDU framing, RFC 5044 §4.1: ULPDU_Length, ULPDU, pad to 4, CRC32c trailer. */
class FpduTest {
    private final Fpdu fpdu = new Fpdu();

    private byte[] build(byte[] ulpdu, boolean crc) {
        byte[] out = new byte[Fpdu.totalLengthFor(ulpdu.length)];
        BytesStore<?, ?> s = Stores.heap(out);
        long at = fpdu.beginBuild(s, 0, out.length, ulpdu.length);
        assertEquals(2, at);
        s.write(at, ulpdu, 0, ulpdu.length);
        assertEquals(out.length, fpdu.finishBuild(crc));
        return out;
    }

    @ParameterizedTest(name = "ULPDU length {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 14, 15, 16, 17, 18, 19, 20, 21})
    void padsToAFourByteBoundary(int ulp) {
        // RFC 5044 §4.1: pad makes 2 + ULPDU_Length + PAD a multiple of 4
        int expectedPad = new int[] {2, 1, 0, 3}[ulp % 4];
        assertEquals(expectedPad, Fpdu.padFor(ulp));
        byte[] ulpdu = new byte[ulp];
        java.util.Arrays.fill(ulpdu, (byte) 0x5a);
        byte[] out = build(ulpdu, true);
        assertEquals(2 + ulp + expectedPad + 4, out.length);
        assertEquals(0, (out.length - 4) % 4);
        assertEquals(ulp >> 8, out[0] & 0xff);
        assertEquals(ulp & 0xff, out[1] & 0xff);
        for (int i = 0; i < expectedPad; i++) {
            assertEquals(0, out[2 + ulp + i]);
        }
        // RFC 5044 §4.1: the CRC field is in every FPDU, so CRC off does not shorten it
        assertEquals(2 + ulp + expectedPad + 4, Fpdu.totalLengthFor(ulp));
        assertEquals(out.length, build(ulpdu, false).length);
    }

    @Test
    void crcMatchesAnIndependentComputationInWireOrder() {
        byte[] ulpdu = new byte[21];
        for (int i = 0; i < ulpdu.length; i++) {
            ulpdu[i] = (byte) (i * 7 + 3);
        }
        byte[] out = build(ulpdu, true);
        CRC32C ref = new CRC32C();
        ref.update(out, 0, out.length - 4); // length + ULPDU + pad
        long v = ref.getValue();
        // least significant byte first (RFC 3720 B.4 / siw_crc_final)
        assertArrayEquals(new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)},
                java.util.Arrays.copyOfRange(out, out.length - 4, out.length));
        Fpdu f = fpdu.wrap(Stores.heap(out), 0, out.length, true);
        assertEquals(FpduCheck.ACCEPTED, f.validate());
        assertEquals((int) v, f.receivedCrc());
        assertEquals((int) v, f.computedCrc());
        assertEquals(21, f.ulpduLength());
        assertEquals(1, f.padLength()); // 2 + 21 = 23 -> 1 pad byte
        assertEquals(2, f.ulpduOffset());
        assertEquals(24, f.crcOffset());
    }

    @Property(tries = 200)
    void aFlippedBitAnywhereIsDetected(@ForAll @Size(min = 14, max = 300) byte[] ulpdu,
                                       @ForAll @IntRange(max = 100_000) int where, @ForAll @IntRange(max = 7) int bit) {
        byte[] out = build(ulpdu, true);
        int at = where % out.length;
        out[at] ^= (byte) (1 << bit);
        Fpdu f = fpdu.wrap(Stores.heap(out), 0, out.length, true);
        FpduCheck c = f.validate();
        assertNotEquals(FpduCheck.ACCEPTED, c);
        if (at >= 2) { // a flip in the length field changes the framing instead (too short / incomplete / CRC)
            assertEquals(FpduCheck.CRC_MISMATCH, c);
            assertEquals(out.length - 4, f.failedAt());
        }
    }

    @Property(tries = 200)
    void incompleteBuffersReportTheLengthNeeded(@ForAll @Size(min = 14, max = 300) byte[] ulpdu,
                                                @ForAll @IntRange(max = 1000) int cut, @ForAll boolean crc) {
        byte[] out = build(ulpdu, crc);
        int have = 2 + cut % (out.length - 2); // at least the length field, never all of it
        Fpdu f = fpdu.wrap(Stores.heap(out), 0, have, crc);
        assertEquals(FpduCheck.INCOMPLETE, f.validate());
        assertEquals(out.length, f.totalLength());
        assertEquals(have, f.failedAt());
        assertEquals(FpduCheck.ACCEPTED, fpdu.wrap(Stores.heap(out), 0, out.length, crc).validate());
    }

    @Test
    void oneByteIsTooShort() {
        Fpdu f = fpdu.wrap(Stores.heap(new byte[] {0}), 0, 1, true);
        assertEquals(FpduCheck.TOO_SHORT, f.validate());
        assertEquals(2, f.totalLength());
    }

    @ParameterizedTest(name = "ULPDU length {0}")
    @ValueSource(ints = {0, 1, 13})
    void ulpduShorterThanADdpHeaderIsRefused(int ulp) {
        byte[] out = build(new byte[ulp], true);
        Fpdu f = fpdu.wrap(Stores.heap(out), 0, out.length, true);
        assertEquals(FpduCheck.ULPDU_TOO_SHORT, f.validate());
        assertEquals(0, f.failedAt());
    }

    @ParameterizedTest(name = "ULPDU length {0}")
    @ValueSource(ints = {14, 15, 16, 17, 18, 21})
    void withoutCrcTheFieldIsStillThereAsZeros(int ulp) {
        // RFC 5044 §4.1: every FPDU carries the 4-byte CRC field; without CRC in use the sender need not fill it
        // (siw and this codec send zeros). Layout: length, ULPDU, zero pad, then 4 zero bytes.
        byte[] ulpdu = new byte[ulp];
        java.util.Arrays.fill(ulpdu, (byte) 0xa5);
        byte[] out = build(ulpdu, false);
        int pad = Fpdu.padFor(ulp);
        assertEquals(2 + ulp + pad + 4, out.length);
        assertEquals(0, out.length % 4);
        assertEquals(ulp, (out[0] & 0xff) << 8 | out[1] & 0xff);
        assertArrayEquals(ulpdu, java.util.Arrays.copyOfRange(out, 2, 2 + ulp));
        assertArrayEquals(new byte[pad + 4], java.util.Arrays.copyOfRange(out, 2 + ulp, out.length));
        Fpdu f = fpdu.wrap(Stores.heap(out), 0, out.length, false);
        assertEquals(FpduCheck.ACCEPTED, f.validate());
        assertEquals(out.length, f.totalLength());
        assertEquals(2 + ulp + pad, f.crcOffset());
        assertEquals(0, f.receivedCrc());
        // the same bytes with CRC on fail the check: zeros are not the CRC
        assertEquals(FpduCheck.CRC_MISMATCH, fpdu.wrap(Stores.heap(out), 0, out.length, true).validate());
    }

    @Test
    void withoutCrcAnyValueInTheFieldIsAccepted() {
        // RFC 5044 §4.1: with CRC not in use the receiver does not check the field, whatever it holds
        byte[] out = build(new byte[16], false);
        assertEquals(24, out.length);
        out[20] = (byte) 0xde;
        out[21] = (byte) 0xad;
        out[22] = (byte) 0xbe;
        out[23] = (byte) 0xef;
        Fpdu f = fpdu.wrap(Stores.heap(out), 0, out.length, false);
        assertEquals(FpduCheck.ACCEPTED, f.validate());
        assertEquals(0xefbeadde, f.receivedCrc()); // read in the CRC's wire order, least significant byte first
        assertEquals(0, f.computedCrc());
    }

    @Test
    void withoutCrcTheNextFpduStartsAfterTheField() {
        // two CRC-off FPDUs back to back: the second starts 4 bytes after the first's pad, not at the field
        byte[] one = build(new byte[14], false);
        byte[] two = build(new byte[17], false);
        byte[] stream = new byte[one.length + two.length];
        System.arraycopy(one, 0, stream, 0, one.length);
        System.arraycopy(two, 0, stream, one.length, two.length);
        Fpdu f = fpdu.wrap(Stores.heap(stream), 0, stream.length, false);
        assertEquals(FpduCheck.ACCEPTED, f.validate());
        assertEquals(20, f.totalLength());
        f = fpdu.wrap(Stores.heap(stream), 20, stream.length - 20, false);
        assertEquals(FpduCheck.ACCEPTED, f.validate());
        assertEquals(17, f.ulpduLength());
        assertEquals(24, f.totalLength());
    }

    @Test
    void bytesOfTheNextFpduAreIgnored() {
        byte[] one = build(new byte[14], true);
        byte[] two = new byte[one.length + 5];
        System.arraycopy(one, 0, two, 0, one.length);
        assertEquals(FpduCheck.ACCEPTED, fpdu.wrap(Stores.heap(two), 0, two.length, true).validate());
        assertEquals(one.length, fpdu.totalLength());
    }

    @Test
    void markersAreRefusedByTheFramingCheck() {
        assertTrue(!Fpdu.MARKERS_SUPPORTED);
        assertEquals(FpduCheck.MARKERS_NOT_SUPPORTED, Fpdu.checkFraming(true));
        assertEquals(FpduCheck.ACCEPTED, Fpdu.checkFraming(false));
    }

    @Property(tries = 100)
    void offHeapAndHeapAgree(@ForAll @Size(min = 14, max = 2000) byte[] ulpdu) {
        byte[] heap = build(ulpdu, true);
        BytesStore<?, ?> n = Stores.nativeAt(new byte[0], 3 + heap.length);
        try {
            long at = fpdu.beginBuild(n, 3, heap.length, ulpdu.length);
            n.write(at, ulpdu, 0, ulpdu.length);
            fpdu.finishBuild(true);
            assertArrayEquals(heap, Stores.read(n, 3, heap.length));
            assertEquals(FpduCheck.ACCEPTED, fpdu.wrap(n, 3, heap.length, true).validate());
        } finally {
            n.releaseLast();
        }
    }
}
