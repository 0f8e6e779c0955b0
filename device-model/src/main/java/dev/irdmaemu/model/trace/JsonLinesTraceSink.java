package dev.irdmaemu.model.trace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteOrder;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Writes each event as one JSON object per line: {@code {"t":123,"ev":"cqp_op","op":"CREATE_CQ",...}}, the time in
 * simulated nanoseconds. Meant to sit next to the pcap of the same run.
 *
 * <p>On the data path (a frame, a completion, a doorbell each) it allocates nothing: the line is built in one reused
 * {@code char[]} (decimal and hexadecimal digits written in place, a bytes field read eight bytes at a time), and
 * handed to a {@link Writer} as that array, so the writer copies it into its buffer without a String; any other
 * {@link Appendable} gets one {@code append(CharSequence)} a line through a reused view of the array (it must not
 * keep the view). The text is exactly what the first, StringBuilder-based version wrote ({@code JsonLinesGoldenTest}
 * pins it): texts {@code true}/{@code false} bare, other texts quoted with {@code "} and {@code \} escaped and
 * control characters as {@code \}{@code u00xx}, hex numbers as {@code "0x..."} like {@link Long#toHexString}.
 */
public final class JsonLinesTraceSink implements TraceSink {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();
    private static final char[] LONG_MIN = Long.toString(Long.MIN_VALUE).toCharArray();
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final char[] OPEN = "{\"t\":".toCharArray();
    private static final char[] EV = ",\"ev\":\"".toCharArray();

    private final Appendable out;
    private final Writer writer;
    private final char[] open;
    private final LineView view = new LineView();
    private char[] buf = new char[512];
    private int len;

    public JsonLinesTraceSink(Appendable out) {
        this(out, null);
    }

    /**
     * Lines that start with {@code tag}, one or more JSON fields of the writer's own, e.g. {@code "node":"A"} (two
     * nodes in one file) or {@code "pf":1} (one function of several): {@code {"node":"A","t":...}}. The tag is
     * written as given; null or empty for none. A {@link Writer} shared with other sinks or threads gets each line
     * in one {@link Writer#write(char[], int, int)} call, which the JDK's writers make atomic under their lock.
     */
    public JsonLinesTraceSink(Appendable out, String tag) {
        this.out = out;
        this.writer = out instanceof Writer w ? w : null;
        this.open = tag == null || tag.isEmpty() ? OPEN : ("{" + tag + ",\"t\":").toCharArray();
    }

    @Override
    public void accept(TraceEvent e) {
        len = 0;
        put(open);
        decimal(e.timeNanos());
        put(EV);
        plain(e.kind().wireName());
        put('"');
        for (int i = 0; i < e.count; i++) {
            ensure(3);
            buf[len++] = ',';
            buf[len++] = '"';
            escape(e.names[i]);
            ensure(2);
            buf[len++] = '"';
            buf[len++] = ':';
            String t = e.texts[i];
            if (e.stores[i] != null) {
                put('"');
                hexBytes(e.stores[i], e.numbers[i], e.lengths[i]);
                put('"');
            } else if (t != null) {
                if (t.equals("true") || t.equals("false")) {
                    plain(t);
                } else {
                    put('"');
                    escape(t);
                    put('"');
                }
            } else if (e.hex[i]) {
                ensure(19);
                buf[len++] = '"';
                buf[len++] = '0';
                buf[len++] = 'x';
                hexNumber(e.numbers[i]);
                buf[len++] = '"';
            } else {
                decimal(e.numbers[i]);
            }
        }
        ensure(2);
        buf[len++] = '}';
        buf[len++] = '\n';
        try {
            if (writer != null) {
                writer.write(buf, 0, len);
            } else {
                out.append(view);
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
        }
    }

    private void put(char c) {
        ensure(1);
        buf[len++] = c;
    }

    private void put(char[] cs) {
        ensure(cs.length);
        System.arraycopy(cs, 0, buf, len, cs.length);
        len += cs.length;
    }

    /** A text known to need no escaping (kind names, {@code true}/{@code false}). */
    private void plain(String s) {
        ensure(s.length());
        s.getChars(0, s.length(), buf, len);
        len += s.length();
    }

    /**
     * {@code s} with {@code "} and {@code \\} escaped and control characters as {@code \\}{@code u00xx}. Copied
     * whole first (an intrinsic), then scanned in the array: names and texts rarely need an escape.
     */
    private void escape(String s) {
        int n = s.length();
        ensure(n);
        s.getChars(0, n, buf, len);
        char[] b = buf;
        int end = len + n;
        for (int i = len; i < end; i++) {
            char c = b[i];
            if (c < 0x20 || c == '"' || c == '\\') {
                len = i;
                escapeFrom(s, i - (end - n));
                return;
            }
        }
        len = end;
    }

    private void escapeFrom(String s, int from) {
        int n = s.length();
        for (int i = from; i < n; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                ensure(n - i + 1);
                buf[len++] = '\\';
                buf[len++] = c;
            } else if (c < 0x20) {
                ensure(n - i + 5);
                buf[len++] = '\\';
                buf[len++] = 'u';
                buf[len++] = '0';
                buf[len++] = '0';
                buf[len++] = DIGITS[c >>> 4];
                buf[len++] = DIGITS[c & 15];
            } else {
                ensure(n - i);
                buf[len++] = c;
            }
        }
    }

    /** Like {@link Long#toString(long)}. */
    private void decimal(long v) {
        if (v == Long.MIN_VALUE) {
            put(LONG_MIN);
            return;
        }
        ensure(20);
        if (v < 0) {
            buf[len++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long p = 10; digits < 19 && v >= p; p *= 10) {
            digits++;
        }
        int at = len + digits;
        len = at;
        do {
            buf[--at] = (char) ('0' + (int) (v % 10));
            v /= 10;
        } while (v != 0);
    }

    /** Like {@link Long#toHexString(long)}: unsigned, no leading zeros, at least one digit. */
    private void hexNumber(long v) {
        int digits = Math.max(1, (64 - Long.numberOfLeadingZeros(v) + 3) >>> 2);
        for (int shift = (digits - 1) << 2; shift >= 0; shift -= 4) {
            buf[len++] = DIGITS[(int) (v >>> shift) & 15];
        }
    }

    /** Bytes {@code at..at+n} of {@code s} (already cut to its readable range) as lower-case hex, two digits a byte. */
    private void hexBytes(BytesStore<?, ?> s, long at, int n) {
        ensure(2 * n);
        int k = 0;
        if (LITTLE_ENDIAN) {
            for (; k + 8 <= n; k += 8) {
                long w = s.readLong(at + k);
                for (int b = 0; b < 8; b++, w >>>= 8) {
                    int x = (int) w & 0xff;
                    buf[len++] = DIGITS[x >>> 4];
                    buf[len++] = DIGITS[x & 15];
                }
            }
        }
        for (; k < n; k++) {
            int x = s.readUnsignedByte(at + k);
            buf[len++] = DIGITS[x >>> 4];
            buf[len++] = DIGITS[x & 15];
        }
    }

    /** The line built so far, for an {@link Appendable} that is not a {@link Writer}. */
    private final class LineView implements CharSequence {
        @Override
        public int length() {
            return len;
        }

        @Override
        public char charAt(int index) {
            if (index < 0 || index >= len) {
                throw new IndexOutOfBoundsException(index);
            }
            return buf[index];
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return toString().substring(start, end);
        }

        @Override
        public String toString() {
            return new String(buf, 0, len);
        }
    }
}
