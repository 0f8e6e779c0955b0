package dev.irdmaemu.bridge.boot;

/**
 * A hosted node's counters at one moment: simulated time, the frames to and from the guest, what the LAN function
 * did, and the connection manager's nodes and outcomes ({@code cmNodesLeft} is what a clean run ends with 0 of).
 */
public record NodeCounters(long simulatedNanos, long framesFromGuest, long framesToGuest, long framesToGuestDropped,
                           long portDropped, long lanFrames, long lanAnswered, long lanMalformed, int neighbours,
                           long cmNodesCreated, long cmNodesDestroyed, int cmNodesLeft, int cmListeners,
                           long cmAccepts, long cmRejects, long cmPassiveErrors, long cmConnectErrors, int qps) {
}
