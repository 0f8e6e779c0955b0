package dev.irdmaemu.model.tcp;

import static dev.irdmaemu.model.tcp.TransmissionControlBlock.seqDiff;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Segments that arrived beyond RCV.NXT, kept until the hole before them fills (RFC 9293 §3.10.7.4 seventh step
 * allows it; Linux's out-of-order queue, tcp_data_queue_ofo in tcp_input.c). The bytes sit in an off-heap ring
 * addressed by sequence number, like the send side's; what is held is a sorted list of at most
 * {@value OffloadedTcp#MAX_HOLES} disjoint ranges, merged as segments join or overlap them. A segment that would
 * make one range more is dropped: the peer resends it.
 */
final class ReassemblyQueue {
    private final BytesStore<?, Void> ring;
    private final int mask;
    private final long[] rangeStart = new long[OffloadedTcp.MAX_HOLES];
    private final long[] rangeEnd = new long[OffloadedTcp.MAX_HOLES];
    private int ranges;

    /** A ring of {@code bytes}, a power of two, not zeroed: only the ranges held are ever read. */
    ReassemblyQueue(int bytes) {
        this.ring = BytesStore.lazyNativeBytesStoreWithFixedCapacity(bytes);
        this.mask = bytes - 1;
    }

    int capacity() {
        return mask + 1;
    }

    /** Disjoint ranges held. */
    int ranges() {
        return ranges;
    }

    /** Keeps {@code length} bytes from {@code seq}; answers false, keeping nothing, when it would need a range more. */
    boolean insert(long seq, BytesStore<?, ?> store, long offset, int length) {
        long end = seq + length;
        // Merge with the sorted disjoint ranges; find where it goes.
        int i = 0;
        while (i < ranges && seqDiff(rangeEnd[i], seq) < 0) {
            i++;
        }
        int j = i;
        long ns = seq;
        long ne = end;
        while (j < ranges && seqDiff(rangeStart[j], end) <= 0) {
            if (seqDiff(rangeStart[j], ns) < 0) {
                ns = rangeStart[j];
            }
            if (seqDiff(rangeEnd[j], ne) > 0) {
                ne = rangeEnd[j];
            }
            j++;
        }
        int merged = j - i;
        if (merged == 0 && ranges == OffloadedTcp.MAX_HOLES) {
            return false;
        }
        int pos = (int) (seq & mask);
        int first = Math.min(length, mask + 1 - pos);
        ring.write(pos, store, offset, first);
        if (first < length) {
            ring.write(0, store, offset + first, length - first);
        }
        if (merged == 0) {
            System.arraycopy(rangeStart, i, rangeStart, i + 1, ranges - i);
            System.arraycopy(rangeEnd, i, rangeEnd, i + 1, ranges - i);
            ranges++;
        } else if (merged > 1) {
            System.arraycopy(rangeStart, j, rangeStart, i + 1, ranges - j);
            System.arraycopy(rangeEnd, j, rangeEnd, i + 1, ranges - j);
            ranges -= merged - 1;
        }
        rangeStart[i] = ns;
        rangeEnd[i] = ne;
        return true;
    }

    /** The first range begins at or before {@code rcvNxt}: some of it is now in order. */
    boolean firstRangeReaches(long rcvNxt) {
        return ranges > 0 && seqDiff(rangeStart[0], rcvNxt) <= 0;
    }

    /** Forgets the first range; answers the sequence number after it. Its bytes stay in the ring. */
    long removeFirstRange() {
        long end = rangeEnd[0];
        System.arraycopy(rangeStart, 1, rangeStart, 0, ranges - 1);
        System.arraycopy(rangeEnd, 1, rangeEnd, 0, ranges - 1);
        ranges--;
        return end;
    }

    /** Hands the {@code n} held bytes from sequence number {@code from} to {@code receiver}, in order. */
    void deliver(long from, int n, TcpReceiver receiver) {
        int pos = (int) (from & mask);
        int first = Math.min(n, mask + 1 - pos);
        receiver.deliver(ring, pos, first);
        if (first < n) {
            receiver.deliver(ring, 0, n - first);
        }
    }

    /** Drops every range (the peer's FIN ends the stream: nothing beyond it can come in order). */
    void clear() {
        ranges = 0;
    }

    /** Frees the off-heap ring. */
    void release() {
        ring.releaseLast();
    }
}
