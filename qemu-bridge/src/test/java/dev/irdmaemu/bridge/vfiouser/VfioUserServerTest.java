package dev.irdmaemu.bridge.vfiouser;

import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.argsz;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.dmaMap;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.dmaUnmap;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.indexed;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.regionRead;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.setIrqs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.boot.ModelLoop;
import dev.irdmaemu.bridge.vfiouser.VfioUserClient.Reply;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.newsclub.net.unix.AFPipe;
import org.newsclub.net.unix.AFUNIXSelectorProvider;
import org.newsclub.net.unix.FileDescriptorAccess;

/**
 * The server against a well-behaved client that speaks as QEMU 11.1.3 does (vfio-user-facts.md §1.3-§1.5): the
 * realize sequence, MSI-X eventfds (pipes standing in: the same 8-byte events), DMA into an fd-backed window,
 * posted writes, reset, and a client leaving while the device keeps its state.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VfioUserServerTest {
    static final int CONFIG = 7;
    static final long RAM_IOVA = 0x4000_0000L;
    static final long RAM_SIZE = 1 << 20;

    @TempDir
    Path dir;

    private TestFunction device;
    private VfioUserServer server;
    private Path shm;

    @BeforeEach
    void start() throws IOException {
        device = new TestFunction();
        server = VfioUserServer.start(dir.resolve("e810.sock"), device, Runnable::run);
        shm = Files.createTempFile(Path.of("/dev/shm"), "vfio-user-test", ".ram");
        try (RandomAccessFile f = new RandomAccessFile(shm.toFile(), "rw")) {
            f.setLength(RAM_SIZE);
        }
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        Files.deleteIfExists(shm);
    }

    private FileChannelHolder ram() throws IOException {
        return new FileChannelHolder(shm);
    }

    /** The RAM file opened like QEMU's memfd, its descriptor sent with DMA_MAP. */
    static final class FileChannelHolder implements AutoCloseable {
        final RandomAccessFile file;

        FileChannelHolder(Path p) throws IOException {
            file = new RandomAccessFile(p.toFile(), "rw");
        }

        long readLong(long at) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            file.getChannel().read(b, at);
            return b.getLong(0);
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }

    static void ok(Reply r) {
        assertFalse(r.isError(), () -> "error reply " + r);
    }

    @Test
    void theRealizeSequenceOfQemu11IsAnswered() throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath()); FileChannelHolder ram = ram()) {
            // 1. VERSION: QEMU's 214-byte request; the reply must fit in it and be NUL-terminated JSON
            int requestSize = VfioUserHeader.SIZE + VfioUserClient.version(0, 0, VfioUserClient.QEMU_CAPS).capacity();
            assertEquals(214, requestSize, "the request QEMU 11.1.3 sends");
            Reply v = c.negotiate();
            ok(v);
            assertTrue(v.size() <= 214, "reply of " + v.size() + " bytes");
            assertEquals(0, v.payload.getShort(0));
            assertEquals(0, v.payload.getShort(2));
            assertEquals(0, v.payload.get(v.payload.capacity() - 1), "NUL-terminated");
            String json = new String(v.payload.array(), 4, v.payload.capacity() - 5, StandardCharsets.US_ASCII);
            assertTrue(json.contains("\"max_msg_fds\":16"), json);
            assertTrue(json.contains("\"max_data_xfer_size\":1048576"), json);
            assertTrue(json.contains("\"pgsizes\":4096"), json);
            assertFalse(json.contains("twin_socket"), json);

            // 2. DMA_MAP before GET_INFO: RAM (flags 3, one fd), pc.bios read-only without a descriptor
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, RAM_IOVA, RAM_SIZE), ram.file.getFD()));
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(1, 0, 0xfffc0000L, 256 << 10)));
            assertEquals(2, device.windowEvents.size());
            assertEquals(1, server.dma().readable().regions(), "only the fd-backed window is mapped here");

            // 3. DEVICE_GET_INFO
            Reply info = c.call(VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16));
            ok(info);
            assertEquals(16, info.payload.capacity());
            assertEquals(16, info.payload.getInt(0));
            assertEquals(DeviceInfoPayload.FLAG_RESET | DeviceInfoPayload.FLAG_PCI, info.payload.getInt(4));
            assertEquals(9, info.payload.getInt(8));
            assertEquals(5, info.payload.getInt(12));

            // 4. GET_REGION_INFO 0..5 and 7: sizes, READ|WRITE on present regions, never MMAP
            long[] expected = {TestFunction.BAR0_SIZE, 0, 0, TestFunction.BAR3_SIZE, 0, 0, 0, 4096};
            for (int i : new int[] {0, 1, 2, 3, 4, 5, 7}) {
                Reply r = c.call(VfioUserCommand.DEVICE_GET_REGION_INFO, indexed(32, 32, i));
                ok(r);
                assertEquals(32, r.payload.capacity());
                assertEquals(32, r.payload.getInt(0));
                assertEquals(i, r.payload.getInt(8));
                assertEquals(expected[i], r.payload.getLong(16), "region " + i);
                assertEquals(expected[i] != 0 ? 3 : 0, r.payload.getInt(4), "flags of region " + i);
            }
            // a smaller argsz gets that much, argsz saying the full size (the caller retries with more)
            Reply small = c.call(VfioUserCommand.DEVICE_GET_REGION_INFO, indexed(16, 32, 3));
            ok(small);
            assertEquals(16, small.payload.capacity());
            assertEquals(32, small.payload.getInt(0));
            assertEquals(3, small.payload.getInt(8));
            // a larger argsz gets the 32 bytes, argsz saying the full size
            Reply big = c.call(VfioUserCommand.DEVICE_GET_REGION_INFO, indexed(64, 32, 0));
            ok(big);
            assertEquals(32, big.payload.capacity());
            assertEquals(32, big.payload.getInt(0));

            // 5. GET_IRQ_INFO: ERR count 1, MSI-X the device's vectors, INTx 0
            assertEquals(1, c.call(VfioUserCommand.DEVICE_GET_IRQ_INFO, indexed(16, 16, 3)).payload.getInt(12));
            assertEquals(TestFunction.VECTORS,
                    c.call(VfioUserCommand.DEVICE_GET_IRQ_INFO, indexed(16, 16, 2)).payload.getInt(12));
            assertEquals(0, c.call(VfioUserCommand.DEVICE_GET_IRQ_INFO, indexed(16, 16, 0)).payload.getInt(12));

            // 6. the whole config space in one read
            Reply cfg = c.call(VfioUserCommand.REGION_READ, regionRead(CONFIG, 0, 4096));
            ok(cfg);
            assertEquals(16 + 4096, cfg.payload.capacity());
            assertEquals(4096, cfg.payload.getInt(12));
            assertEquals(0x8086, cfg.payload.getShort(16) & 0xffff);
            assertEquals(0x1592, cfg.payload.getShort(18) & 0xffff);
            assertEquals(0x00010003, cfg.payload.getInt(16 + 0x100), "DSN at 0x100");
            assertEquals(1, server.counters().fullConfigReads());

            // 7. ROM sizing: 0x30 reads 0 and ignores writes
            ok(c.write(CONFIG, 0x30, 4, 0xfffff800L));
            assertEquals(0, c.read(CONFIG, 0x30, 4));
            // 8. BAR sizing through config (QEMU forwards it): BAR0 answers its size mask with its type bits
            ok(c.write(CONFIG, 0x10, 4, 0xffffffffL));
            assertEquals(~(TestFunction.BAR0_SIZE - 1) & 0xfffffff0L | 4, c.read(CONFIG, 0x10, 4));
            // 9. MSI-X cap as QEMU reads it
            assertEquals(TestFunction.VECTORS - 1, c.read(CONFIG, 0x52, 2) & 0x7ff);
            assertEquals(3, c.read(CONFIG, 0x54, 4));
            // 10. interrupt pin 0
            assertEquals(0, c.read(CONFIG, 0x3d, 1));

            // 11. machine reset: DEVICE_RESET brings the device back to power-on
            ok(c.call(VfioUserCommand.DEVICE_RESET, null));
            assertEquals(1, device.resets.get());
            assertEquals(4, c.read(CONFIG, 0x10, 4), "BAR0 back to its type bits");

            // 12. DMA_UNMAP with the exact window, echoing the entry
            Reply un = c.call(VfioUserCommand.DMA_UNMAP, dmaUnmap(0, 0xfffc0000L, 256 << 10));
            ok(un);
            assertEquals(24, un.payload.capacity());
            assertEquals(0xfffc0000L, un.payload.getLong(8));

            VfioUserCounters n = server.counters();
            assertEquals(1, n.messages(VfioUserCommand.VERSION));
            assertEquals(2, n.messages(VfioUserCommand.DMA_MAP));
            assertEquals(1, n.messages(VfioUserCommand.DEVICE_GET_INFO));
            assertEquals(0b1011_1111, n.regionInfoQueried());
            assertEquals(9, n.messages(VfioUserCommand.DEVICE_GET_REGION_INFO));
            assertEquals(0, n.errorReplies());
        }
    }

    @Test
    void msixVectorsSignalTheirEventfdsAndReplacedOnesAreClosed() throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath());
                AFPipe first = AFUNIXSelectorProvider.provider().openPipe();
                AFPipe second = AFUNIXSelectorProvider.provider().openPipe();
                AFPipe err = AFUNIXSelectorProvider.provider().openPipe()) {
            ok(c.negotiate());
            // MSI-X enable: one vector, no descriptors ("enabled, no vectors")
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 0, 1)));
            assertEquals(0, server.msixAssigned());
            // unmask vector 5: its eventfd
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 5, 1), fd(first.sink())));
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 3, 0, 1), fd(err.sink())));
            assertEquals(1, server.msixAssigned());
            assertEquals(3, Fds.sharing(fd(first.sink())), "our two ends of the pipe and the server's copy");

            // the device raises vector 5 (a posted BAR write asks it to): 8 bytes, value 1
            c.post(0, TestFunction.IRQ, 8, 5);
            ByteBuffer event = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            while (event.hasRemaining()) {
                first.source().read(event);
            }
            assertEquals(1, event.getLong(0));
            // vector 6 has no eventfd: dropped, nothing written anywhere
            long dropped = server.interruptsDropped();
            c.post(0, TestFunction.IRQ, 8, 6);
            assertEquals(0, c.read(0, 0, 4), "the read after the posted write sees it done");
            assertEquals(dropped + 1, server.interruptsDropped());
            assertTrue(server.interrupts().raiseError());

            // re-assigning vector 5 closes the old descriptor
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 5, 1), fd(second.sink())));
            assertEquals(2, Fds.sharing(fd(first.sink())), "the replaced eventfd was closed");
            // fd-less EVENTFD de-assigns
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 5, 1)));
            assertEquals(2, Fds.sharing(fd(second.sink())));
            assertEquals(0, server.msixAssigned());
            // MSI-X disable: NONE + TRIGGER, count 0
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 7, 1), fd(second.sink())));
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x21, 2, 0, 0)));
            assertEquals(0, server.msixAssigned());
            assertEquals(2, Fds.sharing(fd(second.sink())));
            assertEquals(3, Fds.sharing(fd(err.sink())), "ERR keeps its eventfd while connected");
        }
        assertTrue(server.awaitClientsEnded(1, Duration.ofSeconds(10)));
    }

    static java.io.FileDescriptor fd(Object channel) throws IOException {
        return ((FileDescriptorAccess) channel).getFileDescriptor();
    }

    @Test
    void theDeviceWritesIntoAnFdBackedWindowAndNeverIntoAReadOnlyOne() throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath()); FileChannelHolder ram = ram()) {
            ok(c.negotiate());
            // first half writable, second half read-only (as QEMU maps PAM-shadowed ranges), same file
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, RAM_IOVA, RAM_SIZE / 2), ram.file.getFD()));
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(1, RAM_SIZE / 2, RAM_IOVA + RAM_SIZE / 2, RAM_SIZE / 2),
                    ram.file.getFD()));
            assertEquals(2, Fds.mappingsOf(shm));
            ok(c.call(VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16)));

            ok(c.write(0, TestFunction.DMA_ADDR, 8, RAM_IOVA + 0x1238));
            ok(c.write(0, TestFunction.DMA_GO, 8, 0x1122334455667788L));
            assertEquals(1, c.read(0, TestFunction.DMA_STATUS, 8), "the DMA went through");
            assertEquals(0x1122334455667788L, ram.readLong(0x1238), "the guest's memory holds it");

            ok(c.write(0, TestFunction.DMA_ADDR, 8, RAM_IOVA + RAM_SIZE / 2 + 0x40));
            ok(c.write(0, TestFunction.DMA_GO, 8, -1L));
            assertEquals(2, c.read(0, TestFunction.DMA_STATUS, 8), "a read-only window refuses device writes");
            assertEquals(0, ram.readLong(RAM_SIZE / 2 + 0x40));
            assertTrue(server.dma().readable().contains(RAM_IOVA + RAM_SIZE / 2 + 0x40, 8), "but can be read");

            // exact-match unmap; then DMA there fails and the mapping is gone from the process
            ok(c.call(VfioUserCommand.DMA_UNMAP, dmaUnmap(0, RAM_IOVA, RAM_SIZE / 2)));
            assertEquals(1, Fds.mappingsOf(shm));
            ok(c.write(0, TestFunction.DMA_ADDR, 8, RAM_IOVA + 0x2000));
            ok(c.write(0, TestFunction.DMA_GO, 8, 7));
            assertEquals(2, c.read(0, TestFunction.DMA_STATUS, 8));
            assertEquals(0, ram.readLong(0x2000));
            // unmap-all drops the rest
            ok(c.call(VfioUserCommand.DMA_UNMAP, dmaUnmap(DmaUnmapPayload.FLAG_ALL, 0, 0)));
            assertEquals(0, Fds.mappingsOf(shm));
            assertEquals(0, server.dma().readable().regions());
            assertEquals(0, server.dma().writable().regions());
        }
    }

    @Test
    void postedWritesGetNoReplyAndAreDoneBeforeTheNextRequest() throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
            ok(c.negotiate());
            for (int i = 0; i < 100; i++) {
                c.post(0, 8 * i, 8, 0x0101010101010101L * i);
            }
            assertTrue(c.silentFor(200), "no reply to a posted write");
            for (int i = 0; i < 100; i++) {
                assertEquals(0x0101010101010101L * i, c.read(0, 8 * i, 8));
            }
            assertEquals(100, server.counters().postedWrites());
            // sizes 1, 2, 4, 8 all reach the BAR at their offset
            c.post(0, 0x800, 1, 0xaa);
            c.post(0, 0x802, 2, 0xbbcc);
            c.post(0, 0x804, 4, 0x11223344L);
            assertEquals(0x11223344bbcc00aaL, c.read(0, 0x800, 8));
        }
    }

    @Test
    void aClientThatLeavesTakesItsWindowsAndEventfdsButNotTheDeviceState() throws Exception {
        try (FileChannelHolder ram = ram(); AFPipe irq = AFUNIXSelectorProvider.provider().openPipe()) {
            try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
                ok(c.negotiate());
                ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, RAM_IOVA, RAM_SIZE), ram.file.getFD()));
                ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 0, 1), fd(irq.sink())));
                ok(c.write(0, 0x40, 4, 0xcafe));
                ok(c.write(CONFIG, 0x04, 2, 0x0006)); // MEM + BME
            }
            assertTrue(server.awaitClientsEnded(1, Duration.ofSeconds(10)));
            assertEquals(0, Fds.mappingsOf(shm), "the window is unmapped");
            assertEquals(0, server.dma().readable().regions());
            assertEquals(2, Fds.sharing(fd(irq.sink())), "the eventfd is closed: only our pipe's two ends");
            assertEquals(0, server.msixAssigned());
            assertTrue(device.windowEvents.get(device.windowEvents.size() - 1).startsWith("-"));

            try (VfioUserClient next = new VfioUserClient(server.socketPath())) {
                ok(next.negotiate());
                assertEquals(0xcafe, next.read(0, 0x40, 4), "BAR state kept");
                assertEquals(0x0006, next.read(CONFIG, 0x04, 2), "config state kept");
            }
            assertEquals(0, device.resets.get(), "a disconnect is not a reset");
            assertEquals(2, server.clientsAccepted());
        }
    }

    @Test
    void aSecondConcurrentClientIsRefusedAndTheFirstKeepsGoing() throws Exception {
        try (VfioUserClient first = new VfioUserClient(server.socketPath())) {
            ok(first.negotiate());
            try (VfioUserClient second = new VfioUserClient(server.socketPath())) {
                assertTrue(second.closedByServer(), "the second client is closed");
            }
            assertEquals(1, server.counters().clientsRefused());
            assertEquals(0x8086, first.read(CONFIG, 0, 2));
        }
        assertTrue(server.awaitClientsEnded(1, Duration.ofSeconds(10)));
        try (VfioUserClient third = new VfioUserClient(server.socketPath())) {
            ok(third.negotiate());
        }
    }

    @Test
    void aCleanShutdownLeavesNoDescriptorOrMappingBehind() throws Exception {
        server.close();
        java.util.SortedMap<Integer, String> before = Fds.list();
        server = VfioUserServer.start(dir.resolve("leak.sock"), device, Runnable::run);
        try (FileChannelHolder ram = ram(); AFPipe irq = AFUNIXSelectorProvider.provider().openPipe()) {
            java.util.SortedMap<Integer, String> withOurs = Fds.list();
            VfioUserClient c = new VfioUserClient(server.socketPath());
            ok(c.negotiate());
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, RAM_IOVA, RAM_SIZE), ram.file.getFD()));
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 0, 1), fd(irq.sink())));
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 3, 0, 1), fd(irq.source())));
            assertTrue(Fds.added(withOurs).size() >= 4, "the server holds the sockets and the two eventfds");
            assertEquals(1, Fds.mappingsOf(shm));
            server.close(); // with the client still connected
            assertTrue(c.closedByServer());
            c.close();
            assertTrue(Fds.eventually(5_000, () -> Fds.added(withOurs).isEmpty()),
                    () -> "left behind: " + addedOrError(withOurs));
            assertEquals(0, Fds.mappingsOf(shm));
        }
        assertTrue(Fds.eventually(5_000, () -> Fds.added(before).isEmpty()), () -> "left behind: "
                + addedOrError(before));
    }

    private static String addedOrError(java.util.SortedMap<Integer, String> before) {
        try {
            return Fds.added(before).toString();
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void onAModelLoopEveryDeviceAccessRunsOnItsThread() throws Exception {
        server.close();
        try (ModelLoop loop = new ModelLoop("vfio-user-test", new SimScheduler(1), System::nanoTime, () -> false);
                FileChannelHolder ram = ram()) {
            loop.start();
            server = VfioUserServer.start(dir.resolve("loop.sock"), device, loop::execute);
            try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
                ok(c.negotiate());
                ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, RAM_IOVA, RAM_SIZE), ram.file.getFD()));
                ok(c.write(0, 0x10, 8, 42));
                c.post(0, 0x18, 8, 43);
                assertEquals(42, c.read(0, 0x10, 8));
                assertEquals(43, c.read(0, 0x18, 8));
                ok(c.call(VfioUserCommand.REGION_READ, regionRead(CONFIG, 0, 4096)));
                ok(c.call(VfioUserCommand.DEVICE_RESET, null));
                ok(c.call(VfioUserCommand.DMA_UNMAP, dmaUnmap(0, RAM_IOVA, RAM_SIZE)));
            }
            assertEquals(Set.of(loop.thread()), device.threads, "config, BAR, reset and DMA-window calls");
        }
    }

    /**
     * Not a timing assertion: logs the MMIO round trips per second a client gets (4-byte BAR reads, one at a time
     * as QEMU sends them under the BQL), called directly and through a model loop, and checks the connection
     * thread allocates nothing per access when it calls the device itself.
     */
    @Test
    void mmioRoundTripsAreMeasuredAndAllocateNothingOnTheServer() throws Exception {
        int n = 20_000;
        try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
            ok(c.negotiate());
            for (int i = 0; i < 2_000; i++) {
                c.read(0, 0x40, 4); // warm-up
            }
            Thread connection = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("vfio-user e810.sock#1")).findFirst().orElseThrow();
            com.sun.management.ThreadMXBean mx =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long allocated = mx.getThreadAllocatedBytes(connection.getId());
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                c.read(0, 0x40, 4);
            }
            long direct = System.nanoTime() - t0;
            long perAccess = (mx.getThreadAllocatedBytes(connection.getId()) - allocated) / n;
            org.slf4j.LoggerFactory.getLogger(VfioUserServerTest.class).info(
                    "vfio-user MMIO reads, device called directly: {} round trips/s, {} bytes allocated per access"
                    + " on the connection thread", n * 1_000_000_000L / direct, perAccess);
            assertEquals(0, perAccess, "bytes allocated per MMIO read on the connection thread");
        }
        server.close();
        try (ModelLoop loop = new ModelLoop("vfio-user-rate", new SimScheduler(1), System::nanoTime, () -> false)) {
            loop.start();
            server = VfioUserServer.start(dir.resolve("rate.sock"), device, loop::execute);
            try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
                ok(c.negotiate());
                for (int i = 0; i < 2_000; i++) {
                    c.read(0, 0x40, 4);
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    c.read(0, 0x40, 4);
                }
                long looped = System.nanoTime() - t0;
                org.slf4j.LoggerFactory.getLogger(VfioUserServerTest.class).info(
                        "vfio-user MMIO reads through a model loop: {} round trips/s", n * 1_000_000_000L / looped);
            }
        }
    }

    @Test
    void aDeviceThatThrowsFailsOneAccessWithEio() throws Exception {
        server.close();
        ExecutorService owner = Executors.newSingleThreadExecutor();
        TestFunction broken = new TestFunction() {
            @Override
            public long barRead(int bar, long offset, int size) {
                if (offset == 0x666) {
                    throw new IllegalStateException("model bug");
                }
                return super.barRead(bar, offset, size);
            }
        };
        try {
            server = VfioUserServer.start(dir.resolve("throw.sock"), broken, owner);
            try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
                ok(c.negotiate());
                Reply r = c.call(VfioUserCommand.REGION_READ, regionRead(0, 0x666, 2));
                assertTrue(r.isError());
                assertEquals(5, r.error, "EIO");
                assertEquals(0, c.read(0, 0x668, 2), "the connection goes on");
            }
        } finally {
            owner.shutdownNow();
        }
    }
}
