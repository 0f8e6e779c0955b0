package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class ChecksumProperties {

    @Property(tries = 500)
    void sumOfAnyRangeEqualsTheReference(@ForAll @Size(max = 600) byte[] data,
                                         @ForAll @IntRange(max = 600) int a, @ForAll @IntRange(max = 600) int b) {
        int off = Math.min(a, data.length);
        int len = Math.min(b, data.length - off);
        assertEquals(Ref.sum(data, off, len), InternetChecksum.sum(Ref.store(data), off, len));
    }

    @Property(tries = 300)
    void dataWithItsChecksumVerifies(@ForAll @Size(min = 2, max = 400) byte[] data, @ForAll long pseudo) {
        // Treat bytes 0..1 as the checksum field: fill it, then the whole range must verify (RFC 1071 §1 (3)).
        long initial = pseudo & 0xffff_ffffL;
        Ref.put16(data, 0, 0);
        int c = InternetChecksum.checksum(Ref.store(data), 0, data.length, initial);
        Ref.put16(data, 0, c);
        assertEquals(true, InternetChecksum.verify(Ref.store(data), 0, data.length, initial));
    }
    @Property(tries = 2000)
    void foldIsRepeatedEndAroundCarry(@ForAll long partialSum, @ForAll @IntRange(max = 3) int scale) {
        // small, 32-bit and full-width sums alike; the value is taken as unsigned, as the codecs' sums are
        long s = scale == 0 ? partialSum & 0x3_ffff : scale == 1 ? partialSum & 0xffff_ffffL : partialSum;
        long r = s;
        while ((r >>> 16) != 0) {
            r = (r & 0xffff) + (r >>> 16);
        }
        assertEquals((int) r, InternetChecksum.fold(s));
    }
}
