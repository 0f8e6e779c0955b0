package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.ucmatose.UcmatoseClient;
import dev.irdmaemu.cm.ucmatose.UcmatoseOptions;
import dev.irdmaemu.cm.ucmatose.UcmatoseResult;
import dev.irdmaemu.cm.ucmatose.UcmatoseRun;
import dev.irdmaemu.cm.ucmatose.UcmatoseServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One round of a ucmatose scenario on the node: several ucmatose runs at once (servers on their ports, or clients
 * each to its port), as many as the guest runs processes against them, with their results. The guest splits its
 * connections over several processes because one process cannot hold more than 36 of them on siw (see the
 * scenarios' comments), so the node's side of a round of 100 connections is one server for all of them, or four
 * clients of 25.
 */
final class UcmatoseRound {
    final String name;
    final List<UcmatoseOptions> options;
    private final List<UcmatoseRun> runs = new ArrayList<>();
    private final List<UcmatoseResult> results = new ArrayList<>();
    private int attempts;

    UcmatoseRound(String name, List<UcmatoseOptions> options) {
        if (options.isEmpty()) {
            throw new IllegalArgumentException("a round of no runs");
        }
        this.name = name;
        this.options = List.copyOf(options);
    }

    /** Starts every run of the round (again, with fresh runs, after a failed attempt); {@code whenDone} hears each end. */
    void start(HostedNode node, Runnable whenDone, int portOffset) {
        attempts++;
        runs.clear();
        results.clear();
        for (UcmatoseOptions o : options) {
            UcmatoseOptions each = o.server() ? o : o.fromPort(o.source().port() + portOffset);
            UcmatoseRun r = o.server() ? new UcmatoseServer(node.cm, node.port.verbs(), each)
                    : new UcmatoseClient(node.cm, node.port.verbs(), each);
            runs.add(r);
            r.onDone(result -> {
                results.add(result);
                whenDone.run();
            });
        }
        for (UcmatoseRun r : List.copyOf(runs)) {
            r.start();
        }
    }

    /** Every run of the round has ended. */
    boolean done() {
        return !runs.isEmpty() && results.size() == runs.size();
    }

    boolean ok() {
        return done() && results.stream().allMatch(UcmatoseResult::ok);
    }

    /**
     * The round failed only because its clients found nobody listening yet: none connected and each failed on a
     * reset (the guest's kernel answers a SYN to a port nobody listens on with one).
     */
    boolean refusedBeforeListening() {
        if (!done() || runs.stream().anyMatch(r -> !(r instanceof UcmatoseClient))) {
            return false;
        }
        return runs.stream().map(r -> (UcmatoseClient) r)
                .allMatch(c -> !c.wasConnected() && c.connectFailure() == dev.irdmaemu.cm.CmReason.PEER_RESET);
    }

    /** Stops the runs still going (the boot is ending). */
    void stop() {
        for (UcmatoseRun r : List.copyOf(runs)) {
            r.stop();
        }
    }

    int attempts() {
        return attempts;
    }

    int connections() {
        return options.stream().mapToInt(UcmatoseOptions::connections).sum();
    }

    /**
     * The round's summary fields, {@code NAME_established}, {@code _disconnected}, {@code _messages} (sent and
     * received), {@code _establish_ms} (simulated time for all to come up, on the slowest run) and
     * {@code _rate} (connections per second over that), and {@code _failure} when one failed.
     */
    void fields(Map<String, String> f) {
        int established = 0;
        int disconnected = 0;
        long sent = 0;
        long received = 0;
        long establish = -1;
        String failure = "";
        for (UcmatoseRun r : runs) {
            UcmatoseResult x = r.result();
            if (x == null) {
                established += r.established();
                failure = failure.isEmpty() ? "unfinished" : failure;
                continue;
            }
            established += x.established();
            disconnected += x.disconnected();
            sent += x.messagesSent();
            received += x.messagesReceived();
            establish = x.establishNanos() < 0 || establish == -2 ? -2 : Math.max(establish, x.establishNanos());
            if (!x.ok() && failure.isEmpty()) {
                failure = x.failure();
            }
        }
        int n = connections();
        f.put(name + "_established", established + "/" + n);
        f.put(name + "_disconnected", disconnected + "/" + n);
        if (options.get(0).messages() > 0) {
            f.put(name + "_messages_sent", Long.toString(sent));
            f.put(name + "_messages_received", Long.toString(received));
        }
        if (establish > 0) {
            f.put(name + "_establish_ms", String.format(Locale.ROOT, "%.1f", establish / 1e6));
            f.put(name + "_rate", String.format(Locale.ROOT, "%.0f/s", n / (establish / 1e9)));
        }
        if (attempts > 1) {
            f.put(name + "_attempts", Integer.toString(attempts));
        }
        if (!failure.isEmpty()) {
            f.put(name + "_failure", failure.replace(' ', '_'));
        }
    }
}
