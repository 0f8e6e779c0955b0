package dev.irdmaemu.bridge.container;

import java.nio.file.Path;

/**
 * The model side of a {@link GuestTest} whose guest has a NIC: whatever serves the guest's virtio-net queues on a
 * vhost-user socket. {@link GuestExtension} makes one (public no-argument constructor) per test, starts it before
 * the guest's container and closes it after. A test method may take it as a parameter (by its own class).
 * {@link VhostPortModel} is the plain one (a bare port, nothing behind it); a model node (the device model behind
 * the port) plugs in here as another implementation.
 */
public interface GuestModel extends AutoCloseable {
    /** Starts serving on {@code vhostUserSocket} (a path in a fresh private folder), before QEMU connects. */
    void start(Path vhostUserSocket) throws Exception;

    /** Stops serving; called after the guest's container is gone. */
    @Override
    void close() throws Exception;
}
