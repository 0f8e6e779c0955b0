package dev.irdmaemu.bridge.vfiouser;

import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.argsz;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.regionRead;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.setIrqs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.boot.ModelLoop;
import dev.irdmaemu.bridge.vfiouser.VfioUserClient.Reply;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.pci.E810PciFunction;
import dev.irdmaemu.model.pci.FunctionBlock;
import dev.irdmaemu.model.trace.Trace;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.newsclub.net.unix.AFPipe;
import org.newsclub.net.unix.AFUNIXSelectorProvider;

/**
 * device-model's E810 PF behind the vfio-user server on a model loop, driven by the Java client: the config space
 * QEMU reads at realize, BAR sizing and the read-only ROM, an MSI-X message from the RDMA block reaching the
 * client's eventfd, DEVICE_RESET and FLR reaching the function; and the kit's QEMU realizing, enumerating and
 * resetting it.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class E810VfioUserFunctionTest {
    static final int CONFIG = 7;
    static final long DSN = 0x0011_22ff_ff33_4455L;

    @TempDir
    Path dir;

    private SimScheduler scheduler;
    private DmaSpace dma;
    private E810VfioUserFunction device;
    private ModelLoop loop;
    private VfioUserServer server;

    static E810VfioUserFunction build(SimScheduler scheduler, DmaSpace dma) {
        Trace trace = new Trace(scheduler);
        E810RdmaFunction rdma = new E810RdmaFunction(scheduler, dma.writable(), null, trace, new LatencyTable());
        return new E810VfioUserFunction(sink -> new E810PciFunction(rdma, FunctionBlock.NONE, DSN, sink));
    }

    @BeforeEach
    void start() throws Exception {
        scheduler = new SimScheduler(1);
        dma = new DmaSpace();
        device = build(scheduler, dma);
        loop = new ModelLoop("e810-vfio-user", scheduler, System::nanoTime, () -> false);
        loop.start();
        server = VfioUserServer.start(dir.resolve("e810.sock"), device, loop::execute, dma);
    }

    @AfterEach
    void stop() {
        server.close();
        loop.close();
    }

    private <T> T onLoop(java.util.concurrent.Callable<T> task) throws Exception {
        return loop.call(task, Duration.ofSeconds(10));
    }

    @Test
    void theE810ConfigSpaceBarsAndResetsReachTheFunction() throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
            VfioUserServerTest.ok(c.negotiate());
            VfioUserServerTest.ok(c.call(VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16)));
            Reply cfg = c.call(VfioUserCommand.REGION_READ, regionRead(CONFIG, 0, 4096));
            VfioUserServerTest.ok(cfg);
            ByteBuffer space = ByteBuffer.wrap(cfg.payload.array(), 16, 4096).slice().order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(0x8086, space.getShort(0) & 0xffff);
            assertEquals(0x1592, space.getShort(2) & 0xffff);
            int dsn = E810PciFunction.DSN_CAP;
            assertEquals(0x0003, space.getShort(dsn) & 0xffff, "DSN extended capability");
            assertEquals(DSN, space.getLong(dsn + 4), "the NIC's serial number");
            // the MSI-X table size QEMU will read matches the vectors the server offers eventfds for
            int msixFlags = space.getShort(E810PciFunction.MSIX_CAP + 2) & 0x7ff;
            assertEquals(E810PciFunction.MSIX_VECTORS - 1, msixFlags);
            Reply irq = c.call(VfioUserCommand.DEVICE_GET_IRQ_INFO, VfioUserClient.indexed(16, 16, 2));
            assertEquals(E810PciFunction.MSIX_VECTORS, irq.payload.getInt(12));

            long bar0 = c.read(CONFIG, 0x10, 4);
            assertEquals(0xc, bar0 & 0xf, "64-bit prefetchable memory");
            VfioUserServerTest.ok(c.write(CONFIG, 0x10, 4, 0xffffffffL));
            assertEquals((~(E810PciFunction.BAR0_SIZE - 1) & 0xfffffff0L) | 0xc, c.read(CONFIG, 0x10, 4));
            VfioUserServerTest.ok(c.write(CONFIG, 0x30, 4, 0xfffff800L));
            assertEquals(0, c.read(CONFIG, 0x30, 4), "no ROM");

            VfioUserServerTest.ok(c.call(VfioUserCommand.DEVICE_RESET, null));
            assertEquals(1L, (long) onLoop(() -> device.function().deviceResets()));
            assertEquals(0xc, c.read(CONFIG, 0x10, 4), "BAR0 back to its type bits");
            // FLR: Initiate Function Level Reset in the Express capability's DEVCTL
            VfioUserServerTest.ok(c.write(CONFIG, E810PciFunction.EXP_CAP + 8, 2, 0x8000));
            assertEquals(1L, (long) onLoop(() -> device.function().flrs()));
        }
    }

    @Test
    void anMsixMessageOfTheRdmaBlockReachesTheClientsEventfd() throws Exception {
        int vector = 4;
        try (VfioUserClient c = new VfioUserClient(server.socketPath());
                AFPipe eventfd = AFUNIXSelectorProvider.provider().openPipe()) {
            VfioUserServerTest.ok(c.negotiate());
            VfioUserServerTest.ok(c.write(CONFIG, 0x04, 2, 0x0006)); // memory space, bus master
            VfioUserServerTest.ok(c.write(CONFIG, E810PciFunction.MSIX_CAP + 2, 2, 0x8000)); // MSI-X enable
            VfioUserServerTest.ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 0, 1)));
            VfioUserServerTest.ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, vector, 1),
                    VfioUserServerTest.fd(eventfd.sink())));
            c.post(0, Gen2Register.GLINT_DYN_CTL.at(vector), 4, Gen2Registers.dynCtlEnable(0) & 0xffffffffL);
            assertEquals(0x8086, c.read(CONFIG, 0, 2)); // the posted write is done
            E810RdmaFunction rdma = (E810RdmaFunction) device.function().rdma(); // the block this test built
            loop.execute(() -> rdma.vectorCauses().raise(vector));
            ByteBuffer event = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            while (event.hasRemaining()) {
                eventfd.source().read(event);
            }
            assertEquals(1, event.getLong(0), "one 8-byte event of value 1");
            assertEquals(1L, (long) onLoop(() -> device.function().msixSent()));
            assertTrue(server.interruptsRaised() >= 1);
        }
    }

    @Test
    void qemuRealizesEnumeratesAndResetsTheE810() throws Exception {
        server.close(); // the QEMU run starts its own server on this loop and space
        VfioUserQemuTest.realizeEnumerateResetAndReconnect(device, dma, loop,
                () -> {
                    try {
                        return (int) (long) onLoop(() -> device.function().deviceResets());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "e810");
    }
}
