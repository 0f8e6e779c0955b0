package dev.irdmaemu.bridge.trace;

/** Number parsing of trace field texts: decimal, or hexadecimal with {@code 0x}, without exceptions. */
final class TraceValues {
    private TraceValues() {
    }

    /** {@code text} as a long (decimal with an optional minus, or 0x-hex up to 16 digits), else {@code absent}. */
    static long parseLong(String text, long absent) {
        if (text == null || text.isEmpty()) {
            return absent;
        }
        if (text.length() > 2 && text.charAt(0) == '0' && (text.charAt(1) == 'x' || text.charAt(1) == 'X')) {
            if (text.length() > 18) {
                return absent;
            }
            long v = 0;
            for (int i = 2; i < text.length(); i++) {
                int d = Character.digit(text.charAt(i), 16);
                if (d < 0) {
                    return absent;
                }
                v = v << 4 | d;
            }
            return v;
        }
        int i = text.charAt(0) == '-' ? 1 : 0;
        if (i == text.length() || text.length() - i > 19) {
            return absent;
        }
        long v = 0;
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return absent;
            }
            v = v * 10 + (c - '0');
            if (v < 0) {
                return absent;
            }
        }
        return text.charAt(0) == '-' ? -v : v;
    }

    static boolean isNumber(String text) {
        return parseLong(text, Long.MIN_VALUE) != Long.MIN_VALUE || "-9223372036854775808".equals(text);
    }
}
