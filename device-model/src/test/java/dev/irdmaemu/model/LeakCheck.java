package dev.irdmaemu.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The objects a function holds (QPs, CQs, STags, quad-hash entries, APBVT ports, work-scheduler nodes and
 * qs_handles, address handles, scheduler timers), taken after a
 * scenario's bring-up and compared once the scenario's driver has torn down what it created: anything beyond the
 * bring-up's is a leak. Property tests take a {@link #snapshot} after bring-up and call {@link #assertNoLeak} at
 * the end of each try.
 */
public final class LeakCheck {
    /** What one function holds. */
    public record Held(int qps, int cqs, int stags, int qhashEstablished, int qhashListen, int apbvtPorts,
                       int wsNodes, int qsHandles, int addressHandles, int pendingTimers) {
    }

    private LeakCheck() {
    }

    public static Held snapshot(E810RdmaFunction dev) {
        return new Held(dev.qps().liveCount(), dev.cqs().liveCount(), dev.stags().liveCount(),
                dev.quadHash().establishedCount(), dev.quadHash().listenCount(), dev.apbvt().size(),
                dev.workScheduler().liveCount(), dev.workScheduler().qsHandlesInUse(), dev.addressHandles().liveCount(),
                dev.scheduler().pendingTimers());
    }

    /** Fails naming every kind of object {@code dev} holds beyond {@code baseline}. */
    public static void assertNoLeak(Held baseline, E810RdmaFunction dev, String scenario) {
        Held now = snapshot(dev);
        List<String> leaks = new ArrayList<>();
        leak(leaks, "QPs", baseline.qps(), now.qps());
        leak(leaks, "CQs", baseline.cqs(), now.cqs());
        leak(leaks, "STags", baseline.stags(), now.stags());
        leak(leaks, "qhash established", baseline.qhashEstablished(), now.qhashEstablished());
        leak(leaks, "qhash listen", baseline.qhashListen(), now.qhashListen());
        leak(leaks, "APBVT ports", baseline.apbvtPorts(), now.apbvtPorts());
        leak(leaks, "WS nodes", baseline.wsNodes(), now.wsNodes());
        leak(leaks, "qs_handles", baseline.qsHandles(), now.qsHandles());
        leak(leaks, "address handles", baseline.addressHandles(), now.addressHandles());
        if (now.pendingTimers() > baseline.pendingTimers()) {
            leaks.add("timers " + baseline.pendingTimers() + " -> " + now.pendingTimers() + " ("
                    + dev.scheduler().describePending() + ")");
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError("left behind after " + scenario + ": " + String.join(", ", leaks));
        }
    }

    /** Fails when {@code count} objects of {@code what} are left where the scenario should have left none. */
    public static void assertNone(String what, long count, String scenario) {
        if (count != 0) {
            throw new AssertionError("left behind after " + scenario + ": " + count + " " + what);
        }
    }

    /** Fails when {@code scheduler} still has events armed (a timer nobody cancelled). */
    public static void assertNoTimers(dev.irdmaemu.fw.sim.SimScheduler scheduler, String scenario) {
        if (scheduler.pendingTimers() != 0) {
            throw new AssertionError("left behind after " + scenario + ": timers " + scheduler.describePending());
        }
    }

    private static void leak(List<String> leaks, String what, long before, long now) {
        if (now != before) {
            leaks.add(what + " " + before + " -> " + now);
        }
    }
}
