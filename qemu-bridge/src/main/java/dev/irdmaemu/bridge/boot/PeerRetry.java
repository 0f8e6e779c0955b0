package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.fw.sim.SimTimer;

/**
 * A node client's wait for its peer and its timer for trying again. rdma_resolve_addr needs the peer's MAC
 * (drivers/infiniband/core/cma.c and addr.c resolve the neighbour before a connect may start), so the first try
 * waits until the node has heard the peer (its ARP or ND); a try that found nobody listening is repeated after a delay on the model's clock. A stop before
 * the peer is known leaves the first try unstarted, and cancels a repeat on its way.
 */
final class PeerRetry {
    private SimTimer timer;
    /** Stopped before the peer was known: a late neighbour must not start anything. */
    private boolean stopped;

    /** Runs {@code first} once {@code node} knows {@code peer}, and {@code again} at each {@link #againIn}. */
    void arm(HostedNode node, String service, IpEndpoint peer, Runnable first, Runnable again) {
        timer = node.scheduler.newTimer(service + "-retry", again);
        node.whenNeighbourKnown(peer, () -> {
            if (!stopped) {
                first.run();
            }
        });
    }

    /** The next try in {@code millis} milliseconds of simulated time. */
    void againIn(long millis) {
        timer.scheduleIn(millis * 1_000_000L);
    }

    /** No next try (the outcome is in). */
    void cancel() {
        if (timer != null) {
            timer.cancel();
        }
    }

    /** The service stops: no first try if the peer comes later, and no next try. */
    void stop() {
        stopped = true;
        cancel();
    }
}
