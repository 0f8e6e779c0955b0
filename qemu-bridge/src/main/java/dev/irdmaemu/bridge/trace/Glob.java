package dev.irdmaemu.bridge.trace;

/** Shell-style patterns for the trace's filters: {@code *} any run, {@code ?} one character, case-insensitive. */
final class Glob {
    private Glob() {
    }

    static boolean matches(String pattern, String text) {
        if (pattern == null || text == null) {
            return false;
        }
        int p = 0;
        int t = 0;
        int star = -1;
        int mark = 0;
        while (t < text.length()) {
            if (p < pattern.length() && (pattern.charAt(p) == '?' || same(pattern.charAt(p), text.charAt(t)))) {
                p++;
                t++;
            } else if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                mark = t;
            } else if (star >= 0) {
                p = star + 1;
                t = ++mark;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }

    private static boolean same(char a, char b) {
        return a == b || Character.toUpperCase(a) == Character.toUpperCase(b);
    }
}
