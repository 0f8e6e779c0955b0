package dev.irdmaemu.bridge.trace;

import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;

/**
 * Reads a trace one line at a time, never the whole file: each line is parsed into the one reused
 * {@link TraceRecord}. Blank lines are skipped; a line that is not a flat JSON object with a numeric {@code t} and a
 * string {@code ev}, or longer than {@link #MAX_LINE} characters, is a {@link TraceFormatException} naming its line.
 * Nested values (objects, arrays) are kept as their JSON text.
 */
public final class TraceReader implements Closeable {
    /** The longest line taken (the model's events are a few hundred characters). */
    public static final int MAX_LINE = 1 << 20;

    private final Reader in;
    private final char[] buffer = new char[1 << 16];
    private int pos;
    private int end;
    private boolean eof;
    private final StringBuilder line = new StringBuilder(512);
    private final StringBuilder token = new StringBuilder(128);
    private final TraceRecord record = new TraceRecord();
    private long lineNumber;

    public TraceReader(Reader in) {
        this.in = in;
    }

    /** The next event, or null at the end; the record is reused by the next call. */
    public TraceRecord next() throws IOException, TraceFormatException {
        while (readLine()) {
            if (isBlank(line)) {
                continue;
            }
            new Parser(line, lineNumber, token).object(record);
            return record;
        }
        return null;
    }

    /** The number of the last line read (1-based). */
    public long lineNumber() {
        return lineNumber;
    }

    private boolean readLine() throws IOException, TraceFormatException {
        line.setLength(0);
        boolean any = false;
        while (true) {
            if (pos == end) {
                if (eof) {
                    if (any) {
                        lineNumber++;
                    }
                    return any;
                }
                end = in.read(buffer, 0, buffer.length);
                pos = 0;
                if (end <= 0) {
                    end = 0;
                    eof = true;
                    continue;
                }
            }
            any = true;
            char c = buffer[pos++];
            if (c == '\n') {
                lineNumber++;
                int n = line.length();
                if (n > 0 && line.charAt(n - 1) == '\r') {
                    line.setLength(n - 1);
                }
                return true;
            }
            if (line.length() == MAX_LINE) {
                throw new TraceFormatException(lineNumber + 1, "longer than " + MAX_LINE + " characters");
            }
            line.append(c);
        }
    }

    private static boolean isBlank(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isWhitespace(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Parses one line into {@code into} (exposed for tests and single lines). */
    public static void parse(CharSequence s, long lineNumber, TraceRecord into) throws TraceFormatException {
        new Parser(s, lineNumber, new StringBuilder(64)).object(into);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    private static final class Parser {
        private final CharSequence s;
        private final long lineNumber;
        private final StringBuilder token;
        private int i;

        Parser(CharSequence s, long lineNumber, StringBuilder token) {
            this.s = s;
            this.lineNumber = lineNumber;
            this.token = token;
        }

        void object(TraceRecord into) throws TraceFormatException {
            into.reset(lineNumber);
            boolean sawTime = false;
            skipSpace();
            expect('{');
            skipSpace();
            if (peek() == '}') {
                throw fail("an empty object (no \"t\" and no \"ev\")");
            }
            while (true) {
                skipSpace();
                if (peek() != '"') {
                    throw fail("a field name in quotes expected at column " + (i + 1));
                }
                String key = string();
                skipSpace();
                expect(':');
                skipSpace();
                char c = peek();
                String value;
                boolean quoted = c == '"';
                if (quoted) {
                    value = string();
                } else if (c == '{' || c == '[') {
                    value = nested();
                } else {
                    value = bare();
                }
                if ("t".equals(key)) {
                    if (quoted || !TraceValues.isNumber(value)) {
                        throw fail("\"t\" is not a number of nanoseconds");
                    }
                    sawTime = true;
                } else if ("ev".equals(key) && !quoted) {
                    throw fail("\"ev\" is not a string");
                }
                into.put(key, value);
                skipSpace();
                c = peek();
                i++;
                if (c == ',') {
                    continue;
                }
                if (c == '}') {
                    break;
                }
                throw fail(c == 0 ? "the line ends inside the object" : "',' or '}' expected at column " + i);
            }
            skipSpace();
            if (i < s.length()) {
                throw fail("text after the object at column " + (i + 1));
            }
            if (!sawTime) {
                throw fail("no \"t\" (simulated time) field");
            }
            if (into.event() == null) {
                throw fail("no \"ev\" (event name) field");
            }
        }

        private String string() throws TraceFormatException {
            expect('"');
            token.setLength(0);
            while (true) {
                if (i >= s.length()) {
                    throw fail("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return token.toString();
                }
                if (c != '\\') {
                    token.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    throw fail("unterminated escape");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> token.append(e);
                    case 'n' -> token.append('\n');
                    case 't' -> token.append('\t');
                    case 'r' -> token.append('\r');
                    case 'b' -> token.append('\b');
                    case 'f' -> token.append('\f');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw fail("short \\u escape");
                        }
                        int v = 0;
                        for (int k = 0; k < 4; k++) {
                            int d = Character.digit(s.charAt(i++), 16);
                            if (d < 0) {
                                throw fail("bad \\u escape");
                            }
                            v = v << 4 | d;
                        }
                        token.append((char) v);
                    }
                    default -> throw fail("bad escape \\" + e);
                }
            }
        }

        private String bare() throws TraceFormatException {
            int start = i;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ',' || c == '}' || Character.isWhitespace(c)) {
                    break;
                }
                i++;
            }
            String v = s.subSequence(start, i).toString();
            if (!v.equals("true") && !v.equals("false") && !v.equals("null") && !isJsonNumber(v)) {
                throw fail(v.isEmpty() ? "a value expected at column " + (i + 1) : "not a JSON value: " + clip(v));
            }
            return v;
        }

        private String nested() throws TraceFormatException {
            int start = i;
            int depth = 0;
            boolean inString = false;
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (inString) {
                    if (c == '\\') {
                        i++;
                    } else if (c == '"') {
                        inString = false;
                    }
                } else if (c == '"') {
                    inString = true;
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if (c == '}' || c == ']') {
                    if (--depth == 0) {
                        return s.subSequence(start, i).toString();
                    }
                }
            }
            throw fail("the line ends inside a nested value");
        }

        private static boolean isJsonNumber(String v) {
            if (v.isEmpty()) {
                return false;
            }
            try {
                Double.parseDouble(v);
            } catch (NumberFormatException e) {
                return false;
            }
            char c = v.charAt(v.length() - 1);
            return c >= '0' && c <= '9';
        }

        private static String clip(String v) {
            return v.length() > 40 ? v.substring(0, 40) + "..." : v;
        }

        private char peek() {
            return i < s.length() ? s.charAt(i) : 0;
        }

        private void expect(char c) throws TraceFormatException {
            if (peek() != c) {
                throw fail("'" + c + "' expected at column " + (i + 1)
                        + (i == 0 && c == '{' ? " (not a JSON-lines trace?)" : ""));
            }
            i++;
        }

        private void skipSpace() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private TraceFormatException fail(String why) {
            return new TraceFormatException(lineNumber, why);
        }
    }
}
