package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.iwarp.Fpdu;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Cuts the in-order TCP byte stream of one QP into whole MPA FPDUs (RFC 5044 §4: a 2-byte ULPDU_Length, the
 * ULPDU, pad to 4 bytes, the 4-byte CRC field, which is there with CRC off too, so the framing is the same
 * either way). An FPDU that lies whole inside the delivered bytes is handed on where it is
 * (no copy); one that spans deliveries is gathered in a bounded staging buffer of one largest FPDU
 * (2 + 65535 + 3 + 4 bytes), allocated once. Nothing is looked at but the length field: the CRC and every header
 * are the {@link Sink}'s to check, before anything is placed. Allocation-free per call.
 */
final class FpduAssembler {
    /** Where whole FPDUs go; {@code sequence} is the TCP sequence number of the FPDU's first byte. */
    interface Sink {
        void fpdu(BytesStore<?, ?> store, long offset, int length, long sequence);
    }

    /** The largest FPDU: ULPDU_Length is 16 bits (RFC 5044 §4.1). */
    static final int MAX_FPDU = Fpdu.LENGTH_SIZE + Fpdu.MAX_ULPDU_LENGTH + 3 + Fpdu.CRC_SIZE;

    private final BytesStore<?, Void> staging = BytesStore.nativeStoreWithFixedCapacity(MAX_FPDU + 8);
    private final Sink sink;
    private int staged;
    private int need = -1;
    private long sequence;
    private long stagedSequence;

    FpduAssembler(Sink sink, long firstSequence) {
        this.sink = sink;
        this.sequence = firstSequence & 0xffff_ffffL;
    }

    /** The next {@code length} stream bytes. Answers true when they ended on an FPDU boundary. */
    boolean deliver(BytesStore<?, ?> store, long offset, int length) {
        long at = offset;
        int left = length;
        while (left > 0) {
            if (staged > 0) {
                if (need < 0) {
                    // one byte of the length field staged: the second completes it
                    staging.writeByte(staged, store.readByte(at));
                    staged++;
                    at++;
                    left--;
                    need = Fpdu.totalLengthFor(staging.readUnsignedByte(0) << 8 | staging.readUnsignedByte(1));
                    continue;
                }
                int n = Math.min(left, need - staged);
                staging.write(staged, store, at, n);
                staged += n;
                at += n;
                left -= n;
                if (staged == need) {
                    int total = need;
                    staged = 0;
                    need = -1;
                    sink.fpdu(staging, 0, total, stagedSequence);
                }
                continue;
            }
            if (left < Fpdu.LENGTH_SIZE) {
                stagedSequence = sequence(at, offset);
                staging.writeByte(0, store.readByte(at));
                staged = 1;
                need = -1;
                at++;
                left--;
                continue;
            }
            int total = Fpdu.totalLengthFor(store.readUnsignedByte(at) << 8 | store.readUnsignedByte(at + 1));
            if (total <= left) {
                sink.fpdu(store, at, total, sequence(at, offset));
                at += total;
                left -= total;
                continue;
            }
            stagedSequence = sequence(at, offset);
            staging.write(0, store, at, left);
            staged = left;
            need = total;
            at += left;
            left = 0;
        }
        sequence = (sequence + length) & 0xffff_ffffL;
        return staged == 0;
    }

    private long sequence(long at, long offset) {
        return (sequence + (at - offset)) & 0xffff_ffffL;
    }

    /** Drops a half-gathered FPDU (the data path stopped). */
    void discard() {
        staged = 0;
        need = -1;
    }

    void release() {
        staging.releaseLast();
    }
}
