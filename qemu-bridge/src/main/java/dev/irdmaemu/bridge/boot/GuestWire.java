package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.vhost.FrameReceiver;
import dev.irdmaemu.bridge.vhost.VhostNetPort;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The hosted node's Ethernet port as the guest sees it: in production the vhost-user {@link VhostNetPort}
 * ({@link #of}), in tests anything that plays the guest's NIC. {@link #toGuest} and {@link #fromGuest} are called
 * on the model's thread only; the {@linkplain #onKick kick} callback runs on whatever thread saw the guest post
 * frames, and only wakes the model thread.
 */
public interface GuestWire {
    /** Puts a frame in the guest's receive ring; false when it was dropped (no front-end, no buffer). */
    boolean toGuest(BytesStore<?, ?> store, long offset, int length);

    /** Hands up to {@code budget} frames the guest sent to {@code receiver}; answers how many. */
    int fromGuest(FrameReceiver receiver, int budget);

    /** The model's round is over: hand the guest what was held back to coalesce (nothing, by default). */
    default void flush() {
    }

    /** What to run when the guest kicks (posted frames or receive buffers): must not block or touch the model. */
    void onKick(Runnable wakeup);

    /**
     * The node's loop is {@code loop}: a far end that is itself a paced model loop (an emulated E810 on a cable)
     * joins the two ({@link ModelLoop#keepBehind}, both ways); a guest's NIC does nothing.
     */
    default void pacedBy(ModelLoop loop) {
    }

    /** True while the guest's NIC is up (a front-end connected, its rings started). */
    boolean linkUp();

    /** The vhost-user port, with its threading rules (see its Javadoc). */
    static GuestWire of(VhostNetPort port) {
        return new GuestWire() {
            @Override
            public boolean toGuest(BytesStore<?, ?> store, long offset, int length) {
                return port.transmitToGuest(store, offset, length);
            }

            @Override
            public int fromGuest(FrameReceiver receiver, int budget) {
                return port.pollFromGuest(receiver, budget);
            }

            @Override
            public void flush() {
                port.flushToGuest();
            }

            @Override
            public void onKick(Runnable wakeup) {
                port.setWakeup(wakeup);
            }

            @Override
            public boolean linkUp() {
                return port.linkUp();
            }
        };
    }
}
