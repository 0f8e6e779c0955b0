package dev.irdmaemu.bench;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.trace.Trace;

/**
 * One E810 model brought up by the cm module's driver layer, as irdma's probe does, the way the benchmarks build
 * their nodes: 64 MiB of host RAM, the driver bound to the device, the device's port on a link (if any), the
 * driver's bring-up; tracing off. Closing the RAM frees it.
 */
record BenchNode(HostMemory memory, HostRam ram, IrdmaDriver driver, E810RdmaFunction device) {
    static final long RAM_BASE = 0x4000_0000L;
    static final long RAM_SIZE = 64L << 20;

    /** A node on {@code s}, its port on {@code link} with {@code mac} ({@code link} null: on none). */
    static BenchNode bringUp(SimScheduler s, Link link, long mac) {
        HostMemory memory = new HostMemory();
        HostRam ram = new HostRam(memory, RAM_BASE, RAM_SIZE);
        IrdmaDriver driver = new IrdmaDriver(ram, s);
        E810RdmaFunction device = new E810RdmaFunction(s, memory, driver.interruptSink(), new Trace(s),
                new LatencyTable());
        driver.bind(device);
        if (link != null) {
            device.attach(link, mac, FaultProfile.NONE);
        }
        driver.bringUp();
        return new BenchNode(memory, ram, driver, device);
    }
}
