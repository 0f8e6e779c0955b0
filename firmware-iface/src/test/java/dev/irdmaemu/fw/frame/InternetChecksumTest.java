package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class InternetChecksumTest {

    @Test
    void rfc1071Section3NumericalExample() {
        // RFC 1071 §3 "Numerical Examples": bytes 00 01 f2 03 f4 f5 f6 f7 have the one's complement sum ddf2.
        BytesStore<?, byte[]> s = Ref.store(Ref.hex("0001f203f4f5f6f7"));
        assertEquals(0xddf2, InternetChecksum.sum(s, 0, 8));
        assertEquals(0x220d, InternetChecksum.checksum(s, 0, 8));
    }

    @Test
    void classicIpv4HeaderExampleHasChecksumB861() {
        // Worked example of Wikipedia's "Internet checksum" article (section "Calculating the IPv4 header
        // checksum"): header 4500 0073 0000 4000 4011 [b861] c0a8 0001 c0a8 00c7, sum 2479c -> 479e -> b861.
        byte[] header = Ref.hex("4500 0073 0000 4000 4011 0000 c0a8 0001 c0a8 00c7");
        BytesStore<?, byte[]> s = Ref.store(header);
        assertEquals(0xb861, InternetChecksum.checksum(s, 0, 20));
        Ref.put16(header, 10, 0xb861);
        assertTrue(InternetChecksum.verify(s, 0, 20, 0));
        Ref.put16(header, 10, 0xb862);
        assertFalse(InternetChecksum.verify(s, 0, 20, 0));
    }

    @Test
    void wideSumAgreesWithByteByByteReferenceForEveryAlignmentAndLength() {
        // Covers the 8/4/2/1-byte tails and the odd last byte at every start alignment.
        byte[] data = new byte[300];
        new SplittableRandom(1071).nextBytes(data);
        BytesStore<?, byte[]> s = Ref.store(data);
        for (int off = 0; off < 9; off++) {
            for (int len = 0; len <= 280; len++) {
                assertEquals(Ref.sum(data, off, len), InternetChecksum.sum(s, off, len), "off " + off + " len " + len);
            }
        }
    }

    @Test
    void allOnesDataFoldsToFfff() {
        byte[] data = new byte[1024];
        java.util.Arrays.fill(data, (byte) 0xff);
        assertEquals(0xffff, InternetChecksum.sum(Ref.store(data), 0, data.length));
        assertEquals(0, InternetChecksum.sum(Ref.store(new byte[64]), 0, 64));
    }

    @Test
    void ipv4PseudoHeaderSumEqualsSumOfItsTwelveBytes() {
        // RFC 9293 §3.1: source(4) destination(4) zero(1) PTCL(1) TCP length(2).
        byte[] p = Ref.hex("c6336402 c0000201 00 06 05dc");
        int src = IpAddress.ipv4(198, 51, 100, 2);
        int dst = IpAddress.ipv4(192, 0, 2, 1);
        assertEquals(Ref.sum(p, 0, 12), InternetChecksum.fold(InternetChecksum.ipv4PseudoHeaderSum(src, dst, 6, 1500)));
    }

    @Test
    void ipv6PseudoHeaderSumEqualsSumOfItsFortyBytes() {
        // RFC 8200 §8.1: source(16) destination(16) upper-layer length(4) zero(3) next header(1).
        byte[] p = Ref.hex("20010db8ffff0000000000000000fffe 20010db8000000001234567890abcdef 0001f000 00000006");
        long upper = 0x1f000L;
        assertEquals(Ref.sum(p, 0, 40), InternetChecksum.fold(InternetChecksum.ipv6PseudoHeaderSum(
                0x20010db8ffff0000L, 0x000000000000fffeL, 0x20010db800000000L, 0x1234567890abcdefL, upper, 6)));
    }

    @Test
    void rangeOutsideTheStoreIsACallerErrorNotAStrayRead() {
        BytesStore<?, byte[]> s = Ref.store(new byte[16]);
        assertThrows(IllegalArgumentException.class, () -> InternetChecksum.sum(s, 10, 7));
        assertThrows(IllegalArgumentException.class, () -> InternetChecksum.sum(s, -1, 2));
        assertThrows(IllegalArgumentException.class, () -> InternetChecksum.sum(s, 0, -1));
        assertEquals(0, InternetChecksum.sum(s, 16, 0));
    }
}
