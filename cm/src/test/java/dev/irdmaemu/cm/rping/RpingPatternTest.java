package dev.irdmaemu.cm.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The ping data is byte for byte what rping's client writes (rping.c rping_test_client): checked against a plain
 * re-statement of its loop (snprintf, then the rotating characters, then the NUL), for every size from the
 * smallest to a few hundred and pings across the start character's wrap and the digit-count changes.
 */
class RpingPatternTest {

    /** rping_test_client's fill, restated with Java strings: the reference. */
    static byte[] reference(int size, int ping) {
        byte[] buf = new byte[size];
        String text = String.format("rdma-ping-%d: ", ping);
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        // snprintf(buf, size, ...): at most size - 1 characters, then a NUL; answers the full length
        int n = Math.min(t.length, size - 1);
        System.arraycopy(t, 0, buf, 0, n);
        buf[n] = 0;
        int start = 65;
        for (int p = 0; p < ping; p++) {
            start++;
            if (start > 122) {
                start = 65;
            }
        }
        int c = start;
        for (int i = t.length; i < size; i++) {
            buf[i] = (byte) c;
            c++;
            if (c > 122) {
                c = 65;
            }
        }
        buf[size - 1] = 0;
        return buf;
    }

    private static byte[] fill(int size, int ping) {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[size + 8]);
        for (int i = 0; i < size + 8; i++) {
            s.writeByte(i, (byte) 0x5a);
        }
        RpingPattern.fill(s, 4, size, ping);
        byte[] out = new byte[size];
        for (int i = 0; i < size; i++) {
            out[i] = s.readByte(4 + i);
        }
        assertEquals(0x5a, s.readByte(3), "nothing written before");
        assertEquals(0x5a, s.readByte(4 + size), "nothing written after");
        return out;
    }

    @Test
    void pingZeroOfTheDefaultSizeReadsAsRpingPrintsIt() {
        byte[] b = fill(64, 0);
        String s = new String(b, 0, 63, StandardCharsets.US_ASCII);
        assertEquals("rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr", s);
        assertEquals(0, b[63]);
    }

    @Test
    void theStartCharacterMovesUpEachPingAndWrapsAfterLowercaseZ() {
        assertEquals('A', RpingPattern.startCharacter(0));
        assertEquals('B', RpingPattern.startCharacter(1));
        assertEquals('z', RpingPattern.startCharacter(57));
        assertEquals('A', RpingPattern.startCharacter(58));
        String s = new String(fill(30, 57), 0, 29, StandardCharsets.US_ASCII);
        assertEquals("rdma-ping-57: zABCDEFGHIJKLMN", s);
    }

    @Property(tries = 400)
    void everySizeAndPingMatchesTheReference(@ForAll @IntRange(min = 1, max = 300) int size,
                                             @ForAll @IntRange(min = 0, max = 200_000) int ping) {
        byte[] want = reference(size, ping);
        org.junit.jupiter.api.Assertions.assertArrayEquals(want, fill(size, ping), "size " + size + " ping " + ping);
        BytesStore<?, ?> s = BytesStore.wrap(want);
        assertEquals(OptionalInt.empty(), RpingPattern.mismatch(s, 0, size, ping));
    }

    @Test
    void theLargestPingsAndSizesStillMatch() {
        for (int ping : new int[] {9, 10, 99, 100, 999_999, Integer.MAX_VALUE}) {
            for (int size : new int[] {RpingOptions.MIN_SIZE, 64, 4096, RpingOptions.MAX_SIZE}) {
                org.junit.jupiter.api.Assertions.assertArrayEquals(reference(size, ping), fill(size, ping),
                        size + "/" + ping);
            }
        }
    }

    @Test
    void aMismatchNamesTheFirstWrongByte() {
        byte[] d = reference(64, 3);
        BytesStore<?, ?> s = BytesStore.wrap(d);
        assertEquals(OptionalInt.empty(), RpingPattern.mismatch(s, 0, 64, 3));
        assertEquals(OptionalInt.of(10), RpingPattern.mismatch(s, 0, 64, 4), "the ping number differs");
        d[40] ^= 1;
        assertEquals(OptionalInt.of(40), RpingPattern.mismatch(s, 0, 64, 3));
        d[40] ^= 1;
        d[63] = 'x';
        assertEquals(OptionalInt.of(63), RpingPattern.mismatch(s, 0, 64, 3), "the NUL at the end");
    }
}
