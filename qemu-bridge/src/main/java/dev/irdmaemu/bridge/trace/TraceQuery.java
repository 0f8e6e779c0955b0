package dev.irdmaemu.bridge.trace;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The filters of {@code irdma-emu trace}, all of which an event must pass: kinds (families of {@link EventKind} or
 * event names), a register name glob (matching the model's name or the kernel's, PFPE_CQPTAIL or CQPTAIL), an
 * opcode (a CQP op or an admin queue command, by name glob or number), a QP, a time window (inclusive, simulated
 * nanoseconds) and a free {@link EventMatch}. An unset filter lets everything through.
 */
public final class TraceQuery {
    private final Set<EventKind> kinds = EnumSet.noneOf(EventKind.class);
    private final Set<String> events = new HashSet<>();
    private String register;
    private String opcode;
    private long qp = -1;
    private long from = Long.MIN_VALUE;
    private long to = Long.MAX_VALUE;
    private EventMatch match;

    /** Adds kinds from a comma-separated list of kind labels or event names; throws on an unknown word. */
    public TraceQuery kinds(String list) {
        for (String w : list.split(",")) {
            String k = w.trim().toLowerCase(Locale.ROOT);
            if (k.isEmpty()) {
                continue;
            }
            EventKind kind = EventKind.byLabel(k);
            if (kind != null) {
                kinds.add(kind);
            } else if (k.matches("[a-z_]+")) {
                events.add(k);
            } else {
                throw new IllegalArgumentException("'" + w + "' is not a kind (mmio, aq, cqp, ae, ceq, msix, frame, "
                        + "cfg, other) or an event name");
            }
        }
        return this;
    }

    public TraceQuery register(String glob) {
        this.register = glob;
        return this;
    }

    public TraceQuery opcode(String nameOrNumber) {
        this.opcode = nameOrNumber;
        return this;
    }

    public TraceQuery qp(long n) {
        this.qp = n;
        return this;
    }

    public TraceQuery from(long nanos) {
        this.from = nanos;
        return this;
    }

    public TraceQuery to(long nanos) {
        this.to = nanos;
        return this;
    }

    public TraceQuery match(EventMatch m) {
        this.match = m;
        return this;
    }

    public boolean accepts(TraceRecord r) {
        long t = r.timeNanos();
        if (t < from || t > to) {
            return false;
        }
        if ((!kinds.isEmpty() || !events.isEmpty()) && !kinds.contains(EventDecoder.kind(r))
                && !events.contains(r.event())) {
            return false;
        }
        if (register != null) {
            String reg = r.get("reg");
            if (reg == null || !r.event().startsWith("reg_")
                    || !Glob.matches(register, reg) && !Glob.matches(register, EventDecoder.name(r))) {
                return false;
            }
        }
        if (opcode != null && !opcodeMatches(r)) {
            return false;
        }
        if (qp >= 0 && EventDecoder.qp(r) != qp) {
            return false;
        }
        return match == null || match.matches(r);
    }

    private boolean opcodeMatches(TraceRecord r) {
        String ev = r.event();
        if (!ev.equals("aq") && !ev.equals("cqp_op") && !ev.equals("cqp_error")) {
            return false;
        }
        String op = r.get("op");
        if (TraceValues.isNumber(opcode)) {
            long want = TraceValues.parseLong(opcode, -1);
            return ev.equals("aq") && r.number("opcode", -2) == want;
        }
        return op != null && Glob.matches(opcode, op);
    }

    /**
     * A time: a number with a unit, {@code ns} (the default), {@code us} or {@code µs}, {@code ms}, {@code s};
     * decimals allowed ({@code 1.5ms}). Throws IllegalArgumentException for anything else.
     */
    public static long parseTime(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        long scale = 1;
        String[][] units = {{"ns", "1"}, {"us", "1000"}, {"µs", "1000"}, {"ms", "1000000"}, {"s", "1000000000"}};
        for (String[] u : units) {
            if (s.endsWith(u[0])) {
                scale = Long.parseLong(u[1]);
                s = s.substring(0, s.length() - u[0].length()).trim();
                break;
            }
        }
        try {
            java.math.BigDecimal v = new java.math.BigDecimal(s).multiply(java.math.BigDecimal.valueOf(scale));
            return v.setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a time (e.g. 1500, 12us, 1.5ms, 3s)");
        }
    }
}
