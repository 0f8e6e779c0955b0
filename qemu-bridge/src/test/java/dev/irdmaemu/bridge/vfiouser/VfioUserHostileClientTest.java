package dev.irdmaemu.bridge.vfiouser;

import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.argsz;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.buffer;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.dmaMap;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.dmaUnmap;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.indexed;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.regionRead;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.regionWrite;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.setIrqs;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.version;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Named.named;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.irdmaemu.bridge.vfiouser.VfioUserClient.Reply;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.newsclub.net.unix.AFPipe;
import org.newsclub.net.unix.AFUNIXSelectorProvider;
import org.slf4j.LoggerFactory;

/**
 * A hostile client, rule by rule. A malformed request gets the protocol's error reply with its errno and the
 * connection goes on serving (the next read still works); a broken stream closes the connection with a logged
 * reason. Either way every descriptor sent is closed, and the socket serves the next client, which finds the
 * device as it was.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VfioUserHostileClientTest {
    static final int EINVAL = 22;
    static final int ENOENT = 2;
    static final int EEXIST = 17;
    static final int ENOSYS = 38;
    static final int ENOTSUP = 95;
    static final int CONFIG = 7;

    @TempDir
    Path dir;

    private TestFunction device;
    private VfioUserServer server;
    private Path shm;
    private RandomAccessFile ram;
    private AFPipe pipe;
    private ListAppender<ILoggingEvent> log;
    private Logger logger;

    /** What the hostile client sends, given what it may attach. */
    interface Move {
        Reply send(VfioUserClient c, Kit kit) throws IOException;
    }

    /** Descriptors a case may attach: the RAM file, and a pipe end (not mappable). */
    static final class Kit {
        final FileDescriptor ram;
        final FileDescriptor pipe;

        Kit(FileDescriptor ram, FileDescriptor pipe) {
            this.ram = ram;
            this.pipe = pipe;
        }
    }

    @BeforeEach
    void start() throws IOException {
        logger = (Logger) LoggerFactory.getLogger("dev.irdmaemu.bridge.vfiouser");
        log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        device = new TestFunction();
        server = VfioUserServer.start(dir.resolve("hostile.sock"), device, Runnable::run);
        shm = Files.createTempFile(Path.of("/dev/shm"), "vfio-user-hostile", ".ram");
        ram = new RandomAccessFile(shm.toFile(), "rw");
        ram.setLength(1 << 20);
        pipe = AFUNIXSelectorProvider.provider().openPipe();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        pipe.close();
        ram.close();
        Files.deleteIfExists(shm);
        logger.detachAppender(log);
    }

    private Kit kit() throws IOException {
        return new Kit(ram.getFD(), VfioUserServerTest.fd(pipe.sink()));
    }

    private static Reply call(VfioUserClient c, int command, ByteBuffer payload, FileDescriptor... fds)
            throws IOException {
        return c.call(command, payload, fds);
    }

    private static Arguments error(String name, int errno, Move move) {
        return Arguments.of(named(name, move), errno);
    }

    /** Requests refused with an error reply, the connection kept. Cases run after VERSION and GET_INFO. */
    static Stream<Arguments> refusedRequests() {
        return Stream.of(
                error("unknown command 99", ENOSYS, (c, k) -> call(c, 99, null)),
                error("command 0", ENOSYS, (c, k) -> call(c, 0, null)),
                error("DMA_READ sent by the client", ENOSYS, (c, k) -> call(c, VfioUserCommand.DMA_READ, buffer(16))),
                error("GET_REGION_IO_FDS (not offered)", ENOSYS,
                        (c, k) -> call(c, VfioUserCommand.DEVICE_GET_REGION_IO_FDS, indexed(32, 16, 0))),
                error("a second VERSION", EINVAL, (c, k) -> call(c, VfioUserCommand.VERSION, version(0, 0, "{}"))),
                error("GET_INFO of 8 bytes", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_GET_INFO, argsz(16, 8))),
                error("GET_INFO with argsz 8", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.DEVICE_GET_INFO, argsz(8, 16))),
                error("GET_INFO with a descriptor", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16), k.pipe)),
                error("region info index 9", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.DEVICE_GET_REGION_INFO, indexed(32, 32, 9))),
                error("region info index -1", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.DEVICE_GET_REGION_INFO, indexed(32, 32, -1))),
                error("region info argsz 8", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.DEVICE_GET_REGION_INFO, indexed(8, 32, 0))),
                error("region info of 12 bytes", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.DEVICE_GET_REGION_INFO, indexed(32, 12, 0))),
                error("irq info index 5", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.DEVICE_GET_IRQ_INFO, indexed(16, 16, 5))),
                error("read of region 9", EINVAL, (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(9, 0, 4))),
                error("read of the absent ROM region", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(6, 0, 4))),
                error("read of absent BAR2", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(2, 0, 4))),
                error("read past BAR0's end", EINVAL, (c, k) -> call(c, VfioUserCommand.REGION_READ,
                        regionRead(0, TestFunction.BAR0_SIZE - 2, 4))),
                error("read at offset 2^64-16", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(0, -16, 8))),
                error("read of 3 bytes", EINVAL, (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(0, 0, 3))),
                error("read of 16 bytes of a BAR", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(0, 0, 16))),
                error("read of 4097 config bytes", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(CONFIG, 0, 4097))),
                error("config read of 3 bytes", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(CONFIG, 0, 3))),
                error("config read of 256 bytes", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(CONFIG, 0, 256))),
                error("config read across the end", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionRead(CONFIG, 4095, 2))),
                error("read with data attached", EINVAL,
                        (c, k) -> call(c, VfioUserCommand.REGION_READ, regionWrite(0, 0, 4, 1))),
                error("write shorter than its count", EINVAL, (c, k) -> call(c, VfioUserCommand.REGION_WRITE,
                        regionRead(0, 0, 4))),
                error("write of 4096 config bytes", EINVAL, (c, k) -> call(c, VfioUserCommand.REGION_WRITE,
                        buffer(16 + 4096).putInt(8, CONFIG).putInt(12, 4096))),
                error("write of count 0", EINVAL, (c, k) -> call(c, VfioUserCommand.REGION_WRITE,
                        regionWrite(0, 0, 0, 0))),
                error("SET_IRQS past the last vector", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_SET_IRQS,
                        setIrqs(0x24, 2, TestFunction.VECTORS - 1, 2))),
                error("SET_IRQS start 2^32-1 count 2 (wraps)", EINVAL, (c, k) -> call(c,
                        VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, -1, 2))),
                error("SET_IRQS count 0 with EVENTFD", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_SET_IRQS,
                        setIrqs(0x24, 2, 0, 0))),
                error("SET_IRQS two descriptors for one vector", EINVAL, (c, k) -> call(c,
                        VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 0, 1), k.pipe, k.pipe)),
                error("SET_IRQS one descriptor for two vectors", EINVAL, (c, k) -> call(c,
                        VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 0, 2), k.pipe)),
                error("SET_IRQS DATA_NONE with a descriptor", EINVAL, (c, k) -> call(c,
                        VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x21, 2, 0, 1), k.pipe)),
                error("SET_IRQS two actions", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_SET_IRQS,
                        setIrqs(0x4 | 0x20 | 0x8, 2, 0, 1))),
                error("SET_IRQS no data type", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_SET_IRQS,
                        setIrqs(0x20, 2, 0, 1))),
                error("SET_IRQS DATA_BOOL", ENOTSUP, (c, k) -> call(c, VfioUserCommand.DEVICE_SET_IRQS,
                        setIrqs(0x22, 2, 0, 1))),
                error("SET_IRQS INTx (no vectors)", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_SET_IRQS,
                        setIrqs(0x24, 0, 0, 1), k.pipe)),
                error("SET_IRQS index 7", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_SET_IRQS,
                        setIrqs(0x24, 7, 0, 1))),
                error("SET_IRQS of 16 bytes", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_SET_IRQS,
                        buffer(16).putInt(0, 20).putInt(4, 0x24).putInt(8, 2))),
                error("unmap of a window never mapped", ENOENT, (c, k) -> call(c, VfioUserCommand.DMA_UNMAP,
                        dmaUnmap(0, 0x1000_0000L, 0x1000))),
                error("unmap asking for a dirty bitmap", ENOTSUP, (c, k) -> call(c, VfioUserCommand.DMA_UNMAP,
                        dmaUnmap(1, 0x1000_0000L, 0x1000))),
                error("unmap-all with an address", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_UNMAP,
                        dmaUnmap(2, 0x1000_0000L, 0))),
                error("unmap with a descriptor", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_UNMAP,
                        dmaUnmap(0, 0x1000_0000L, 0x1000), k.ram)),
                error("DEVICE_RESET with a payload", EINVAL, (c, k) -> call(c, VfioUserCommand.DEVICE_RESET,
                        buffer(4))));
    }

    /** DMA_MAP refusals, sent before GET_INFO (after it, QEMU would abort on any error: see below). */
    static Stream<Arguments> refusedMaps() {
        return Stream.of(
                error("size 0", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP, dmaMap(3, 0, 0x10000, 0), k.ram)),
                error("unaligned address", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP,
                        dmaMap(3, 0, 0x10010, 0x1000), k.ram)),
                error("address + size past 2^63", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP,
                        dmaMap(3, 0, Long.MAX_VALUE - 0xfff, 0x2000), k.ram)),
                error("flag 4", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP, dmaMap(7, 0, 0x10000, 0x1000),
                        k.ram)),
                error("write-only", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP,
                        dmaMap(2, 0, 0x10000, 0x1000), k.ram)),
                error("two descriptors", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP,
                        dmaMap(3, 0, 0x10000, 0x1000), k.ram, k.ram)),
                error("a pipe as memory", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP,
                        dmaMap(3, 0, 0x10000, 0x1000), k.pipe)),
                error("beyond the file's end", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP,
                        dmaMap(3, 0, 0x10000, 2 << 20), k.ram)),
                error("overlapping the RAM window", EEXIST, (c, k) -> call(c, VfioUserCommand.DMA_MAP,
                        dmaMap(1, 0, VfioUserServerTest.RAM_IOVA + 0x1000, 0x1000))),
                error("of 24 bytes", EINVAL, (c, k) -> call(c, VfioUserCommand.DMA_MAP,
                        buffer(24).putInt(0, 32).putInt(4, 3))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedRequests")
    void aMalformedRequestGetsItsErrorReplyAndTheConnectionGoesOn(Move move, int errno) throws Exception {
        int fdsBefore = Fds.sharing(VfioUserServerTest.fd(pipe.sink()));
        try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
            realize(c);
            ok(c.write(0, 0x40, 4, 0x5a5a));
            Reply r = move.send(c, kit());
            assertTrue(r.isError(), () -> "expected an error reply, got " + r);
            assertEquals(errno, r.error, () -> "errno of " + r);
            assertEquals(VfioUserHeader.SIZE, r.size(), "an error reply is the header alone");
            assertEquals(VfioUserHeader.TYPE_REPLY | VfioUserHeader.FLAG_ERROR, r.flags);
            assertEquals(0x5a5a, c.read(0, 0x40, 4), "the connection still serves");
            assertEquals(0, server.msixAssigned(), "no eventfd kept from a refused request");
            assertEquals(fdsBefore, Fds.sharing(VfioUserServerTest.fd(pipe.sink())), "descriptors sent were closed");
        }
        nextClientIsServed();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedMaps")
    void aBadDmaMapBeforeRealizeIsRefused(Move move, int errno) throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
            ok(c.negotiate());
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, VfioUserServerTest.RAM_IOVA, 1 << 20), ram.getFD()));
            Reply r = move.send(c, kit());
            assertTrue(r.isError(), () -> "expected an error reply, got " + r);
            assertEquals(errno, r.error);
            assertEquals(1, server.dma().readable().regions(), "only the RAM window");
            assertEquals(1, Fds.mappingsOf(shm), "nothing else mapped");
        }
        nextClientIsServed();
        assertEquals(0, Fds.mappingsOf(shm));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedMaps")
    void aBadDmaMapAfterRealizeIsAcknowledgedLoggedAndUnused(Move move, int errno) throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
            ok(c.negotiate());
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, VfioUserServerTest.RAM_IOVA, 1 << 20), ram.getFD()));
            ok(c.call(VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16)));
            Reply r = move.send(c, kit());
            assertFalse(r.isError(), "QEMU aborts on a DMA_MAP error after realize (listener.c hw_error)");
            assertTrue(errors().stream().anyMatch(m -> m.contains("acknowledged anyway")), errors()::toString);
            assertEquals(1, server.dma().readable().regions(), "only the RAM window");
            assertEquals(1, Fds.mappingsOf(shm));
            assertEquals(0x8086, c.read(CONFIG, 0, 2));
        }
        nextClientIsServed();
    }

    @Test
    void requestsBeforeVersionAreRefused() throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
            Reply r = c.call(VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16));
            assertEquals(EINVAL, r.error);
            r = c.call(VfioUserCommand.VERSION, version(1, 0, "{}"));
            assertEquals(EINVAL, r.error, "major 1");
            ByteBuffer unterminated = buffer(8).putShort(0, (short) 0).put(4, (byte) '{').put(5, (byte) '}')
                    .put(6, (byte) ' ').put(7, (byte) ' ');
            assertEquals(EINVAL, c.call(VfioUserCommand.VERSION, unterminated).error, "JSON without its NUL");
            ok(c.negotiate());
        }
    }

    @Test
    void aPostedWriteThatIsRefusedStaysUnanswered() throws Exception {
        try (VfioUserClient c = new VfioUserClient(server.socketPath())) {
            realize(c);
            c.send(VfioUserCommand.REGION_WRITE, VfioUserHeader.FLAG_NO_REPLY,
                    regionWrite(0, TestFunction.BAR0_SIZE, 4, 1));
            assertTrue(c.silentFor(200));
            assertEquals(1, server.counters().errorReplies(), "counted and logged");
            assertEquals(0x8086, c.read(CONFIG, 0, 2));
        }
    }

    /** Streams the server cannot resynchronise: each closes the connection with a logged reason. */
    static Stream<Arguments> brokenStreams() {
        return Stream.of(
                Arguments.of(named("size below the header", (Breaker) (c, k) ->
                        c.sendRaw(VfioUserCommand.DEVICE_GET_INFO, 0, 8, null)), "bad header"),
                Arguments.of(named("size of 2 GiB", (Breaker) (c, k) ->
                        c.sendRaw(VfioUserCommand.REGION_WRITE, 0, 0x7fffffffL, buffer(16))), "bad header"),
                Arguments.of(named("size just beyond the limit", (Breaker) (c, k) ->
                        c.sendRaw(VfioUserCommand.REGION_WRITE, 0, VfioUserConnection.MAX_MESSAGE + 1L, buffer(16))),
                        "bad header"),
                Arguments.of(named("a reply from the client", (Breaker) (c, k) ->
                        c.sendRaw(VfioUserCommand.DEVICE_GET_INFO, VfioUserHeader.TYPE_REPLY, 16, null)), "bad header"),
                Arguments.of(named("reserved flag bits", (Breaker) (c, k) ->
                        c.sendRaw(VfioUserCommand.DEVICE_GET_INFO, 0x100, 32, argsz(16, 16))), "bad header"),
                Arguments.of(named("17 descriptors", (Breaker) (c, k) -> {
                    FileDescriptor[] many = new FileDescriptor[17];
                    java.util.Arrays.fill(many, k.pipe);
                    c.send(VfioUserCommand.DEVICE_SET_IRQS, 0, setIrqs(0x24, 2, 0, 17), many);
                }), "descriptors, more than"),
                Arguments.of(named("hang-up inside the payload", (Breaker) (c, k) -> {
                    c.sendRaw(VfioUserCommand.DMA_MAP, 0, 48, buffer(8), k.ram);
                    c.close();
                }), "hung up inside DMA_MAP"),
                Arguments.of(named("hang-up inside the header", (Breaker) (c, k) -> {
                    c.sendBytes(new byte[] {1, 0, 4, 0, 32, 0, 0});
                    c.close();
                }), "hung up inside a header"));
    }

    interface Breaker {
        void send(VfioUserClient c, Kit kit) throws IOException;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenStreams")
    void aBrokenStreamClosesTheClientWithAReasonAndTheSocketServesTheNext(Breaker breaker, String reason)
            throws Exception {
        int fdsBefore = Fds.sharing(VfioUserServerTest.fd(pipe.sink()));
        try (AFPipe irq = AFUNIXSelectorProvider.provider().openPipe()) {
            java.util.SortedMap<Integer, String> open = Fds.list();
            VfioUserClient c = new VfioUserClient(server.socketPath());
            realize(c);
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, VfioUserServerTest.RAM_IOVA, 1 << 20), ram.getFD()));
            ok(c.call(VfioUserCommand.DEVICE_SET_IRQS, setIrqs(0x24, 2, 3, 1), VfioUserServerTest.fd(irq.sink())));
            ok(c.write(0, 0x40, 4, 0x77));
            breaker.send(c, kit());
            assertTrue(server.awaitClientsEnded(1, Duration.ofSeconds(10)), "the server closed the client");
            c.close();
            assertTrue(errors().stream().anyMatch(m -> m.contains("closing the client") && m.contains(reason)),
                    () -> "logged reason containing '" + reason + "': " + errors());
            assertEquals(1, server.counters().clientsDropped());
            assertEquals(0, Fds.mappingsOf(shm), "its window is unmapped");
            assertEquals(0, server.msixAssigned(), "its eventfds are closed");
            assertEquals(2, Fds.sharing(VfioUserServerTest.fd(irq.sink())));
            assertEquals(fdsBefore, Fds.sharing(VfioUserServerTest.fd(pipe.sink())));
            assertTrue(Fds.eventually(5_000, () -> Fds.added(open).isEmpty()), "no descriptor left behind");
        }
        try (VfioUserClient next = new VfioUserClient(server.socketPath())) {
            ok(next.negotiate());
            assertEquals(0x77, next.read(0, 0x40, 4), "the device state survived");
        }
    }

    private void nextClientIsServed() throws Exception {
        assertTrue(server.awaitClientsEnded(server.clientsAccepted(), Duration.ofSeconds(10)));
        try (VfioUserClient next = new VfioUserClient(server.socketPath())) {
            ok(next.negotiate());
            assertEquals(0x8086, next.read(CONFIG, 0, 2));
        }
    }

    private static void realize(VfioUserClient c) throws IOException {
        ok(c.negotiate());
        ok(c.call(VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16)));
    }

    private static void ok(Reply r) {
        VfioUserServerTest.ok(r);
    }

    private List<String> errors() {
        List<String> out = new ArrayList<>();
        synchronized (log) {
            for (ILoggingEvent e : log.list) {
                if (e.getLevel() == Level.ERROR) {
                    out.add(e.getFormattedMessage());
                }
            }
        }
        return out;
    }
}
