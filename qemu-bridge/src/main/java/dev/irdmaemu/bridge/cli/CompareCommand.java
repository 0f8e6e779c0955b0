package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.boot.BootOptions;
import dev.irdmaemu.bridge.run.BootReport;
import dev.irdmaemu.bridge.run.BootRun;
import dev.irdmaemu.bridge.boot.BootScenario;
import dev.irdmaemu.bridge.kit.GuestKit;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code irdma-emu compare}: the benchmark command of the E810 path. The same scenarios against the hosted node,
 * interleaved in one run, with the guest on the emulated E810 (the stock irdma.ko, the model doing TCP) and on
 * virtio-net (siw, the guest's kernel doing TCP under TCG): rping's 65535-byte throughput, ucmatose's connection
 * rates, boot to the first established connection, and the ping scenario's average round trip over IPv4 and IPv6
 * (busybox ping's avg of its echoes, through the ice rings on the E810 and virtio-net's on the other); each figure's
 * median over the runs, and E810 over virtio. {@code --only} picks figures by name, and only their scenarios boot.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Benchmark: rping throughput (100 pings of 65535 bytes), ucmatose connection rates, boot to "
                + "the first connection and ping round-trip times, with the guest's irdma on the emulated E810 "
                + "against the guest's siw on virtio-net, interleaved in one run; prints each run and the medians."})
final class CompareCommand extends VerboseCommand {
    @Option(names = "--runs", paramLabel = "N", defaultValue = "3",
            description = "Runs of each scenario on each NIC (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--out", paramLabel = "DIR", description = "Where the runs' folders go (default: "
            + "target/compare/<date-time>).")
    Path out;

    @Option(names = "--only", paramLabel = "FIGURE", split = ",", description = "Only the figures whose name "
            + "starts with one of these words, case ignored (e.g. ping, rping, ucmatose, boot); only their scenarios "
            + "boot. Default: all.")
    List<String> only;

    private static final BootOptions.Nic[] NICS = {BootOptions.Nic.E810, BootOptions.Nic.VIRTIO};
    /** figure name → the scenario it comes from and the guest's field (null: boot to the first connection). */
    private static final Map<String, String[]> FIGURES = new LinkedHashMap<>();

    static {
        FIGURES.put("rping MB/s", new String[] {"rping-throughput", "rping_mb_per_s"});
        FIGURES.put("ucmatose connect/s", new String[] {"ucmatose-client", "connect_rate"});
        FIGURES.put("ucmatose exchange/s", new String[] {"ucmatose-client", "exchange_rate"});
        FIGURES.put("boot to 1st connection s", new String[] {"rping-client", null});
        FIGURES.put("ping4 RTT ms", new String[] {"ping", "ping4_rtt_avg_ms"});
        FIGURES.put("ping6 RTT ms", new String[] {"ping", "ping6_rtt_avg_ms"});
        // 20 echoes after the three above (which include ARP / ND and the model's cold code), and the same 20 to
        // QEMU's own user-mode gateway from the same guest (virtio-net boots only): the baseline device (issue 17)
        FIGURES.put("ping4 warm RTT ms", new String[] {"ping", "ping4_warm_rtt_avg_ms"});
        FIGURES.put("ping4 user-net RTT ms", new String[] {"ping", "usernet_ping4_rtt_avg_ms"});
    }

    /** The figures {@code only} selects (all when it is empty), in their table order. */
    static Map<String, String[]> selected(List<String> only) {
        Map<String, String[]> m = new LinkedHashMap<>();
        for (Map.Entry<String, String[]> f : FIGURES.entrySet()) {
            boolean take = only == null || only.isEmpty();
            for (String w : only == null ? List.<String>of() : only) {
                String word = w.trim().toLowerCase(Locale.ROOT);
                String name = f.getKey().toLowerCase(Locale.ROOT);
                // "ping" picks ping4/ping6, not rping: a word matches the name's start up to a digit or a space
                take |= !word.isEmpty() && name.startsWith(word) && (name.length() == word.length()
                        || !Character.isLetter(name.charAt(word.length())));
            }
            if (take) {
                m.put(f.getKey(), f.getValue());
            }
        }
        return m;
    }

    /** The median of the values, the mean of the middle two for an even count; null for none. */
    static Double median(List<Double> v) {
        if (v == null || v.isEmpty()) {
            return null;
        }
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    @Override
    public Integer call() throws CliFailure, InterruptedException {
        if (runs < 1 || runs > 50) {
            throw new CliFailure(ExitCodes.USAGE, "compare: --runs is 1..50", null);
        }
        Map<String, String[]> figures = selected(only);
        if (figures.isEmpty()) {
            throw new CliFailure(ExitCodes.USAGE, "compare: --only " + only + " selects no figure of "
                    + FIGURES.keySet(), null);
        }
        PrintWriter pw = out();
        GuestKit kit = BootCommand.kit(err());
        Path base = out != null ? out : BootOptions.newRunDir(Path.of("target", "compare"));
        Map<String, List<Double>> values = new LinkedHashMap<>();
        boolean allOk = true;
        List<String> scenarios = figures.values().stream().map(f -> f[0]).distinct().toList();
        for (int run = 1; run <= runs; run++) {
            for (String scenario : scenarios) {
                for (BootOptions.Nic nic : NICS) {
                    BootOptions o = BootOptions.of(BootScenario.named(scenario),
                            base.resolve(nic.word() + "-" + scenario + "-" + run)).withNic(nic);
                    BootReport r = new BootRun(kit, o, null).run();
                    allOk &= r.ok();
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "run %d %-7s %-17s %s",
                            run, nic.word(), scenario, r.ok() ? "ok" : "FAILED (" + r.failureHeadline() + ")"));
                    for (Map.Entry<String, String[]> f : figures.entrySet()) {
                        if (!f.getValue()[0].equals(scenario) || !r.ok()) {
                            continue;
                        }
                        Double v = figure(r, f.getValue()[1]);
                        if (v != null) {
                            values.computeIfAbsent(nic.word() + "|" + f.getKey(), k -> new ArrayList<>()).add(v);
                            line.append(String.format(Locale.ROOT, "  %s %.2f", f.getKey(), v));
                        }
                    }
                    pw.println(line);
                    pw.flush();
                }
            }
        }
        pw.println();
        pw.printf(Locale.ROOT, "%-26s %14s %14s %8s%n", "median of " + runs, "irdma (E810)", "siw (virtio)",
                "ratio");
        for (String figure : figures.keySet()) {
            Double e = median(values.get("e810|" + figure));
            Double v = median(values.get("virtio|" + figure));
            pw.printf(Locale.ROOT, "%-26s %14s %14s %8s%n", figure, e == null ? "-" : String.format(Locale.ROOT,
                    "%.2f", e), v == null ? "-" : String.format(Locale.ROOT, "%.2f", v),
                    e == null || v == null || v == 0 ? "-" : String.format(Locale.ROOT, "%.2f", e / v));
        }
        pw.println("runs in " + base);
        pw.flush();
        return allOk ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private static Double figure(BootReport r, String field) {
        if (field == null) {
            Duration d = r.firstConnection();
            return d == null ? null : d.toMillis() / 1000.0;
        }
        String value = r.guest().field(field);
        if (value == null) {
            return null;
        }
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
