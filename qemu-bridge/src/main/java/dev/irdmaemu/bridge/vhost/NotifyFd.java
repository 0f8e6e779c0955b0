package dev.irdmaemu.bridge.vhost;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kick, call or error notifier passed by the front-end: an eventfd (or, where QEMU falls back, a pipe end).
 * vhost-user.rst: each event is an 8-byte value written to or read from the descriptor, whose value means nothing.
 * Owns the descriptor and closes it once.
 *
 * <p>QEMU makes its event notifiers non-blocking (util/event_notifier-posix.c: eventfd with EFD_NONBLOCK), and
 * the descriptor it passes shares that mode, so a read with no event pending fails with EAGAIN rather than
 * waiting. The mode must stay so: QEMU itself reads a kick descriptor when it stops a ring (virtio.c
 * virtio_queue_host_notifier_read), and would hang on a blocking one. {@link #await} therefore waits for the
 * descriptor to become readable with poll(2) (the JDK's own {@code sun.nio.ch.Net.poll}, reachable through the
 * {@code --add-opens java.base/sun.nio.ch} every irdma-emu JVM runs with) before it reads, and falls back to a
 * short sleep between reads when that is not available.
 */
public final class NotifyFd implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NotifyFd.class);
    private static final byte[] ONE = {1, 0, 0, 0, 0, 0, 0, 0};
    /** The sleep between reads when poll(2) is not reachable. */
    private static final long RETRY_NANOS = 200_000;
    private static final Method POLL;
    private static final int POLLIN;

    static {
        Method poll = null;
        int pollin = 0;
        try {
            Class<?> net = Class.forName("sun.nio.ch.Net");
            Method m = net.getDeclaredMethod("poll", FileDescriptor.class, int.class, long.class);
            m.setAccessible(true);
            pollin = net.getField("POLLIN").getShort(null);
            poll = m;
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.debug("poll(2) not reachable ({}): kick descriptors are read with short sleeps", e.toString());
        }
        POLL = poll;
        POLLIN = pollin;
    }

    private final String name;
    private final FileDescriptor fd;
    private final FileInputStream in;
    private final FileOutputStream out;
    private volatile boolean closed;

    public NotifyFd(String name, FileDescriptor fd) {
        this.name = name;
        this.fd = fd;
        this.in = new FileInputStream(fd);
        this.out = new FileOutputStream(fd);
    }

    public String name() {
        return name;
    }

    public FileDescriptor fd() {
        return fd;
    }

    /** Signals one event; false (logged at debug) when the descriptor cannot be written. */
    public boolean signal() {
        if (closed) {
            return false;
        }
        try {
            out.write(ONE);
            return true;
        } catch (IOException e) {
            LOG.debug("{}: signal failed: {}", name, e.toString());
            return false;
        }
    }

    /**
     * Blocks until at least one event and consumes what is there (an eventfd answers its whole 8-byte counter; a
     * pipe may hold several events). Returns false at end of stream, on an error, or once closed.
     *
     * <p>With poll(2) the descriptor is read only once it is readable, so a kick costs no failed read; EAGAIN then
     * means a spurious wakeup and the wait starts again. Without it the descriptor is read first and, when nothing
     * is pending, again after a short sleep.
     */
    boolean await(byte[] scratch) {
        while (!closed) {
            if (POLL != null && !awaitReadable()) {
                return false;
            }
            try {
                int n = in.read(scratch, 0, scratch.length);
                if (n < 0) {
                    return false;
                }
                if (n > 0) {
                    return true;
                }
            } catch (IOException e) {
                if (closed || !wouldBlock(e)) {
                    return false;
                }
                if (POLL == null) {
                    LockSupport.parkNanos(this, RETRY_NANOS);
                }
            }
        }
        return false;
    }

    /** A read of a non-blocking descriptor with nothing pending (EAGAIN). */
    private static boolean wouldBlock(IOException e) {
        String m = e.getMessage();
        return m != null && m.contains("temporarily unavailable");
    }

    /** Waits with poll(2) until the descriptor is readable; false on an error. */
    private boolean awaitReadable() {
        try {
            POLL.invoke(null, fd, POLLIN, -1L);
            return true;
        } catch (InvocationTargetException e) {
            LOG.debug("{}: poll failed: {}", name, e.getCause().toString());
            return false;
        } catch (IllegalAccessException e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            in.close();
        } catch (IOException e) {
            LOG.debug("{}: close failed: {}", name, e.toString());
        }
    }
}
