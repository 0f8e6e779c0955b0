package dev.irdmaemu.bridge.boot;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What every {@link HostedService} holds the same way: its name, and its outcome, completed once. The first report
 * stands (a client's own result before the stop, or the stop's); a later one, as a stop after the result was in,
 * changes nothing. The model side of rping and ucmatose (rdma-core's librdmacm/examples) has no such object: it is
 * the boot's bookkeeping of the programs it hosts.
 */
abstract class ReportingService implements HostedService {
    private final String name;
    private final CompletableFuture<ServiceOutcome> outcome = new CompletableFuture<>();

    ReportingService(String name) {
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final CompletableFuture<ServiceOutcome> outcome() {
        return outcome;
    }

    /** Whether the outcome is in: nothing more is reported, and a client starts nothing new. */
    final boolean reported() {
        return outcome.isDone();
    }

    /** Completes the outcome with {@code fields} for the summary, unless it is in already. */
    final void report(boolean ok, Map<String, String> fields) {
        outcome.complete(new ServiceOutcome(name, ok, fields));
    }
}
