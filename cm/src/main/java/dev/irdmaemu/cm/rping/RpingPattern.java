package dev.irdmaemu.cm.rping;

import java.util.OptionalInt;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The ping data rping's client puts in its start buffer before each ping (rping.c rping_test_client): the text
 * {@code "rdma-ping-<ping>: "} as snprintf writes it into the buffer, then printable characters from a start
 * character upwards, 'A' (65) to 'z' (122) and round again, the start character moving up by one each ping (from
 * 'A' at ping 0), and a NUL in the last byte. Written and checked digit by digit: nothing allocated.
 */
public final class RpingPattern {
    /** The pattern's first and last character (rping.c: c = start = 65; c > 122 wraps to 65). */
    public static final int FIRST = 65;
    public static final int LAST = 122;
    private static final byte[] PREFIX = {'r', 'd', 'm', 'a', '-', 'p', 'i', 'n', 'g', '-'};
    private static final int SPAN = LAST - FIRST + 1;

    private RpingPattern() {
    }

    /** The start character of ping {@code ping}: 'A' for ping 0, one more for each ping, wrapping after 'z'. */
    public static int startCharacter(int ping) {
        return FIRST + Integer.remainderUnsigned(ping, SPAN);
    }

    /** Length of {@code "rdma-ping-<ping>: "} (what snprintf answers, whether or not it fit). */
    public static int prefixLength(int ping) {
        return PREFIX.length + digits(ping) + 2;
    }

    /** Ping {@code ping}'s data into {@code size} bytes at {@code offset}. */
    public static void fill(BytesStore<?, ?> store, long offset, int size, int ping) {
        if (size <= 0) {
            return;
        }
        int cc = prefixLength(ping);
        // snprintf writes at most size - 1 characters and a NUL
        int written = Math.min(cc, size - 1);
        for (int i = 0; i < written; i++) {
            store.writeByte(offset + i, (byte) prefixAt(ping, i));
        }
        store.writeByte(offset + written, (byte) 0);
        int c = startCharacter(ping);
        for (int i = cc; i < size; i++) {
            store.writeByte(offset + i, (byte) c);
            c = c == LAST ? FIRST : c + 1;
        }
        store.writeByte(offset + size - 1, (byte) 0);
    }

    /** The first byte at which {@code size} bytes at {@code offset} differ from ping {@code ping}'s data, if any. */
    public static OptionalInt mismatch(BytesStore<?, ?> store, long offset, int size, int ping) {
        if (size <= 0) {
            return OptionalInt.empty();
        }
        int cc = prefixLength(ping);
        int c = startCharacter(ping);
        for (int i = 0; i < size; i++) {
            int want;
            if (i == size - 1) {
                want = 0;
            } else if (i < cc) {
                want = prefixAt(ping, i);
            } else {
                want = c;
                c = c == LAST ? FIRST : c + 1;
            }
            if ((store.readByte(offset + i) & 0xff) != want) {
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    /** Character {@code i} of {@code "rdma-ping-<ping>: "}. */
    static int prefixAt(int ping, int i) {
        if (i < PREFIX.length) {
            return PREFIX[i];
        }
        int d = digits(ping);
        int k = i - PREFIX.length;
        if (k < d) {
            if (ping < 0) {
                if (k == 0) {
                    return '-';
                }
                return '0' + (int) (Math.abs((long) ping) / pow10(d - 1 - k) % 10);
            }
            return '0' + (int) ((long) ping / pow10(d - 1 - k) % 10);
        }
        return k == d ? ':' : ' ';
    }

    /** Characters of %d for {@code v}. */
    static int digits(int v) {
        long x = Math.abs((long) v);
        int n = 1;
        while (x >= 10) {
            x /= 10;
            n++;
        }
        return v < 0 ? n + 1 : n;
    }

    private static long pow10(int n) {
        long p = 1;
        for (int i = 0; i < n; i++) {
            p *= 10;
        }
        return p;
    }
}
