package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * Before the consumers tear down, once the clock has run past every timeout: a node may remain only while a
     * consumer holds it, an offloaded connection (its QP and its consumer own it) or an indicated request the
     * consumer has not answered (MPAREQ_RCVD, LISTENER_DESTROYED). A passive ESTABLISHED node (handshake done, no
     * MPA request yet) is also allowed: cm.c arms nothing there either, it counts against its listener's backlog
     * (irdma's pending accepts) and goes with the listener. Any other state means a peer alone pins the node.
     */
    static void assertOnlyConsumersHold(CmPair p) {
        assertOnlyConsumersHold("A", p.a);
        assertOnlyConsumersHold("B", p.b);
    }

    static void assertOnlyConsumersHold(String name, ConnectionManager cm) {
        for (CmNode n : cm.nodes()) {
            boolean held = switch (n.state()) {
                case OFFLOADED, MPAREQ_RCVD, LISTENER_DESTROYED -> true;
                case ESTABLISHED -> !n.isActive() && n.listener != null;
                default -> false;
            };
            assertTrue(held, () -> "a peer alone holds a node on " + name + ": " + describe(cm));
        }
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
        assertEquals(0, device.addressHandles(), () -> "address handles left on " + name);
        assertEquals(0, device.sendsWithoutAh(), () -> "ILQ sends through an AH that did not exist on " + name);
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
