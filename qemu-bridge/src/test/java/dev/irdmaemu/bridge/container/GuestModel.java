package dev.irdmaemu.bridge.container;

import java.util.Optional;

/**
 * The model side of a {@link GuestTest} whose guest has a NIC: whatever serves the guest's virtio-net queues on a
 * vhost-user socket, and boots the guest against it. {@link GuestExtension} makes one (public no-argument
 * constructor) per test, {@linkplain #boot boots} the test's guest with it before the method and closes it after.
 * A test method may take it as a parameter (by its own class), and whatever it {@linkplain #parameter offers}.
 * {@link VhostPortModel} is the plain one (a bare port, nothing behind it); {@link HostedNodeModel} is the node
 * {@code irdma-emu boot} runs, the guest's QEMU in the container.
 */
public interface GuestModel extends AutoCloseable {
    /**
     * Serves the guest's NIC and starts {@code boot}'s container (configured with the test's scenario, siw build,
     * memory, kernel arguments, console log and timeout); returns once the guest printed its result line, or once
     * the model side knows why it never will.
     */
    void boot(GuestBoot boot) throws Exception;

    /** A test parameter of {@code type} besides the model itself, e.g. a report of the run; empty when none. */
    default Optional<Object> parameter(Class<?> type) {
        return Optional.empty();
    }

    /** Stops serving; called after the guest's container is gone. */
    @Override
    void close() throws Exception;
}
