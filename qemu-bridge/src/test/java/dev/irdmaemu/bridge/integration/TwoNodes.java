package dev.irdmaemu.bridge.integration;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.driver.ModelHardwarePort;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import dev.irdmaemu.model.trace.Trace;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Two model nodes (device, driver, verbs, CM on each) with CmPair's addresses and MACs, A and B, on one scheduler:
 * either on one {@link Link} with a {@link FaultProfile} for each direction, or each on a link of its own joined by
 * a {@link Relay} that hands every frame across and may change one on the way (what a corruption that no TCP
 * checksum catches looks like).
 */
final class TwoNodes implements AutoCloseable {
    /** Something that sees (and may change in place) each frame the relay carries, A to B ({@code toB}) or back. */
    @FunctionalInterface
    interface Relay {
        void carry(boolean toB, BytesStore<?, ?> frame, long offset, int length);
    }

    final SimScheduler scheduler;
    final Link link;
    final Link linkB;
    final ModelNode a;
    final ModelNode b;

    private TwoNodes(long seed, FaultProfile aOut, FaultProfile bOut, FrameTap tap, UnaryOperator<Trace> traceA,
                     UnaryOperator<Trace> traceB, Relay relay) {
        scheduler = new SimScheduler(seed);
        link = new Link(scheduler, tap);
        linkB = relay == null ? link : new Link(scheduler, tap);
        List<LocalAddress> addrA = List.of(LocalAddress.of(CmPair.A_V4, 0xffff), LocalAddress.of(CmPair.A_V6, 0xffff));
        List<LocalAddress> addrB = List.of(LocalAddress.of(CmPair.B_V4, 0xffff), LocalAddress.of(CmPair.B_V6, 0xffff));
        a = new ModelNode(scheduler, link, traceA.apply(new Trace(scheduler)), CmPair.MAC_A, addrA, aOut, d -> { });
        b = new ModelNode(scheduler, linkB, traceB.apply(new Trace(scheduler)), CmPair.MAC_B, addrB, bOut, d -> { });
        if (relay != null) {
            // on A's link the relay answers to B's MAC, on B's link to A's: each node sees the other as its peer
            LinkPort[] ports = new LinkPort[2];
            ports[0] = link.attach(CmPair.MAC_B, FaultProfile.delay(0), (s, o, l) -> {
                relay.carry(true, s, o, l);
                ports[1].transmit(s, o, l);
            });
            ports[1] = linkB.attach(CmPair.MAC_A, FaultProfile.delay(0), (s, o, l) -> {
                relay.carry(false, s, o, l);
                ports[0].transmit(s, o, l);
            });
        }
        ModelHardwarePort.neighbours(a.port, b.port);
    }

    /** On one link, {@code aOut} applying to A's frames and {@code bOut} to B's; tracing off. */
    static TwoNodes linked(long seed, FaultProfile aOut, FaultProfile bOut) {
        return new TwoNodes(seed, aOut, bOut, FrameTap.NONE, t -> t, t -> t, null);
    }

    /** On one perfect link, every frame through {@code tap}; each node's trace set up by {@code traceA} / {@code traceB}. */
    static TwoNodes linked(FrameTap tap, UnaryOperator<Trace> traceA, UnaryOperator<Trace> traceB) {
        return new TwoNodes(1, FaultProfile.NONE, FaultProfile.NONE, tap, traceA, traceB, null);
    }

    /** Each node on a perfect link of its own, joined by {@code relay}; frames through {@code tap} on both links. */
    static TwoNodes relayed(Relay relay, FrameTap tap, UnaryOperator<Trace> traceA, UnaryOperator<Trace> traceB) {
        return new TwoNodes(1, FaultProfile.NONE, FaultProfile.NONE, tap, traceA, traceB, relay);
    }

    /** Runs events until {@code done} holds; false when it does not within {@code limitNanos} of simulated time. */
    boolean runUntil(BooleanSupplier done, long limitNanos) {
        long end = scheduler.now() + limitNanos;
        while (!done.getAsBoolean()) {
            if (scheduler.nextDeadline() > end || !scheduler.runNext()) {
                return done.getAsBoolean();
            }
        }
        return true;
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
