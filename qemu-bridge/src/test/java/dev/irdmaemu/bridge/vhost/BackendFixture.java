package dev.irdmaemu.bridge.vhost;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.LoggerFactory;

/** A back-end with its port, the kick hand-off counted by a semaphore, and helpers shared by the tests. */
final class BackendFixture implements AutoCloseable {
    static final long STANDARD_FEATURES = 1L << VirtioNet.F_VERSION_1 | 1L << VirtioNet.F_INDIRECT_DESC
            | 1L << VirtioNet.F_MRG_RXBUF | 1L << VirtioNet.F_EVENT_IDX | 1L << VirtioNet.F_PROTOCOL_FEATURES;

    final Path socket;
    final VhostNetPort port;
    final VhostUserBackend backend;
    final Semaphore kicks = new Semaphore(0);
    private final Path dir;

    BackendFixture(Path dir, String name) throws IOException {
        this.dir = dir;
        this.socket = dir.resolve(name + ".sock");
        this.port = new VhostNetPort(name);
        port.setWakeup(kicks::release);
        this.backend = VhostUserBackend.start(socket, port);
    }

    FakeQemu connect() throws IOException {
        return new FakeQemu(socket, dir);
    }

    /** A front-end through the whole QEMU start-up, rings running. */
    FakeQemu startGuest(boolean protocolFeatures, long features) throws IOException {
        FakeQemu q = connect();
        q.connectSequence(protocolFeatures, q.call);
        q.startSequence(features, protocolFeatures);
        assertTrue(port.linkUp(), "link up after the start-up sequence");
        return q;
    }

    void awaitKick() throws InterruptedException {
        assertTrue(kicks.tryAcquire(FakeQemu.TIMEOUT_MILLIS, TimeUnit.MILLISECONDS), "the kick reached the port");
    }

    static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Collects the frames the port hands over, as byte arrays. */
    static final class Collector implements FrameReceiver {
        final List<byte[]> frames = new ArrayList<>();

        @Override
        public void frame(BytesStore<?, ?> store, long offset, int length) {
            byte[] b = new byte[length];
            for (int i = 0; i < length; i++) {
                b[i] = store.readByte(offset + i);
            }
            frames.add(b);
        }
    }

    static BytesStore<?, ?> store(byte[] bytes) {
        BytesStore<?, Void> s = BytesStore.nativeStoreWithFixedCapacity(bytes.length);
        s.write(0, bytes);
        return s;
    }

    /**
     * One frame each way through a running guest's rings (descriptor 0 of each ring), checked byte for byte: the
     * "this connection still works" probe.
     */
    void exchangeOneFrameEachWay(FakeQemu q) throws Exception {
        byte[] out = randomBytes(200, 7);
        q.put(0x5000, new byte[VirtioNet.NET_HEADER_SIZE]);
        q.put(0x5000 + VirtioNet.NET_HEADER_SIZE, out);
        q.desc(VirtioNet.TX_QUEUE, 0, 0x5000, VirtioNet.NET_HEADER_SIZE + out.length, 0, 0);
        q.offer(VirtioNet.TX_QUEUE, 0);
        q.kick(VirtioNet.TX_QUEUE);
        awaitKick();
        Collector c = new Collector();
        assertEquals(1, port.pollFromGuest(c, 16));
        assertArrayEquals(out, c.frames.get(0));

        byte[] in = randomBytes(300, 8);
        q.desc(VirtioNet.RX_QUEUE, 0, 0x9000, 2048, SplitVirtqueue.DESC_F_WRITE, 0);
        q.offer(VirtioNet.RX_QUEUE, 0);
        BytesStore<?, ?> s = store(in);
        assertTrue(port.transmitToGuest(s, 0, in.length));
        s.releaseLast();
        assertEquals(1, q.usedIdx(VirtioNet.RX_QUEUE));
        assertArrayEquals(in, q.get(0x9000 + VirtioNet.NET_HEADER_SIZE, in.length));
    }

    // ---- leak checks through /proc ----

    static long mappingsOf(Path file) throws IOException {
        String name = file.toAbsolutePath().toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(name)).count();
    }

    /** How many descriptors of this process refer to the same open file (pipe, socket, file) as {@code fd}. */
    static int descriptorsSharing(FileDescriptor fd) throws IOException {
        Path target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + FakeQemu.fdNumber(fd)));
        int n = 0;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path p : fds) {
                try {
                    if (Files.readSymbolicLink(p).equals(target)) {
                        n++;
                    }
                } catch (IOException vanished) {
                    // the directory stream's own descriptor, or one closed meanwhile
                }
            }
        }
        return n;
    }

    /** Captures the vhost package's log events. */
    static final class LogCapture implements AutoCloseable {
        private final Logger logger = (Logger) LoggerFactory.getLogger("dev.irdmaemu.bridge.vhost");
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

        LogCapture() {
            appender.start();
            logger.addAppender(appender);
        }

        List<String> errors() {
            List<String> out = new ArrayList<>();
            synchronized (appender) {
                for (ILoggingEvent e : appender.list) {
                    if (e.getLevel() == Level.ERROR) {
                        out.add(e.getFormattedMessage());
                    }
                }
            }
            return out;
        }

        boolean loggedError(VhostUserFailure failure) {
            return errors().stream().anyMatch(m -> m.contains(failure.name() + ": " + failure.describe()));
        }

        @Override
        public void close() {
            logger.detachAppender(appender);
            appender.stop();
        }
    }

    @Override
    public void close() {
        backend.close();
    }
}
