package dev.irdmaemu.bridge.model;

import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.cm.driver.ModelHardwarePort;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.trace.Trace;
import java.util.List;
import java.util.function.Consumer;

/**
 * One simulated host with the device model: host RAM, an {@link E810RdmaFunction} whose MSI-X goes to an
 * {@link IrdmaDriver}, the driver brought up as irdma's probe does, its {@link IrdmaVerbs}, a
 * {@link ModelHardwarePort} on it and a {@link ConnectionManager} on that, the device's Ethernet port plugged into
 * a {@link Link}.
 */
public final class ModelNode implements AutoCloseable {
    /** Where each node's host RAM starts in its guest-physical space (any page-aligned address works). */
    public static final long RAM_BASE = 0x4000_0000L;
    public static final long RAM_SIZE = 64L << 20;

    public final HostMemory memory = new HostMemory();
    public final HostRam ram;
    public final E810RdmaFunction device;
    public final IrdmaDriver driver;
    public final IrdmaVerbs verbs;
    public final ModelHardwarePort port;
    public final ConnectionManager cm;
    public final LinkPort wire;

    /**
     * Builds and brings up a node. {@code beforeBringUp} may configure the driver (e.g. no ILQ buffers) before the
     * probe runs.
     */
    public ModelNode(SimScheduler scheduler, Link link, Trace trace, long mac, List<LocalAddress> addresses,
                     FaultProfile outbound, Consumer<IrdmaDriver> beforeBringUp) {
        ram = new HostRam(memory, RAM_BASE, RAM_SIZE);
        driver = new IrdmaDriver(ram, scheduler);
        device = new E810RdmaFunction(scheduler, memory, driver.interruptSink(), trace, new LatencyTable());
        driver.bind(device);
        wire = device.attach(link, mac, outbound);
        beforeBringUp.accept(driver);
        driver.bringUp();
        port = new ModelHardwarePort(driver, mac, addresses);
        verbs = port.verbs();
        cm = new ConnectionManager(port);
    }

    /** Stops the driver's timers (irdma's stats timer, irdma_vsi_stats_free) and frees the host RAM. */
    @Override
    public void close() {
        driver.tearDown();
        ram.close();
    }
}
