package dev.irdmaemu.bridge.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * A condition on one event, as {@code --before} and {@code --match} take it: terms separated by spaces, all of
 * which must hold. A term is {@code error} (the event is an error, {@link EventDecoder#isError}), a kind
 * ({@code cqp}, {@code aq}, ... of {@link EventKind}) or an event name ({@code reg_write}), or a comparison of a
 * field ({@link EventDecoder#field}: the trace's own fields, {@code name}, {@code status}, {@code qp}, a register's
 * decoded fields): {@code key=value}, {@code key!=value} (numbers compare as numbers, decimal or 0x-hex, anything
 * else as a case-insensitive glob), {@code key<n}, {@code key<=n}, {@code key>n}, {@code key>=n}. A comparison on a
 * field the event does not have is false. Examples: {@code cqp status!=0}, {@code aq retval!=OK},
 * {@code reg=GLINT_DYN_CTL INTENA=0}, {@code ae qp=3}.
 */
public final class EventMatch {
    private enum Op { EQ, NE, LT, LE, GT, GE }

    private record Term(String word, String key, Op op, String value) {
    }

    private final String text;
    private final List<Term> terms;

    private EventMatch(String text, List<Term> terms) {
        this.text = text;
        this.terms = terms;
    }

    /** Parses {@code text}; throws IllegalArgumentException naming the term it cannot read. */
    public static EventMatch parse(String text) {
        List<Term> terms = new ArrayList<>();
        for (String t : text.trim().split("\\s+")) {
            if (t.isEmpty()) {
                continue;
            }
            terms.add(term(t));
        }
        if (terms.isEmpty()) {
            throw new IllegalArgumentException("an empty event match");
        }
        return new EventMatch(text, List.copyOf(terms));
    }

    private static Term term(String t) {
        String[] ops = {"!=", "<=", ">=", "=", "<", ">"};
        Op[] kinds = {Op.NE, Op.LE, Op.GE, Op.EQ, Op.LT, Op.GT};
        for (int i = 0; i < ops.length; i++) {
            int at = t.indexOf(ops[i]);
            if (at < 0) {
                continue;
            }
            String key = t.substring(0, at);
            String value = t.substring(at + ops[i].length());
            if (key.isEmpty() || value.isEmpty()) {
                throw new IllegalArgumentException("'" + t + "': a field and a value expected around " + ops[i]);
            }
            Op op = kinds[i];
            if ((op == Op.LT || op == Op.LE || op == Op.GT || op == Op.GE) && !TraceValues.isNumber(value)) {
                throw new IllegalArgumentException("'" + t + "': " + ops[i] + " compares numbers");
            }
            return new Term(null, key, op, value);
        }
        if (!t.equals("error") && EventKind.byLabel(t) == null && !t.matches("[a-z_]+")) {
            throw new IllegalArgumentException("'" + t + "': not a kind, an event name, error or key=value");
        }
        return new Term(t, null, null, null);
    }

    public boolean matches(TraceRecord r) {
        for (Term t : terms) {
            if (!holds(t, r)) {
                return false;
            }
        }
        return true;
    }

    private static boolean holds(Term t, TraceRecord r) {
        if (t.word != null) {
            if (t.word.equals("error")) {
                return EventDecoder.isError(r);
            }
            EventKind k = EventKind.byLabel(t.word);
            return k != null ? EventDecoder.kind(r) == k : t.word.equals(r.event());
        }
        String v = EventDecoder.field(r, t.key);
        if (v == null) {
            return false;
        }
        boolean numbers = TraceValues.isNumber(v) && TraceValues.isNumber(t.value);
        long a = numbers ? TraceValues.parseLong(v, 0) : 0;
        long b = numbers ? TraceValues.parseLong(t.value, 0) : 0;
        return switch (t.op) {
            case EQ -> numbers ? a == b : Glob.matches(t.value, v);
            case NE -> numbers ? a != b : !Glob.matches(t.value, v);
            case LT -> numbers && a < b;
            case LE -> numbers && a <= b;
            case GT -> numbers && a > b;
            case GE -> numbers && a >= b;
        };
    }

    @Override
    public String toString() {
        return text;
    }
}
