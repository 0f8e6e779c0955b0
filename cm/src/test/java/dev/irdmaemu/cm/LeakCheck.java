package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.hw.InMemoryHardwarePort;
import dev.irdmaemu.fw.sim.SimScheduler;

/**
 * After a scenario has been torn down: nothing the CMs, the scheduler or the device stand-ins hold is left. Used
 * by every cm property after each try, so a hostile or silent peer that pins memory fails the try that did it.
 */
final class LeakCheck {
    private LeakCheck() {
    }

    /** Both CMs of the pair, the shared scheduler and both devices (quad hash, QPs, accelerated ports). */
    static void assertNothingHeld(CmPair p) {
        assertNothingHeld("A", p.a);
        assertNothingHeld("B", p.b);
        assertNoTimers(p.scheduler);
        assertNothingHeld("device A", p.deviceA);
        assertNothingHeld("device B", p.deviceB);
    }

    /** One CM: no node, no listener, every node it created destroyed. */
    static void assertNothingHeld(String name, ConnectionManager cm) {
        assertEquals(0, cm.nodeCount(), () -> "nodes left on " + name + ": " + describe(cm));
        assertEquals(0, cm.listenerCount(), () -> "listeners left on " + name);
        assertEquals(cm.nodesCreated(), cm.nodesDestroyed(), () -> "nodes created and destroyed on " + name);
    }

    static void assertNoTimers(SimScheduler scheduler) {
        assertEquals(0, scheduler.pendingTimers(), () -> "timers left: " + scheduler.describePending());
    }

    static void assertNothingHeld(String name, InMemoryHardwarePort device) {
        assertEquals(0, device.qhashEntries().size(), () -> "quad hash entries left on " + name + ": "
                + device.qhashEntries());
        assertEquals(0, device.qpCount(), () -> "QPs left on " + name);
        assertEquals(0, device.acceleratedPortsInUse(), () -> "accelerated ports left on " + name);
        assertEquals(0, device.steeringEntries(), () -> "steering entries left on " + name);
    }

    static String describe(ConnectionManager cm) {
        StringBuilder b = new StringBuilder();
        for (CmNode n : cm.nodes()) {
            b.append(n).append(" refs=").append(n.references).append(" sendEntry=").append(n.sendEntry)
                    .append(" rexmit=").append(n.retransmitTimer).append(" close=").append(n.closeTimer)
                    .append(" establish=").append(n.establishTimer).append("; ");
        }
        return b.toString();
    }
}
