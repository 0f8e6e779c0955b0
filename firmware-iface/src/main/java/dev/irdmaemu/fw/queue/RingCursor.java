package dev.irdmaemu.fw.queue;

/**
 * A position in a ring of valid-bit entries, with the valid bit the current pass uses. irdma's convention on
 * every ring it produces or consumes (uk.c irdma_uk_qp_init / irdma_qp_get_next_send_wqe /
 * irdma_qp_get_next_recv_wqe, irdma_uk_cq_init, ctrl.c CEQ/AEQ init): the first pass writes valid = 1 and the
 * bit flips each time the index wraps to 0. The producer writes entries with {@link #polarity()}; the consumer
 * takes an entry as new when its valid bit equals its own cursor's {@link #polarity()}. Units are ring slots:
 * quanta for SQ/RQ (32 bytes), entries for CQ (32), CEQ (8) and AEQ (16). Not thread-safe; no allocation.
 */
public final class RingCursor {
    private final int size;
    private int index;
    private boolean polarity = true;

    public RingCursor(int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("ring size " + size);
        }
        this.size = size;
    }

    public int size() {
        return size;
    }

    public int index() {
        return index;
    }

    /** The valid bit of entries written (or expected) in the current pass. */
    public boolean polarity() {
        return polarity;
    }

    /** Back to index 0, first pass. */
    public RingCursor reset() {
        index = 0;
        polarity = true;
        return this;
    }

    /** Moves to {@code index} of the current pass, e.g. an SQ head past the connection WQEs. */
    public RingCursor seek(int newIndex) {
        if (newIndex < 0 || newIndex >= size) {
            throw new IllegalArgumentException("index " + newIndex + " outside a ring of " + size);
        }
        index = newIndex;
        return this;
    }

    /** Advances by {@code slots} (0..size), flipping the polarity when the index wraps past the end. */
    public RingCursor advance(int slots) {
        if (slots < 0 || slots > size) {
            throw new IllegalArgumentException("advance by " + slots + " in a ring of " + size);
        }
        index += slots;
        if (index >= size) {
            index -= size;
            polarity = !polarity;
        }
        return this;
    }

    /** The valid bit of slot {@code at} when the cursor is in its current pass: flipped for slots behind it. */
    public boolean polarityAt(int at) {
        return at >= index ? polarity : !polarity;
    }

    /** Byte offset of the current slot for entries of {@code entryBytes}. */
    public long byteOffset(int entryBytes) {
        return (long) index * entryBytes;
    }
}
