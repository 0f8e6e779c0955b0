package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.vhost.FrameReceiver;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One direction of a cable between two model threads: frames one loop transmits, copied into fixed off-heap slots,
 * for the other loop to take. One producer thread and one consumer thread (each side's {@code ModelLoop}); nothing
 * is allocated per frame. A drain hands frames to a receiver that may itself offer into another mailbox (never this
 * one: the two directions are two mailboxes). A frame longer than a slot, or one that finds every slot full (the receiver is behind),
 * is dropped and counted, as a switch port with a full buffer drops: never an exception on the sender's path.
 *
 * <p>The slot is {@value #MAX_FRAME} bytes, the E810's largest frame (ice_adminq_cmd.h
 * ICE_AQ_SET_MAC_FRAME_SIZE_MAX), so jumbo frames pass too.
 */
public final class FrameMailbox implements AutoCloseable {
    /** The largest frame the E810 puts on the wire (ICE_AQ_SET_MAC_FRAME_SIZE_MAX). */
    public static final int MAX_FRAME = 9728;

    private final int slots;
    private final BytesStore<?, Void> store;
    private final int[] lengths;
    /** Frames put (producer writes, consumer reads). */
    private final AtomicLong tail = new AtomicLong();
    /** Frames taken (consumer writes, producer reads). */
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong dropsFull = new AtomicLong();
    private final AtomicLong dropsOversize = new AtomicLong();
    private volatile boolean closed;
    /** Offers and drains in progress (close waits for them before it frees the slots). */
    private final AtomicInteger users = new AtomicInteger();

    /** A mailbox of {@code slots} frames (a power of two is not required). */
    public FrameMailbox(int slots) {
        if (slots < 1 || (long) slots * MAX_FRAME > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("slots " + slots);
        }
        this.slots = slots;
        this.store = BytesStore.nativeStoreWithFixedCapacity((long) slots * MAX_FRAME);
        this.lengths = new int[slots];
    }

    /**
     * Producer thread: copies the frame into the next slot; false when it was dropped (too long, empty, every slot
     * full, or the mailbox closed).
     */
    public boolean offer(BytesStore<?, ?> from, long offset, int length) {
        users.incrementAndGet();
        try {
            return closed ? false : put(from, offset, length);
        } finally {
            users.decrementAndGet();
        }
    }

    private boolean put(BytesStore<?, ?> from, long offset, int length) {
        if (length <= 0 || length > MAX_FRAME) {
            dropsOversize.incrementAndGet();
            return false;
        }
        long t = tail.get();
        if (t - head.get() >= slots) {
            dropsFull.incrementAndGet();
            return false;
        }
        int slot = (int) (t % slots);
        long base = (long) slot * MAX_FRAME;
        store.write(base, from, offset, length);
        lengths[slot] = length;
        tail.lazySet(t + 1); // publishes the slot's bytes and length
        return true;
    }

    /** Consumer thread: hands up to {@code budget} frames to {@code receiver}, oldest first; answers how many. */
    public int drain(FrameReceiver receiver, int budget) {
        users.incrementAndGet();
        try {
            return closed ? 0 : take(receiver, budget);
        } finally {
            users.decrementAndGet();
        }
    }

    private int take(FrameReceiver receiver, int budget) {
        long h = head.get();
        long available = tail.get() - h;
        int n = (int) Math.min(available, budget);
        for (int i = 0; i < n; i++) {
            int slot = (int) ((h + i) % slots);
            try {
                receiver.frame(store, (long) slot * MAX_FRAME, lengths[slot]);
            } finally {
                head.lazySet(h + i + 1);
            }
        }
        return n;
    }

    /** Frames waiting. Any thread. */
    public int pending() {
        return (int) (tail.get() - head.get());
    }

    /** Frames put in, in all. */
    public long frames() {
        return tail.get();
    }

    /** Frames dropped because every slot was full. */
    public long dropsFull() {
        return dropsFull.get();
    }

    /** Frames dropped because they were empty or longer than {@value #MAX_FRAME} bytes. */
    public long dropsOversize() {
        return dropsOversize.get();
    }

    /**
     * Stops taking frames and frees the slots. Any thread, any time: an offer or a drain in progress (a loop still
     * sending into a mailbox whose owner is closing it) is waited for, and any later one finds the mailbox closed;
     * no lock is held while frames are handed on, so two loops cabled to each other never wait on each other.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        while (users.get() != 0) {
            Thread.onSpinWait();
        }
        store.releaseLast();
    }
}
