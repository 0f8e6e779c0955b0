package dev.irdmaemu.bridge.e810;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * rdma-core's Python tests (run_tests.py, unittest's verbose output) as they ran on irdma on the emulated E810, and
 * the classification of everything that did not pass: each failure, error and skip reason belongs to a category
 * that a real E810 shares (a limitation of iWARP, of irdma 7.3 on gen2 hardware, of libirdma, or of the test
 * environment), each with the source that says so. Anything not in these tables is unclassified, which the test
 * treats as a model defect to look at.
 */
final class RdmaCoreTestResults {
    enum Outcome { OK, FAIL, ERROR, SKIPPED }

    /** One test: its id ({@code test_x (tests.module.Class.test_x)}), outcome and, for a skip, the reason. */
    record Result(String name, Outcome outcome, String reason) {
    }

    /** Why something that did not pass does not pass on a real E810 either. */
    record Category(String name, String why) {
    }

    // ---- failures and errors: the test's name, a fragment of its report, the category

    private record Known(String test, String fragment, Category category) {
    }

    static final Category IWARP_RTS_NEEDS_CM = new Category("iwarp-rts-needs-cm",
            "an iWARP QP reaches RTS only through the connection manager, over its TCP connection (RFC 5040 §6;"
                    + " irdma verbs.c irdma_modify_qp: IB_QPS_RTS without a cm_id is -EINVAL)");
    static final Category IWARP_NO_UD = new Category("iwarp-no-ud",
            "iWARP has no unreliable datagram QP: multicast and the UDP port space need one (irdma verbs.c"
                    + " irdma_create_qp refuses every type but RC in iWARP mode, -EOPNOTSUPP)");
    static final Category IWARP_NO_ACK_TIMEOUT = new Category("iwarp-no-ack-timeout",
            "an iWARP QP has no InfiniBand ACK timeout (TCP retransmits); irdma verbs.c irdma_query_qp reports no"
                    + " timeout, so the test's assert that the one it set comes back fails on any irdma device");
    static final Category IWARP_NO_CONNECT_RESPONSE = new Category("iwarp-no-connect-response",
            "with an external QP the test expects RDMA_CM_EVENT_CONNECT_RESPONSE; the iWARP CM reports a"
                    + " connect reply as RDMA_CM_EVENT_ESTABLISHED (drivers/infiniband/core/cma.c cma_iw_handler)");
    static final Category IRDMA_QP_STATE_AFTER_CREATE = new Category("irdma-qp-state-after-create",
            "the test expects an RNIC's new QP in INIT; irdma sets no state at create and irdma_query_qp reports"
                    + " ibqp_state, RESET (verbs.c)");
    static final Category LIBIRDMA_CQ_SIZE = new Category("libirdma-cq-size",
            "max_cqe + 1 passes libirdma's check (rdma-core providers/irdma/uverbs.c ucreate_cq: cqe <="
                    + " max_hw_cq_size) and get_cq_size doubles it past the CQ size Create CQ takes (the 21-bit"
                    + " CQSIZE, defs.h IRDMA_CQPSQ_CQ_CQSIZE); irdma forwards a user CQ's size unchecked (verbs.c"
                    + " irdma_create_cq) and returns every CQP error as -EIO, so the test gets EIO, not EINVAL");

    private static final List<Known> KNOWN = List.of(
            new Known("test_create_cq_bad_flow", "AssertionError: 5 != 22", LIBIRDMA_CQ_SIZE),
            new Known("test_create_cq_ex_bad_flow", "AssertionError: 5 != 22", LIBIRDMA_CQ_SIZE),
            new Known("test_query_rc_qp", "IBV_QPS_INIT: 1> != 0", IRDMA_QP_STATE_AFTER_CREATE),
            new Known("test_cq_events_rc", "Failed to modify QP state to RTS. Errno: 22", IWARP_RTS_NEEDS_CM),
            new Known("test_rc_traffic_cq_ex", "Failed to modify QP state to RTS. Errno: 22", IWARP_RTS_NEEDS_CM),
            new Known("test_mr_rereg_access", "Failed to modify QP state to RTS. Errno: 22", IWARP_RTS_NEEDS_CM),
            new Known("test_mr_rereg_access_bad_flow", "Failed to modify QP state to RTS. Errno: 22",
                    IWARP_RTS_NEEDS_CM),
            new Known("test_mr_rereg_addr", "Failed to modify QP state to RTS. Errno: 22", IWARP_RTS_NEEDS_CM),
            new Known("test_mr_rereg_pd", "Failed to modify QP state to RTS. Errno: 22", IWARP_RTS_NEEDS_CM),
            new Known("test_ro_rc_traffic", "Failed to modify QP state to RTS. Errno: 22", IWARP_RTS_NEEDS_CM),
            new Known("test_rdmacm_async_multicast_traffic", "Failed to Create QP. Errno: 95", IWARP_NO_UD),
            new Known("test_rdmacm_async_ex_multicast_traffic", "Failed to Create QP. Errno: 95", IWARP_NO_UD),
            new Known("test_rdmacm_async_ex_leave_multicast_traffic", "Failed to Create QP. Errno: 95", IWARP_NO_UD),
            new Known("test_rdmacm_async_udp_traffic", "Failed to Create QP. Errno: 95", IWARP_NO_UD),
            new Known("test_rdmacm_async_traffic", "Player active got: \n", IWARP_NO_ACK_TIMEOUT),
            new Known("test_rdmacm_async_traffic_external_qp",
                    "Expected this event: 5, got this event: RDMA_CM_EVENT_ESTABLISHED", IWARP_NO_CONNECT_RESPONSE));

    // ---- skip reasons

    private record SkipRule(Pattern reason, Category category) {
    }

    static final Category IWARP_GID = new Category("iwarp-gid",
            "base.py drops a GID whose last 8 bytes are zero as empty; irdma's iWARP GID is the port's MAC in its first"
                    + " 6 bytes and zeros after (verbs.c irdma_query_gid), so without --gid no port qualifies for"
                    + " traffic tests");
    static final Category OTHER_VENDOR = new Category("other-vendor",
            "tests of another vendor's provider (mlx5, EFA) or of VFIO with a PCI device named by the user");
    static final Category IRDMA_GEN2_FEATURE = new Category("irdma-gen2-feature",
            "a feature irdma 7.3 offers only on gen3 hardware or not at all: memory windows (irdma_gen3_dev_ops),"
                    + " atomics and SRQ (IRDMA_FEATURE_ATOMIC_OPS / _SRQ, set by ig3rdma_hw.c only), device memory,"
                    + " ODP, XRC, parent domains, extended QPs, real-time and completion timestamps, tag matching");
    static final Category IWARP_QP_TYPES = new Category("iwarp-qp-types",
            "QP types and address handles iWARP has not: UD, UC, raw packet, and AHs (irdma verbs.c: RC only in"
                    + " iWARP mode; create_ah is a RoCE op)");
    static final Category TEST_ENVIRONMENT = new Category("test-environment",
            "the guest has no GPU for dmabuf, no cuda-python, no 2 MiB huge pages reserved");
    static final Category IWARP_ONE_GID = new Category("iwarp-one-gid",
            "irdma's iWARP GID table has one entry, populated, so there is no free index for the bad-flow check");

    private static final List<SkipRule> SKIPS = List.of(
            new SkipRule(Pattern.compile("No supported port is up, can't run traffic"), IWARP_GID),
            new SkipRule(Pattern.compile("Can not run the test over non (MLX5|EFA) device"
                    + "|Could not open mlx5 context.*|PCI device must be passed by the user"), OTHER_VENDOR),
            new SkipRule(Pattern.compile("Device memory is not supported|ODP is not supported.*"
                    + "|Parent Domain is not supported on this device|Extended QP is not supported on this device"
                    + "|Create XRCD is not supported|Create SRQ is not supported|Atomic operations are not supported"
                    + "|Create MW is not supported|Create memory window of type \\d+ is not supported"
                    + "|Query device real time is not supported|Create Extended CQ is not supported"
                    + "|Extended CQ is not supported"), IRDMA_GEN2_FEATURE),
            new SkipRule(Pattern.compile("Create (UD|UC|Raw Packet|RC) QP (with|without) (extended )?attrs is not"
                    + " supported|Create QP type \\d+ is not supported|Create AH is not supported"), IWARP_QP_TYPES),
            new SkipRule(Pattern.compile("Allocating dmabuf is not supported by .*|cuda-python .* must be installed"
                    + " to run CUDA tests|There are no huge pages of size 2M allocated"), TEST_ENVIRONMENT),
            new SkipRule(Pattern.compile("All gid indices populated, cannot check bad flow"), IWARP_ONE_GID));

    private static final Pattern NAME = Pattern.compile("^(test_\\w+) \\(tests\\.[\\w.]+\\)");
    private static final Pattern SUMMARY = Pattern.compile("^Ran (\\d+) tests? in ");

    private final List<Result> results;
    private final String output;
    private final int ran;

    private RdmaCoreTestResults(List<Result> results, String output, int ran) {
        this.results = results;
        this.output = output;
        this.ran = ran;
    }

    /**
     * Parses unittest's verbose output: "test_x (tests.m.C.test_x) ... ok", where a test with a docstring prints its
     * id on one line and "First docstring line ... ok" on the next, and a subprocess may print between the id and
     * the outcome.
     */
    static RdmaCoreTestResults parse(List<String> lines) {
        List<Result> results = new ArrayList<>();
        String pending = null;
        int ran = -1;
        for (String line : lines) {
            Matcher n = NAME.matcher(line);
            if (n.find()) {
                pending = n.group(1);
            }
            int at = line.lastIndexOf(" ... ");
            String tail = at >= 0 ? line.substring(at + 5) : line.startsWith("ERROR") || line.startsWith("ok")
                    || line.startsWith("FAIL") ? line : null;
            if (pending != null && tail != null) {
                Optional<Result> r = outcome(pending, tail.trim());
                if (r.isPresent()) {
                    results.add(r.get());
                    pending = null;
                }
            }
            Matcher s = SUMMARY.matcher(line);
            if (s.find()) {
                ran = Integer.parseInt(s.group(1));
            }
        }
        return new RdmaCoreTestResults(List.copyOf(results), String.join("\n", lines), ran);
    }

    private static Optional<Result> outcome(String name, String tail) {
        if (tail.equals("ok")) {
            return Optional.of(new Result(name, Outcome.OK, ""));
        }
        if (tail.equals("FAIL")) {
            return Optional.of(new Result(name, Outcome.FAIL, ""));
        }
        if (tail.equals("ERROR")) {
            return Optional.of(new Result(name, Outcome.ERROR, ""));
        }
        if (tail.startsWith("skipped ") && tail.length() > 10) {
            return Optional.of(new Result(name, Outcome.SKIPPED, tail.substring(9, tail.length() - 1)));
        }
        return Optional.empty();
    }

    List<Result> results() {
        return results;
    }

    /** unittest's own count ("Ran N tests"), or -1 when the run printed none. */
    int ran() {
        return ran;
    }

    Map<Outcome, Integer> counts() {
        Map<Outcome, Integer> c = new LinkedHashMap<>();
        for (Outcome o : Outcome.values()) {
            c.put(o, (int) results.stream().filter(r -> r.outcome() == o).count());
        }
        return c;
    }

    Optional<Outcome> outcomeOf(String test) {
        return results.stream().filter(r -> r.name().equals(test)).map(Result::outcome).findFirst();
    }

    /** The category of a failed or erred test: its name is known and its report holds the known fragment. */
    Optional<Category> categoryOf(Result r) {
        if (r.outcome() == Outcome.SKIPPED) {
            return SKIPS.stream().filter(s -> s.reason().matcher(r.reason()).matches()).map(SkipRule::category)
                    .findFirst();
        }
        if (r.outcome() == Outcome.OK) {
            return Optional.empty();
        }
        String report = reportOf(r.name());
        return KNOWN.stream().filter(k -> k.test().equals(r.name()) && report.contains(k.fragment()))
                .map(Known::category).findFirst();
    }

    /**
     * Everything that did not pass and that no category explains (a model defect until shown otherwise): test
     * name, outcome and reason.
     */
    List<Result> unclassified() {
        return results.stream().filter(r -> r.outcome() != Outcome.OK && categoryOf(r).isEmpty()).toList();
    }

    /** Per category, how many tests it explains. */
    Map<String, Integer> byCategory() {
        Map<String, Integer> m = new TreeMap<>();
        for (Result r : results) {
            categoryOf(r).ifPresent(c -> m.merge(c.name(), 1, Integer::sum));
        }
        return m;
    }

    /**
     * The report of a failed test: from its "ERROR: name" / "FAIL: name" header to the next separator, plus the
     * lines a test's subprocesses printed before its outcome ("Player active got: ...").
     */
    private String reportOf(String test) {
        StringBuilder b = new StringBuilder();
        for (String header : new String[] {"ERROR: " + test + " (", "FAIL: " + test + " ("}) {
            int at = output.indexOf(header);
            if (at >= 0) {
                int end = output.indexOf("\n======", at);
                b.append(output, at, end < 0 ? output.length() : end).append('\n');
            }
        }
        int line = output.indexOf(test + " (tests.");
        if (line >= 0) {
            int end = output.indexOf("\n", output.indexOf(" ... ", line) + 5);
            b.append(output, line, end < 0 ? output.length() : end + 1).append('\n');
            int outcomeLine = output.indexOf("\nERROR\n", line);
            if (outcomeLine >= 0 && outcomeLine < line + 4000) {
                b.append(output, line, outcomeLine + 1);
            }
        }
        return b.toString();
    }
}
