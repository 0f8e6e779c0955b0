package dev.irdmaemu.bridge.boot;

/**
 * A hosted node's counters at one moment: simulated time, the frames to and from the guest, what the LAN function
 * did, the connection manager's nodes and outcomes ({@code cmNodesLeft} is what a clean run ends with 0 of), and
 * what the driver's verbs and the device's tables hold, against what the bring-up left in them (the PUDA queues):
 * a run that leaks nothing ends with {@link #leaks()} empty.
 *
 * @param firstConnectionNanos simulated time from the end of the node's bring-up (where the wall-clock pacing
 *                             starts) to the first accepting MPA reply on the wire, either way; -1 before one
 * @param cmListenerChildren   not-yet-destroyed passive connection nodes of listeners
 * @param verbsQps             QPs, CQs and memory regions the verbs hold for consumers
 * @param deviceQps            QPs and CQs in the device's tables, STags in its memory region table, established
 *                             quad hash entries
 * @param deviceQpsAtBringUp   the device's QPs and CQs right after the bring-up (CQP, ILQ, IEQ and their CQs)
 */
public record NodeCounters(long simulatedNanos, long framesFromGuest, long framesToGuest, long framesToGuestDropped,
                           long portDropped, long lanFrames, long lanAnswered, long lanMalformed, int neighbours,
                           long cmNodesCreated, long cmNodesDestroyed, int cmNodesLeft, int cmListeners,
                           long cmAccepts, long cmRejects, long cmPassiveErrors, long cmConnectErrors, int qps,
                           long firstConnectionNanos, int cmListenerChildren, int verbsQps, int verbsCqs,
                           int verbsMrs, int deviceQps, int deviceCqs, int deviceStags, int deviceQhashEstablished,
                           int deviceQpsAtBringUp, int deviceCqsAtBringUp) {

    /** What a finished run should have given back, by name, with how many are left; empty when nothing is. */
    public java.util.Map<String, Integer> leaks() {
        java.util.Map<String, Integer> m = new java.util.LinkedHashMap<>();
        put(m, "CM nodes", cmNodesLeft);
        put(m, "listener children", cmListenerChildren);
        put(m, "connections on a QP", qps);
        put(m, "verbs QPs", verbsQps);
        put(m, "verbs CQs", verbsCqs);
        put(m, "verbs MRs", verbsMrs);
        put(m, "device QPs beyond the PUDA ones", deviceQps - deviceQpsAtBringUp);
        put(m, "device CQs beyond the PUDA ones", deviceCqs - deviceCqsAtBringUp);
        put(m, "device STags", deviceStags);
        put(m, "established quad hash entries", deviceQhashEstablished);
        return m;
    }

    private static void put(java.util.Map<String, Integer> m, String what, int left) {
        if (left != 0) {
            m.put(what, left);
        }
    }
}
