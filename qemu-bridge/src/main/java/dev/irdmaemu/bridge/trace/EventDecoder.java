package dev.irdmaemu.bridge.trace;

import dev.irdmaemu.bridge.decode.FrameSummarizer;
import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.RegisterLayout;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Set;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What an event means to a driver developer: its {@link EventKind}, the block of the PF it concerns, its name (the
 * register's kernel name, the CQP op, the admin queue command, the AE), the QP it concerns, whether it is an error
 * (a CQP op that completed with an error, an admin queue command answered with a non-OK retval or a ring fault, an
 * AE), and one readable line:
 * <pre>
 *    0.000060400 mmio  int   W GLINT_DYN_CTL[3] 0x0000001b INTENA=1 CLEARPBA=1 ITR_INDX=3
 *    0.000061200 cqp   rdma  CREATE_QP wqe=7 qp=3 qp_type=1 → ok 2.6 µs
 *    1.204000000 aq    ice   fw cmd get_ver (0x0001) SI retval=OK
 *    2.480000000 ae    rdma  IRDMA_AE_LLP_CONNECTION_RESET (0x50e) source=SQ qp=3 iwstate=2 tcpstate=5
 *    2.481000000 frame port  rx 54 | 192.0.2.2 → 192.0.2.1 TCP 54 45000 → 7174 [RST, ACK] Seq=1 ...
 * </pre>
 * Register values are decoded with {@link RegisterLayout} (kernel field names); frames with the
 * {@link FrameSummarizer} {@code irdma-emu decode} uses, over the frame's first bytes the trace keeps ({@code hdr}),
 * in trace order (so TCP sequence numbers are relative per connection, as in decode). One instance per trace.
 */
public final class EventDecoder {
    /** Fields every line shows in its own way; the rest are appended as key=value. */
    private static final Set<String> REG_KEYS = Set.of("reg", "idx", "idx2", "off", "val", "handler");
    private static final Set<String> CQP_KEYS = Set.of("op", "wqe", "result", "major", "minor", "ret", "latency_ns",
            "why");
    private static final Set<String> AQ_KEYS = Set.of("q", "dir", "opcode", "op", "retval", "datalen", "reply_len",
            "idx", "flags", "param0", "param1", "buf", "reason");
    private static final Set<String> AE_KEYS = Set.of("ae", "id", "source", "queued");
    private static final Set<String> FRAME_KEYS = Set.of("len", "hdr", "queued");
    private static final String[] AQ_FLAG_NAMES = new String[16];

    static {
        flagName(AqDescriptor.DD, "DD");
        flagName(AqDescriptor.CMP, "CMP");
        flagName(AqDescriptor.ERR, "ERR");
        flagName(AqDescriptor.VFE, "VFE");
        flagName(AqDescriptor.LB, "LB");
        flagName(AqDescriptor.RD, "RD");
        flagName(AqDescriptor.VFC, "VFC");
        flagName(AqDescriptor.BUF, "BUF");
        flagName(AqDescriptor.SI, "SI");
        flagName(AqDescriptor.EI, "EI");
        flagName(AqDescriptor.FE, "FE");
    }

    private static void flagName(int mask, String name) {
        AQ_FLAG_NAMES[Integer.numberOfTrailingZeros(mask)] = name;
    }

    /** FrameSummarizer's verdict on an FPDU whose CRC lies past the bytes the trace keeps. */
    private static final java.util.regex.Pattern UNTRACED_CRC =
            java.util.regex.Pattern.compile("CRC BAD( \\(received 0x[0-9a-f]+, computed 0x[0-9a-f]+\\))?");

    private final FrameSummarizer frames = new FrameSummarizer();
    private final byte[] frameBytes = new byte[1 << 16];
    private final BytesStore<?, ?> frameStore = BytesStore.wrap(frameBytes);

    // ---- classification

    public static EventKind kind(TraceRecord r) {
        return EventKind.of(r.event(), r);
    }

    /** The block of the PF the event concerns: rdma, int, lan, ice, pci, port. */
    public static String block(TraceRecord r) {
        String ev = r.event();
        switch (ev) {
            case "reg_read", "reg_write", "reg_read_only":
                return RegisterLayout.blockOf(r.get("reg")).label();
            case "reg_unknown":
                return r.has("block") ? r.get("block") : "bar0";
            case "aq":
                return "ice";
            case "irq":
                return r.has("cause") ? (r.has("q") ? "lan" : "ice") : "int";
            case "msix", "pci_bar", "pci_config":
                return "pci";
            case "function_reset":
                return r.has("block") ? r.get("block") : "pci";
            case "frame_rx", "frame_tx":
                return "port";
            case "lan":
                return "lan";
            default:
                return "rdma";
        }
    }

    /**
     * The event's name: a register's kernel name (PFPE_CQPTAIL, GLINT_DYN_CTL), a CQP op, an admin queue command
     * (get_ver), an AE (IRDMA_AE_...), an injected fault (withheld_completion), else the event name.
     */
    public static String name(TraceRecord r) {
        switch (r.event()) {
            case "reg_read", "reg_write", "reg_read_only":
                return RegisterLayout.kernelName(r.get("reg"));
            case "cqp_op", "cqp_error":
                return r.has("op") ? r.get("op") : r.event();
            case "aq":
                return r.has("op") ? r.get("op") : r.event();
            case "fault_injected":
                return r.has("fault") ? r.get("fault") : r.event();
            case "aeqe": {
                AeCode c = AeCode.of((int) r.number("ae", -1));
                return c != null ? c.kernelName() : "AE " + r.get("ae");
            }
            default:
                return r.event();
        }
    }

    /** The QP the event concerns, or -1. */
    public static long qp(TraceRecord r) {
        String ev = r.event();
        if ("aeqe".equals(ev)) {
            return isCqSource(r) ? -1 : r.number("id", -1);
        }
        if (("reg_write".equals(ev)) && ("WQEALLOC".equals(r.get("reg")) || "DB_PAGE_WQEALLOC".equals(r.get("reg")))) {
            return r.number("val", -1) & 0xFFFFF;
        }
        return r.number("qp", -1);
    }

    private static boolean isCqSource(TraceRecord r) {
        return "CQ".equals(AeSource.name((int) r.number("source", -1)));
    }

    /**
     * A CQP op completed with an error, an admin queue error or ring fault, an AE irdma calls abnormal (an unknown
     * code, or one the AEQ could not take), a completion lost. The AEs of a connection's ordinary life (established,
     * FIN received, close complete, ...) are events, not errors ({@link AeCode#abnormal()}).
     */
    public static boolean isError(TraceRecord r) {
        switch (r.event()) {
            case "cqp_error", "completion_lost":
                return true;
            case "aeqe": {
                AeCode c = AeCode.of((int) r.number("ae", -1));
                return c == null || c.abnormal() || "false".equals(r.get("queued"));
            }
            case "cqp_op":
                return r.number("major", 0) != 0 || r.has("result") && !"NONE".equals(r.get("result"));
            case "cqp_create":
                return r.has("result") && !"NONE".equals(r.get("result"));
            case "aq":
                return "fault".equals(r.get("dir")) || "cmd".equals(r.get("dir")) && r.has("retval")
                        && !"OK".equals(r.get("retval"));
            default:
                return false;
        }
    }

    /**
     * A field of the event for a query: the trace's own fields, then {@code kind}, {@code ev}, {@code block},
     * {@code name}, {@code qp}, {@code error} (0/1), {@code status} (a CQP op's major code, 0 when it succeeded; an
     * admin queue command's retval name) and, for a register access, its decoded fields by kernel name
     * ({@code INTENA}, {@code CQP_OP_ERR}). Null when the event has no such field.
     */
    public static String field(TraceRecord r, String key) {
        String v = r.get(key);
        if (v != null) {
            return v;
        }
        switch (key) {
            case "kind":
                return kind(r).label();
            case "ev":
                return r.event();
            case "block":
                return block(r);
            case "name":
                return name(r);
            case "error":
                return isError(r) ? "1" : "0";
            case "qp": {
                long q = qp(r);
                return q < 0 ? null : Long.toString(q);
            }
            case "status":
                if (kind(r) == EventKind.CQP) {
                    return Long.toString(isError(r) ? Math.max(1, r.number("major", 1)) : 0);
                }
                return "aq".equals(r.event()) ? r.get("retval") : null;
            case "t":
                return Long.toString(r.timeNanos());
            default:
                break;
        }
        if (r.has("reg") && r.has("val")) {
            RegisterLayout l = RegisterLayout.of(r.get("reg"));
            RegisterLayout.Field f = l == null ? null : l.field(key.toUpperCase(Locale.ROOT));
            if (f != null) {
                return Long.toString(f.get(r.number("val", 0)));
            }
        }
        return null;
    }

    // ---- the line

    /** Appends the event's line (no newline): time, kind, block, then what it says. */
    public void format(TraceRecord r, StringBuilder out) {
        appendTime(r.timeNanos(), out);
        out.append(' ');
        pad(kind(r).label(), 5, out);
        out.append(' ');
        pad(block(r), 5, out);
        out.append(' ');
        switch (r.event()) {
            case "reg_read", "reg_write", "reg_read_only" -> register(r, out);
            case "reg_unknown" -> {
                out.append("read".equals(r.get("access")) ? "R? " : "W? ").append("unbacked offset ")
                        .append(r.get("off")).append(' ').append(r.get("val"));
                rest(r, Set.of("access", "off", "val", "block"), out);
            }
            case "cqp_op", "cqp_error" -> cqp(r, out);
            case "aq" -> aq(r, out);
            case "aeqe" -> ae(r, out);
            case "ceqe" -> {
                out.append("CEQE ceq ").append(r.get("ceq")).append(" cq ").append(r.get("cq"));
                rest(r, Set.of("ceq", "cq"), out);
            }
            case "msix" -> out.append("MSI-X vector ").append(r.get("vector"));
            case "irq" -> {
                out.append("cause on vector ").append(r.get("vector"));
                rest(r, Set.of("vector"), out);
            }
            case "frame_rx", "frame_tx" -> frame(r, out);
            case "pci_config" -> {
                out.append("config write ").append(r.get("field"));
                rest(r, Set.of("field"), out);
            }
            default -> {
                out.append(r.event());
                rest(r, Set.of(), out);
            }
        }
        if (isError(r)) {
            out.append("  <== error");
        }
    }

    private static void register(TraceRecord r, StringBuilder out) {
        String ev = r.event();
        out.append("reg_read".equals(ev) ? "R " : "reg_write".equals(ev) ? "W " : "W! ");
        String reg = r.get("reg");
        out.append(RegisterLayout.kernelName(reg));
        long idx = r.number("idx", -1);
        if (r.has("idx2")) {
            out.append('[').append(idx).append(',').append(r.get("idx2")).append(']');
        } else if (idx > 0 || idx == 0 && isArray(reg)) {
            out.append('[').append(idx).append(']');
        }
        long val = r.number("val", -1);
        out.append(' ');
        if (val >= 0) {
            out.append("0x");
            String h = Long.toHexString(val);
            for (int i = h.length(); i < 8; i++) {
                out.append('0');
            }
            out.append(h);
            RegisterLayout l = RegisterLayout.of(reg);
            if (l != null) {
                l.decode(val, out);
            }
        } else {
            out.append(r.get("val"));
        }
        if ("reg_read_only".equals(ev)) {
            out.append(" (read-only: ignored)");
        }
        if ("ice_storage".equals(reg)) {
            out.append(" off=").append(r.get("off"));
        }
        rest(r, REG_KEYS, out);
    }

    private static boolean isArray(String reg) {
        if (reg == null) {
            return false;
        }
        try {
            return Gen2Register.valueOf(reg).count() > 1;
        } catch (IllegalArgumentException e) {
            return reg.startsWith("Q") || reg.startsWith("GLINT_") || reg.startsWith("GLPRT_")
                    || reg.startsWith("GLV_");
        }
    }

    private static void cqp(TraceRecord r, StringBuilder out) {
        out.append(r.has("op") ? r.get("op") : "CQP");
        if (r.has("wqe")) {
            out.append(" wqe=").append(r.get("wqe"));
        }
        rest(r, CQP_KEYS, out);
        if ("cqp_error".equals(r.event()) && !r.has("major")) {
            // a fetch-level refusal (CqpEngine.fetchError): the WQE never ran
            out.append(" → refused ").append(r.get("result"));
        } else if (isError(r)) {
            out.append(" → ERROR ").append(r.get("result")).append(" major=").append(r.get("major"))
                    .append(" minor=").append(r.get("minor"));
        } else {
            out.append(" → ok");
        }
        if (r.has("why")) {
            out.append(" (").append(r.get("why")).append(')');
        }
        long lat = r.number("latency_ns", -1);
        if (lat >= 0) {
            out.append(' ');
            appendDuration(lat, out);
        }
    }

    private static void aq(TraceRecord r, StringBuilder out) {
        String dir = r.get("dir");
        out.append(r.get("q")).append(' ').append(dir);
        if ("fault".equals(dir)) {
            out.append(' ').append(r.get("ring")).append(' ').append(r.get("reason"));
            rest(r, Set.of("q", "dir", "ring", "reason"), out);
            return;
        }
        if (!r.has("op")) {
            rest(r, Set.of("q", "dir"), out);
            return;
        }
        out.append(' ').append(r.get("op")).append(" (").append(r.get("opcode")).append(')');
        long flags = r.number("flags", -1);
        if (flags > 0) {
            out.append(' ');
            appendAqFlags(flags, out);
        }
        out.append(" retval=").append(r.get("retval"));
        if (r.number("datalen", 0) != 0) {
            out.append(" datalen=").append(r.get("datalen"));
        }
        if (r.number("reply_len", 0) != 0) {
            out.append(" reply_len=").append(r.get("reply_len"));
        }
        if (r.number("param0", 0) != 0) {
            out.append(" param0=").append(r.get("param0"));
        }
        if (r.number("param1", 0) != 0) {
            out.append(" param1=").append(r.get("param1"));
        }
        if (r.has("reason")) {
            out.append(" (").append(r.get("reason")).append(')');
        }
        rest(r, AQ_KEYS, out);
    }

    /** The descriptor flags by their libie adminq.h names (LIBIE_AQ_FLAG_*), joined with |. */
    public static void appendAqFlags(long flags, StringBuilder out) {
        boolean first = true;
        for (int b = 0; b < 16; b++) {
            if ((flags & 1L << b) == 0) {
                continue;
            }
            if (!first) {
                out.append('|');
            }
            first = false;
            String n = AQ_FLAG_NAMES[b];
            out.append(n != null ? n : "bit" + b);
        }
    }

    private static void ae(TraceRecord r, StringBuilder out) {
        out.append(name(r)).append(" (").append(r.get("ae")).append(')');
        int source = (int) r.number("source", -1);
        out.append(" source=").append(AeSource.name(source));
        out.append(isCqSource(r) ? " cq=" : " qp=").append(r.get("id"));
        if ("false".equals(r.get("queued"))) {
            out.append(" (not queued: AEQ full or absent)");
        }
        rest(r, AE_KEYS, out);
    }

    private void frame(TraceRecord r, StringBuilder out) {
        out.append("frame_rx".equals(r.event()) ? "rx " : "tx ").append(r.get("len"));
        String hdr = r.get("hdr");
        OptionalInt decoded = hdr == null ? OptionalInt.of(0) : hexToBytes(hdr);
        int n = decoded.orElse(0);
        if (n > 0) {
            out.append(" | ");
            long len = r.number("len", n);
            if (n < len && len <= frameBytes.length) {
                // The trace keeps a frame's first bytes (its headers): the rest is zeros here, so the headers
                // decode as decode shows them, and what depends on the missing bytes (the TCP checksum, an FPDU's
                // CRC) is said to be not traced rather than wrong.
                java.util.Arrays.fill(frameBytes, n, (int) len, (byte) 0);
                int at = out.length();
                frames.summarize(frameStore, 0, (int) len, out);
                String summary = out.substring(at).replace(" " + FrameSummarizer.TCP_CHECKSUM_MARK, "")
                        .replace(" " + FrameSummarizer.UDP_CHECKSUM_MARK, "");
                out.setLength(at);
                out.append(UNTRACED_CRC.matcher(summary).replaceAll("CRC not traced"));
                out.append(" [captured ").append(n).append(" of ").append(len).append(']');
            } else {
                frames.summarize(frameStore, 0, n, out);
            }
        } else if (hdr != null && !hdr.isEmpty()) {
            out.append(" hdr not hexadecimal");
        }
        rest(r, FRAME_KEYS, out);
    }

    /** Decodes {@code hex} into {@link #frameBytes}; the byte count, empty when it is not hexadecimal. */
    private OptionalInt hexToBytes(String hex) {
        int n = Math.min(hex.length() / 2, frameBytes.length);
        if (hex.length() % 2 != 0) {
            return OptionalInt.empty();
        }
        for (int i = 0; i < n; i++) {
            int hi = Character.digit(hex.charAt(2 * i), 16);
            int lo = Character.digit(hex.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                return OptionalInt.empty();
            }
            frameBytes[i] = (byte) (hi << 4 | lo);
        }
        return OptionalInt.of(n);
    }

    private static void rest(TraceRecord r, Set<String> shown, StringBuilder out) {
        for (int i = 0; i < r.fieldCount(); i++) {
            String k = r.key(i);
            if (!shown.contains(k)) {
                out.append(' ').append(k).append('=').append(r.value(i));
            }
        }
    }

    private static void pad(String s, int width, StringBuilder out) {
        out.append(s);
        for (int i = s.length(); i < width; i++) {
            out.append(' ');
        }
    }

    /** Simulated nanoseconds as seconds with 9 decimals, right-aligned in 13 columns: {@code   0.000012600}. */
    public static void appendTime(long nanos, StringBuilder out) {
        String sign = nanos < 0 ? "-" : "";
        long n = Math.abs(nanos);
        String whole = sign + (n / 1_000_000_000L);
        for (int i = whole.length(); i < 3; i++) {
            out.append(' ');
        }
        out.append(whole).append('.');
        String frac = Long.toString(n % 1_000_000_000L);
        for (int i = frac.length(); i < 9; i++) {
            out.append('0');
        }
        out.append(frac);
    }

    /** A latency: {@code 850 ns}, {@code 2.6 µs}, {@code 1.25 ms}. */
    static void appendDuration(long nanos, StringBuilder out) {
        if (nanos < 1_000) {
            out.append(nanos).append(" ns");
        } else if (nanos < 1_000_000) {
            out.append(String.format(Locale.ROOT, "%.1f µs", nanos / 1e3));
        } else {
            out.append(String.format(Locale.ROOT, "%.2f ms", nanos / 1e6));
        }
    }
}
