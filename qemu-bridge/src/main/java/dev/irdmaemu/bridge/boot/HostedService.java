package dev.irdmaemu.bridge.boot;

import java.util.concurrent.CompletableFuture;

/**
 * A program the hosted node runs for a scenario, as a ULP on the node's connection manager and verbs: the model
 * side of rping or ucmatose. The boot starts each one on the model thread once
 * the node is up and before the guest boots, waits for the guest's result, then stops them.
 *
 * <p>All three methods run on the model thread ({@link HostedNode#loop()}); the service schedules its own work
 * there (CM upcalls, {@code SimTimer}s) and never blocks it.
 */
public interface HostedService {
    /** A short name for progress lines and the summary, e.g. {@code "rping-client"}. */
    String name();

    /** Starts: listens, or arms its first connect. The node is up; the guest has not booted yet. */
    void start(HostedNode node);

    /**
     * Completes with the service's outcome when it has one: a client when it is done, a server at the latest in
     * {@link #stop}. Completed on the model thread.
     */
    CompletableFuture<ServiceOutcome> outcome();

    /**
     * Whether the service may report its {@link #outcome()} before it is stopped, so the boot waits a while for it
     * once the guest's result is in; false for a server that reports only in {@link #stop}.
     */
    default boolean reportsBeforeStop() {
        return true;
    }

    /**
     * The run is ending (the guest's result is in, or the run is being torn down): release listeners and
     * connections, and complete {@link #outcome()} if it is not yet.
     */
    void stop(HostedNode node);
}
