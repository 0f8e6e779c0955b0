package dev.irdmaemu.bridge.sock;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sessions one socket has served, one at a time: how many began (each gets the next number, from 1) and how
 * many have ended with everything they held released, and a wait until a given number have ended. vfio-user.rst
 * ("Client Disconnection") and vhost-user.rst let a client leave at any time and the next one connect; a test or a
 * second client waits here for the first one's release.
 */
public final class SessionTally {
    private final AtomicInteger begun = new AtomicInteger();
    private int ended;

    /** A session begins: its number, one more than the last. */
    public int begin() {
        return begun.incrementAndGet();
    }

    /** Sessions begun so far. */
    public int begun() {
        return begun.get();
    }

    /** A session has ended and released what it held: wakes whoever waits. */
    public synchronized void end() {
        ended++;
        notifyAll();
    }

    /** Waits until {@code count} sessions have ended; false when {@code timeoutNanos} ran out first. */
    public synchronized boolean awaitEnded(int count, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (ended < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000L));
        }
        return true;
    }
}
