package dev.irdmaemu.bridge.model;

import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.cm.driver.ModelHardwarePort;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceSink;
import java.io.Writer;
import java.util.List;
import java.util.function.Consumer;

/**
 * Two {@link ModelNode}s on one {@link SimScheduler} joined by one {@link Link}: node A holds CmPair's A addresses
 * (192.0.2.1, 2001:db8::1, 198.51.100.1 on VLAN 100) with MAC {@link CmPair#MAC_A}, node B the B ones. Each
 * node's model traces into its own sink (null: tracing off).
 */
public final class ModelPair implements AutoCloseable {
    public final SimScheduler scheduler;
    public final Link link;
    public final Trace traceA;
    public final Trace traceB;
    public final ModelNode a;
    public final ModelNode b;

    public ModelPair(long seed, FrameTap tap, TraceSink sinkA, TraceSink sinkB, Consumer<IrdmaDriver> configureA,
                     Consumer<IrdmaDriver> configureB) {
        scheduler = new SimScheduler(seed);
        link = new Link(scheduler, tap);
        traceA = sinkA == null ? new Trace(scheduler) : new Trace(scheduler).enableAll(sinkA);
        traceB = sinkB == null ? new Trace(scheduler) : new Trace(scheduler).enableAll(sinkB);
        List<LocalAddress> addrA = List.of(LocalAddress.of(CmPair.A_V4, 0xffff), LocalAddress.of(CmPair.A_V6, 0xffff),
                LocalAddress.of(CmPair.A_VLAN, CmPair.VLAN));
        List<LocalAddress> addrB = List.of(LocalAddress.of(CmPair.B_V4, 0xffff), LocalAddress.of(CmPair.B_V6, 0xffff),
                LocalAddress.of(CmPair.B_VLAN, CmPair.VLAN));
        a = new ModelNode(scheduler, link, traceA, CmPair.MAC_A, addrA, FaultProfile.NONE, configureA);
        b = new ModelNode(scheduler, link, traceB, CmPair.MAC_B, addrB, FaultProfile.NONE, configureB);
        ModelHardwarePort.neighbours(a.port, b.port);
    }

    public ModelPair(FrameTap tap, TraceSink sinkA, TraceSink sinkB) {
        this(1, tap, sinkA, sinkB, d -> { }, d -> { });
    }

    public ModelPair() {
        this(FrameTap.NONE, null, null);
    }

    /**
     * Both nodes' traces as JSON lines into one writer, each line tagged {@code "node":"A"} or {@code "node":"B"};
     * no tracing when {@code traceOut} is null.
     */
    public static ModelPair tracingTo(FrameTap tap, Writer traceOut) {
        return new ModelPair(tap, traceOut == null ? null : new JsonLinesTraceSink(traceOut, "\"node\":\"A\""),
                traceOut == null ? null : new JsonLinesTraceSink(traceOut, "\"node\":\"B\""));
    }

    public boolean runUntilIdle(long limitNanos) {
        return scheduler.runUntilIdle(scheduler.now() + limitNanos);
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
