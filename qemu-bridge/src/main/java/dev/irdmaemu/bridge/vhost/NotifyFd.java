package dev.irdmaemu.bridge.vhost;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kick, call or error notifier passed by the front-end: an eventfd (or, where QEMU falls back, a pipe end).
 * vhost-user.rst: each event is an 8-byte value written to or read from the descriptor, whose value means nothing.
 * Owns the descriptor and closes it once.
 */
final class NotifyFd implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NotifyFd.class);
    private static final byte[] ONE = {1, 0, 0, 0, 0, 0, 0, 0};

    private final String name;
    private final FileDescriptor fd;
    private final FileInputStream in;
    private final FileOutputStream out;
    private volatile boolean closed;

    NotifyFd(String name, FileDescriptor fd) {
        this.name = name;
        this.fd = fd;
        this.in = new FileInputStream(fd);
        this.out = new FileOutputStream(fd);
    }

    String name() {
        return name;
    }

    FileDescriptor fd() {
        return fd;
    }

    /** Signals one event; false (logged at debug) when the descriptor cannot be written. */
    boolean signal() {
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
     * pipe may hold several events). Returns false at end of stream or once closed.
     */
    boolean await(byte[] scratch) {
        try {
            return !closed && in.read(scratch, 0, scratch.length) >= 8;
        } catch (IOException e) {
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
