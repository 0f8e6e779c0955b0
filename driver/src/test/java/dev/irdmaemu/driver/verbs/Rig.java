package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

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
    /** The CQP ops of the bring-up (the device's list starts empty after it). */
    final List<ScriptedDevice.Op> bringUpOps;

    Rig() {
        this(d -> { }, IrdmaVerbs::new);
    }

    Rig(Consumer<IrdmaDriver> beforeBringUp) {
        this(beforeBringUp, IrdmaVerbs::new);
    }

    /**
     * A rig whose verbs come from {@code verbsOf} once the driver is up (cm's tests: the verbs of the CM's port on
     * the driver).
     */
    Rig(Consumer<IrdmaDriver> beforeBringUp, Function<IrdmaDriver, IrdmaVerbs> verbsOf) {
        ram = new HostRam(memory, RAM_BASE, 32L << 20);
        device = new ScriptedDevice(ram);
        driver = new IrdmaDriver(ram, scheduler);
        device.interrupts(driver.interruptSink());
        driver.bind(device);
        driver.macAddress(MAC);
        beforeBringUp.accept(driver);
        driver.bringUp();
        verbs = verbsOf.apply(driver);
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
