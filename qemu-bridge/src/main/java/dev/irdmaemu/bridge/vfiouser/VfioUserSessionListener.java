package dev.irdmaemu.bridge.vfiouser;

/**
 * Hears a {@link VfioUserServer}'s clients come and go: for a session log, and for a host that returns its device
 * to power-on between two QEMU processes (a new QEMU must find the card as a freshly started machine would). Calls
 * come on the server's threads (the accept thread for a refusal, the client's thread for the rest), one client at
 * a time; a listener that throws is logged and ignored. Every method defaults to doing nothing.
 */
public interface VfioUserSessionListener {
    /** No one listens. */
    VfioUserSessionListener NONE = new VfioUserSessionListener() {
    };

    /** Client number {@code client} (1, 2, ...) was accepted; nothing of it has been read yet. */
    default void clientConnected(int client) {
    }

    /**
     * A client that connected while another was served was closed at once ({@code reason} says so); the one
     * served goes on unharmed.
     */
    default void clientRefused(String reason) {
    }

    /**
     * The client's guest RAM cannot be shared with the device ({@code reason}: no descriptor came with it, or the
     * client maps it privately); refused while the device is realized, so QEMU fails at start.
     */
    default void memoryNotShared(int client, String reason) {
    }

    /** The client asked for DEVICE_RESET (QEMU does on each machine reset: start-up and a guest reboot). */
    default void deviceReset(int client) {
    }

    /**
     * Client {@code client} left and everything it held is released (DMA windows unmapped, eventfds closed):
     * {@code reason} is null for a clean hang-up, else why the server closed it. {@code negotiated}: it got past
     * VERSION, so it may have changed the device. Runs before the next client can be accepted.
     */
    default void clientLeft(int client, String reason, boolean negotiated) {
    }
}
