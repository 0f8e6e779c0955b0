package dev.irdmaemu.bridge.vhost;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for the guest's kicks on one ring's kick descriptor in its own thread and reports each to a wakeup
 * callback: the hand-off to the (single-threaded) model, which then drains the ring itself. No ring state is
 * touched here.
 *
 * <p>Stopping: an eventfd is readable and writable, so {@link #stop} writes one event to wake the blocked read.
 * A pipe's read end cannot be written to; its thread then ends when the front-end closes the write end (end of
 * stream). The descriptor is closed on stop either way.
 */
final class KickWatcher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(KickWatcher.class);
    private static final long STOP_WAIT_MILLIS = 200;

    private final NotifyFd kick;
    private final Runnable onKick;
    private final Thread thread;
    private volatile boolean stopped;

    KickWatcher(NotifyFd kick, Runnable onKick) {
        this.kick = kick;
        this.onKick = onKick;
        this.thread = new Thread(this, kick.name());
        thread.setDaemon(true);
    }

    KickWatcher start() {
        thread.start();
        return this;
    }

    @Override
    public void run() {
        byte[] scratch = new byte[64];
        while (!stopped && kick.await(scratch)) {
            if (stopped) {
                break;
            }
            try {
                onKick.run();
            } catch (RuntimeException e) {
                LOG.warn("{}: kick callback failed", kick.name(), e);
            }
        }
    }

    /** Stops watching and closes the kick descriptor. Call with no lock held: it may wait briefly for the thread. */
    void stop() {
        stopped = true;
        if (Thread.currentThread() != thread && kick.signal()) {
            try {
                thread.join(TimeUnit.MILLISECONDS.toMillis(STOP_WAIT_MILLIS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        kick.close();
    }
}
