package dev.irdmaemu.model.tcp;

import static dev.irdmaemu.model.tcp.TransmissionControlBlock.seqDiff;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The send buffer, which is also the retransmission queue: an off-heap ring, addressed by sequence number, where
 * the bytes of {@link OffloadedTcp#send} stay until the peer acknowledges them (RFC 9293 §3.8.1; Linux's write and
 * retransmission queues, tcp_output.c, with the difference that no per-segment record exists: segments are cut
 * from the ring when sent or resent).
 *
 * <p>It also remembers where the upper layer's records end (each send is one whole FPDU), oldest first, for MPA's
 * FPDU alignment: RFC 5044 §8 has the sender keep every FPDU whole inside one TCP segment where it can, so
 * {@link TcpOutput} asks {@link #recordEndsWithin} whether, and {@link #lengthToRecordEnd} where, to cut. A full record list only loses alignment for the
 * records it could not note, never data.
 */
final class SendBuffer {
    private final BytesStore<?, Void> ring;
    private final int mask;
    private final int[] recordEnd;
    private int recordHead;
    private int recordCount;
    /**
     * Where the last {@link #recordEndsWithin} search ended, in records after {@link #recordHead}: segments are cut
     * in sequence, so the next search's answer is usually a record or two on from there.
     */
    private int recordCursor;

    /**
     * A ring of {@code bytes}, a power of two, not zeroed (only bytes written are ever read back), its record ends
     * kept in {@code records}.
     */
    SendBuffer(int bytes, RecordEnds records) {
        this.ring = BytesStore.lazyNativeBytesStoreWithFixedCapacity(bytes);
        this.recordEnd = records.ends;
        this.mask = bytes - 1;
    }

    int capacity() {
        return mask + 1;
    }

    /** Copies {@code length} bytes in at sequence number {@code seq}; the caller has checked there is room. */
    void write(long seq, BytesStore<?, ?> source, long offset, int length) {
        int pos = (int) (seq & mask);
        int first = Math.min(length, mask + 1 - pos);
        ring.write(pos, source, offset, first);
        if (first < length) {
            ring.write(0, source, offset + first, length - first);
        }
    }

    /** A record ends just before sequence number {@code end}; forgotten when the list is full. */
    void noteRecordEnd(long end) {
        if (recordCount < OffloadedTcp.RECORDS) {
            recordEnd[(recordHead + recordCount) % OffloadedTcp.RECORDS] = (int) end;
            recordCount++;
        }
    }

    /** Copies the {@code len} bytes from sequence number {@code seq} into {@code frame} at {@code at}. */
    void copyOut(long seq, BytesStore<?, Void> frame, long at, int len) {
        int pos = (int) (seq & mask);
        int first = Math.min(len, mask + 1 - pos);
        frame.write(at, ring, pos, first);
        if (first < len) {
            frame.write(at + first, ring, 0, len - first);
        }
    }

    /** SND.UNA moved to {@code una}: the records wholly before it are done with. */
    void acknowledged(long una) {
        while (recordCount > 0 && seqDiff(recordEnd[recordHead] & 0xffff_ffffL, una) <= 0) {
            recordHead = (recordHead + 1) % OffloadedTcp.RECORDS;
            recordCount--;
            recordCursor = Math.max(0, recordCursor - 1);
        }
    }

    /** {@code len} cut back to the last record boundary after {@code seq}, if one lies inside it. */
    int aligned(long seq, int len) {
        return len > 0 && recordEndsWithin(seq, len) ? lengthToRecordEnd(seq) : len;
    }

    /**
     * Whether a record ends in {@code (seq, seq + len]} (false when one record is longer than {@code len}); when
     * it does, {@link #lengthToRecordEnd} answers how far the last such end lies from {@code seq}. Searches the
     * ring, whose ends ascend in sequence space: first a few records on from where the last search ended (the
     * next segment of a stream), then by bisection. Leaves {@link #recordCursor} at the first record ending after
     * {@code seq + len}.
     */
    boolean recordEndsWithin(long seq, int len) {
        long limit = seq + len;
        // the first record ending after limit: in [lo, hi), every record before lo ends at or before limit
        int lo;
        int hi;
        int c = Math.min(recordCursor, recordCount);
        if (c == 0 || seqDiff(recordEnd(c - 1), limit) <= 0) {
            lo = c;
            hi = recordCount;
            int probe = Math.min(hi, lo + 4);
            while (lo < probe && seqDiff(recordEnd(lo), limit) <= 0) {
                lo++;
            }
            if (lo < probe) {
                hi = lo;
            }
        } else {
            lo = 0;
            hi = c;
        }
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (seqDiff(recordEnd(mid), limit) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        recordCursor = lo;
        return lo > 0 && seqDiff(recordEnd(lo - 1), seq) > 0;
    }

    /**
     * The length from {@code seq} to the last record end the preceding {@link #recordEndsWithin} search (from the
     * same {@code seq}, answering true) found: the record just before {@link #recordCursor}.
     */
    int lengthToRecordEnd(long seq) {
        return (int) seqDiff(recordEnd(recordCursor - 1), seq);
    }

    /** The sequence number after record {@code i} (counted from the oldest unacknowledged). */
    private long recordEnd(int i) {
        return recordEnd[(recordHead + i) % OffloadedTcp.RECORDS] & 0xffff_ffffL;
    }

    /** Frees the off-heap ring. */
    void release() {
        ring.releaseLast();
    }
}
