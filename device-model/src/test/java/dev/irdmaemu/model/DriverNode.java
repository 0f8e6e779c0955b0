package dev.irdmaemu.model;

import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceSink;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The model brought up by the real driver, for the model's tests: an {@link E810RdmaFunction} on simulated time,
 * probed by the driver module's {@link IrdmaDriver} as bridge.boot.HostedNode does ({@code new IrdmaDriver(ram,
 * scheduler)}, {@code bind}, {@code bringUp}), with the {@link IrdmaVerbs} on it. A test that needs a CQP op the
 * driver never sends (a hostile field, an unusual order) posts it through {@link #op} on the driver's own CQP,
 * written with the firmware-iface writers.
 */
public final class DriverNode implements AutoCloseable {
    public static final long RAM_BASE = 0x4000_0000L;
    public static final long RAM_SIZE = 64L << 20;
    /** An address no region maps. */
    public static final long UNMAPPED = 0x7_0000_0000L;

    public final SimScheduler scheduler;
    public final HostMemory memory = new HostMemory();
    public final HostRam ram;
    public final RecordingTraceSink sink = new RecordingTraceSink();
    public final Trace trace;
    public final E810RdmaFunction dev;
    public final IrdmaDriver driver;
    public final IrdmaVerbs verbs;
    /** The vectors the device raised since {@link #recordInterrupts()} (the driver handles each as well). */
    public final List<Integer> interrupts = new ArrayList<>();
    private boolean recordingInterrupts;
    public final LatencyTable latency = new LatencyTable();
    /** The port's end of the link, when built on one. */
    private LinkPort linkPort;

    /** One CQP op's outcome as the driver saw it: its return value, or the error completion's codes. */
    public record Completion(boolean error, int major, int minor, long opReturn) {
    }

    /** The port's MAC when the test names none (what the model's other tests call the local side). */
    public static final long DEFAULT_MAC = 0x02_00_00_00_00_01L;

    /** A node on its own scheduler, MAC {@link #DEFAULT_MAC}, on no link. */
    public DriverNode() {
        this(RAM_SIZE, new SimScheduler(7), d -> d.macAddress(DEFAULT_MAC));
    }

    /**
     * A node on {@code scheduler} whose port is on {@code link} with {@code mac} (attached before the probe, as
     * bridge.model.ModelNode does), the driver knowing that MAC.
     */
    public DriverNode(SimScheduler scheduler, Link link, long mac) {
        this(RAM_SIZE, scheduler, (n, d) -> {
            n.linkPort = n.dev.attach(link, mac, FaultProfile.NONE);
            d.macAddress(mac);
        });
    }

    /**
     * A node of {@code ramSize} bytes on {@code scheduler} whose port is on {@code link} with {@code mac}, its
     * outbound frames through {@code outbound} (loss, reordering ...), the driver knowing that MAC.
     */
    public DriverNode(long ramSize, SimScheduler scheduler, Link link, long mac, FaultProfile outbound) {
        this(ramSize, scheduler, (n, d) -> {
            n.linkPort = n.dev.attach(link, mac, outbound);
            d.macAddress(mac);
        });
    }

    /** The same, the driver configured by {@code beforeBringUp} (after the MAC) before the probe runs. */
    public DriverNode(long ramSize, SimScheduler scheduler, Link link, long mac, FaultProfile outbound,
                      Consumer<IrdmaDriver> beforeBringUp) {
        this(ramSize, scheduler, (n, d) -> {
            n.linkPort = n.dev.attach(link, mac, outbound);
            d.macAddress(mac);
            beforeBringUp.accept(d);
        });
    }

    /** A node on {@code scheduler} whose driver {@code beforeBringUp} may configure before the probe runs. */
    public DriverNode(long ramSize, SimScheduler scheduler, Consumer<IrdmaDriver> beforeBringUp) {
        this(ramSize, scheduler, (n, d) -> beforeBringUp.accept(d));
    }

    private DriverNode(long ramSize, SimScheduler scheduler, BiConsumer<DriverNode, IrdmaDriver> beforeBringUp) {
        this.scheduler = scheduler;
        trace = new Trace(scheduler).enableAll(sink);
        ram = new HostRam(memory, RAM_BASE, ramSize);
        driver = new IrdmaDriver(ram, scheduler);
        InterruptSink toDriver = driver.interruptSink();
        dev = new E810RdmaFunction(scheduler, memory, vector -> {
            if (recordingInterrupts) {
                interrupts.add(vector);
            }
            toDriver.raise(vector);
        }, trace, latency);
        driver.bind(dev);
        beforeBringUp.accept(this, driver);
        driver.bringUp();
        verbs = new IrdmaVerbs(driver);
    }

    public LinkPort linkPort() {
        return linkPort;
    }

    public BytesStore<?, ?> store() {
        return ram.store();
    }

    public long off(long gpa) {
        return ram.offsetOf(gpa);
    }

    public long alloc(long bytes) {
        return ram.allocate(bytes);
    }

    /** Runs the model until it is idle (bounded: a livelock fails the test instead of hanging it). */
    public void run() {
        if (!scheduler.runUntilIdle(scheduler.now() + 10_000_000_000L)) {
            throw new AssertionError("model did not go idle");
        }
    }

    /**
     * Posts one WQE on the driver's CQP, written by {@code writer} (store offset, valid bit), and waits for its
     * completion in the CCQ; an error completion is answered, not thrown.
     */
    public Completion op(String name, IrdmaDriver.WqeWriter writer) {
        try {
            return new Completion(false, 0, 0, driver.cqp().op(name, writer));
        } catch (CqpException e) {
            if (!e.errorCompletion()) {
                throw e;
            }
            return new Completion(true, e.major(), e.minor(), 0);
        }
    }

    /** Reads {@code len} bytes of host memory at {@code gpa}. */
    public byte[] read(long gpa, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = store().readByte(off(gpa) + i);
        }
        return b;
    }

    public void fill(long gpa, long len, int value) {
        for (long i = 0; i < len; i++) {
            store().writeByte(off(gpa) + i, (byte) value);
        }
    }

    /** A node (MAC {@link #DEFAULT_MAC}) whose trace goes to {@code alsoTo} as well, from the probe's first step. */
    public DriverNode(TraceSink alsoTo) {
        this(RAM_SIZE, new SimScheduler(7), (n, d) -> {
            RecordingTraceSink recording = n.sink;
            n.trace.enableAll(e -> {
                recording.accept(e);
                alsoTo.accept(e);
            });
            d.macAddress(DEFAULT_MAC);
        });
    }

    /** From now on, {@link #interrupts} records each vector the device raises (off by default: it allocates). */
    public DriverNode recordInterrupts() {
        recordingInterrupts = true;
        return this;
    }

    /** A register read as a test pokes it, past the driver (BAR0). */
    public int reg(Gen2Register r) {
        return dev.read32(r.offset());
    }

    /** A register write as a test pokes it, past the driver: what irdma would not write, or not then. */
    public void write(Gen2Register r, int v) {
        dev.write32(r.offset(), v);
    }

    public void write(Gen2Register r, int index, int v) {
        dev.write32(r.at(index), v);
    }

    /** Runs a driver operation that waits for its CQP op, its error completion answered rather than thrown. */
    public Completion answer(Runnable driverOp) {
        try {
            driverOp.run();
            return new Completion(false, 0, 0, 0);
        } catch (CqpException e) {
            if (!e.errorCompletion()) {
                throw e;
            }
            return new Completion(true, e.major(), e.minor(), 0);
        }
    }

    @Override
    public void close() {
        ram.close();
    }
}
