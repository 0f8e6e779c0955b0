package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.model.pci.E810PciFunction;
import java.util.Objects;
import java.util.function.Function;

/**
 * The E810 physical function of device-model ({@link E810PciFunction}: config space with its write masks, BAR0
 * dispatch, the MSI-X BAR, FLR and device reset) served as a vfio-user device. The function keeps the PCI
 * behaviour; this adapter only maps the protocol's calls onto it and its MSI-X messages onto the client's
 * eventfds, the way QEMU keeps igb.c (bus glue) apart from igb_core.c.
 *
 * <p>Threading is the server's: every call but {@link #attach} runs on the model's owner thread. MSI-X messages
 * the function sends before a client is attached, or for a vector with no eventfd, are dropped and counted by
 * the server ({@link VfioUserServer#interruptsDropped()}).
 *
 * <p>DMA: the function's RDMA block reads and writes guest memory through one {@code HostMemory}. Give it the
 * server's {@link DmaSpace#writable()} view (build the space first, then the model, then
 * {@link VfioUserServer#start(java.nio.file.Path, VfioUserFunction, java.util.concurrent.Executor, DmaSpace)}), so
 * QEMU's read-only windows (ROM shadows) stay out of the device's reach.
 */
public final class E810VfioUserFunction implements VfioUserFunction {
    private final E810PciFunction function;
    private final String name;
    private volatile VfioUserInterrupts interrupts;

    /**
     * Builds the function with {@code build}, handing it the interrupt sink it must raise its MSI-X vectors on
     * (this adapter's, which forwards to the server's eventfds).
     */
    public E810VfioUserFunction(Function<InterruptSink, E810PciFunction> build) {
        InterruptSink sink = this::raise;
        this.function = Objects.requireNonNull(build.apply(sink), "the built function");
        this.name = String.format("e810 dsn %016x", function.serialNumber());
    }

    private void raise(int vector) {
        VfioUserInterrupts i = interrupts;
        if (i != null) {
            i.raiseMsix(vector);
        }
    }

    /** The function served. Touch it on the owner thread only. */
    public E810PciFunction function() {
        return function;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long barSize(int bar) {
        return function.barSize(bar);
    }

    @Override
    public int configRead(int offset, int size) {
        return function.configRead(offset, size);
    }

    @Override
    public void configWrite(int offset, int size, int value) {
        function.configWrite(offset, size, value);
    }

    @Override
    public long barRead(int bar, long offset, int size) {
        return function.barRead(bar, offset, size);
    }

    @Override
    public void barWrite(int bar, long offset, int size, long value) {
        function.barWrite(bar, offset, size, value);
    }

    @Override
    public int msixVectors() {
        return function.msixVectors();
    }

    @Override
    public void reset() {
        function.reset();
    }

    @Override
    public void attach(VfioUserInterrupts irq, DmaSpace dma) {
        this.interrupts = irq;
    }
}
