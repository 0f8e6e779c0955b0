package dev.irdmaemu.model.lan;

/**
 * Where the Tx engine finds a queue's Tx LAN context: the contexts add_txqs (0x0C30) stored, read on each
 * doorbell. Allocation-free: the answer is written into {@code out}.
 */
@FunctionalInterface
public interface TxContextSource {
    /** No queue has a context. */
    TxContextSource NONE = (queue, out) -> false;

    /** Fills {@code out} with queue {@code queue}'s ring; false when add_txqs has not enabled that queue. */
    boolean lookup(int queue, TxRing out);

    /** The fields of a Tx context the engine uses. */
    final class TxRing {
        long base;
        int length;

        public TxRing set(long ringBase, int queueLength) {
            this.base = ringBase;
            this.length = queueLength;
            return this;
        }

        public long base() {
            return base;
        }

        public int length() {
            return length;
        }
    }
}
