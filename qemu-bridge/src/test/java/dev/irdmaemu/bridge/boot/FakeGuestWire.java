package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.irdmaemu.bridge.vhost.FrameReceiver;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import net.openhft.chronicle.bytes.BytesStore;

/** A guest's NIC in a test: frames it "sends" wait for the model thread's poll; frames to it are queued. */
final class FakeGuestWire implements GuestWire {
    /** A guard against a model that never answers, not a timing assertion. */
    static final long WAIT_SECONDS = 20;

    final ConcurrentLinkedQueue<byte[]> fromGuest = new ConcurrentLinkedQueue<>();
    final LinkedBlockingQueue<byte[]> toGuest = new LinkedBlockingQueue<>();
    volatile Runnable wakeup = () -> { };
    volatile Thread pollingThread;
    volatile Thread transmittingThread;

    /** The guest sends a frame: queued, and the model is kicked as a vhost-user kick would. */
    void send(byte[] frame) {
        fromGuest.add(frame.clone());
        wakeup.run();
    }

    /** The next frame to the guest that {@code wanted} accepts (others are skipped); fails after a while. */
    byte[] await(Predicate<byte[]> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            long left = deadline - System.nanoTime();
            byte[] f = left > 0 ? toGuest.poll(left, TimeUnit.NANOSECONDS) : null;
            assertNotNull(f, "no such frame reached the guest");
            if (wanted.test(f)) {
                return f;
            }
        }
    }

    @Override
    public boolean toGuest(BytesStore<?, ?> store, long offset, int length) {
        transmittingThread = Thread.currentThread();
        byte[] b = new byte[length];
        store.read(offset, b, 0, length);
        toGuest.add(b);
        return true;
    }

    @Override
    public int fromGuest(FrameReceiver receiver, int budget) {
        pollingThread = Thread.currentThread();
        int n = 0;
        for (byte[] f; n < budget && (f = fromGuest.poll()) != null; n++) {
            receiver.frame(BytesStore.wrap(f), 0, f.length);
        }
        return n;
    }

    @Override
    public void onKick(Runnable r) {
        wakeup = r == null ? () -> { } : r;
    }

    @Override
    public boolean linkUp() {
        return true;
    }
}
