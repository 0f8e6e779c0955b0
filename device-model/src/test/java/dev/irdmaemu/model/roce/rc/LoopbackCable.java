package dev.irdmaemu.model.roce.rc;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * A lossless cable between two engines that allocates nothing: each direction a preallocated ring of frame slots
 * the sender's frames are copied into; {@link #deliver} hands them to the other engine in order. For the
 * allocation test of the RC hot paths.
 */
final class LoopbackCable {
    private static final int SLOTS = 4096;
    private static final int SLOT = RcFrameTransmitter.CAPACITY;

    final class Direction implements RcWire {
        private final BytesStore<?, Void> ring = BytesStore.nativeStoreWithFixedCapacity((long) SLOTS * SLOT);
        private final int[] length = new int[SLOTS];
        private int head;
        private int tail;

        @Override
        public void transmit(BytesStore<?, ?> frame, long offset, int len) {
            if (tail - head == SLOTS) {
                throw new IllegalStateException("cable full");
            }
            int i = tail % SLOTS;
            ring.write((long) i * SLOT, frame, offset, len);
            length[i] = len;
            tail++;
        }

        int deliver(RcEngine to, long now) {
            int n = 0;
            while (head != tail) {
                int i = head % SLOTS;
                head++;
                to.receive(ring, (long) i * SLOT, length[i], now);
                n++;
            }
            return n;
        }
    }

    final Direction ab = new Direction();
    final Direction ba = new Direction();
}
