package dev.irdmaemu.cm.verbs;

import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.driver.IrdmaDriver;
import dev.irdmaemu.cm.driver.ModelHardwarePort;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.List;
import java.util.function.Consumer;

/** An {@link IrdmaDriver} brought up on a {@link ScriptedDevice}, with the verbs on it. */
final class Rig implements AutoCloseable {
    static final long MAC = 0x02_00_00_00_00_0aL;
    static final long RAM_BASE = 0x8000_0000L;

    final SimScheduler scheduler = new SimScheduler(7);
    final HostMemory memory = new HostMemory();
    final HostRam ram;
    final ScriptedDevice device;
    final IrdmaDriver driver;
    final IrdmaVerbs verbs;
    /** The CM's port on the driver when built {@link #withPort()}, else null. */
    final ModelHardwarePort port;
    /** The CQP ops of the bring-up (the device's list starts empty after it). */
    final List<ScriptedDevice.Op> bringUpOps;

    Rig() {
        this(d -> { }, false);
    }

    Rig(Consumer<IrdmaDriver> beforeBringUp) {
        this(beforeBringUp, false);
    }

    /** A rig whose verbs are a {@link ModelHardwarePort}'s (192.0.2.1 on the port). */
    static Rig withPort() {
        return new Rig(d -> { }, true);
    }

    private Rig(Consumer<IrdmaDriver> beforeBringUp, boolean withPort) {
        ram = new HostRam(memory, RAM_BASE, 32L << 20);
        device = new ScriptedDevice(ram);
        driver = new IrdmaDriver(ram, scheduler);
        device.interrupts(driver.interruptSink());
        driver.bind(device);
        driver.macAddress(MAC);
        beforeBringUp.accept(driver);
        driver.bringUp();
        if (withPort) {
            port = new ModelHardwarePort(driver, MAC, List.of(LocalAddress.untagged("192.0.2.1")));
            verbs = port.verbs();
        } else {
            port = null;
            verbs = new IrdmaVerbs(driver);
        }
        bringUpOps = List.copyOf(device.ops);
        device.ops.clear();
    }

    /** Runs {@code nanos} of simulated time (0: what is due now, and what that arms for now). */
    void settle(long nanos) {
        scheduler.runFor(nanos);
    }

    /** Runs the scheduler until nothing is pending (bounded). */
    void settle() {
        scheduler.runUntilIdle(scheduler.now() + 60_000_000_000L);
    }

    @Override
    public void close() {
        ram.close();
    }
}
