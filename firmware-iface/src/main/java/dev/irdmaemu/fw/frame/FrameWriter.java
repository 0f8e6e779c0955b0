package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A reusable writer of whole frames in two steps: {@link #begin} writes every header for a payload of a given length
 * and answers where the payload goes, the caller (or {@link #build}) puts it there, and {@link #finish()} fills in
 * what covers the payload (checksums, pad, ICRC) and answers the frame length. The shape of a transmit path that
 * writes headers in front of data already in place, as drivers/infiniband/sw/rxe/rxe_net.c prepares a packet and
 * then completes it.
 */
public interface FrameWriter {
    /**
     * Writes every header for {@code payloadLength} payload bytes at absolute {@code offset}; answers the absolute
     * offset of the payload, which the caller writes before {@link #finish()}.
     */
    long begin(BytesStore<?, ?> out, long offset, int payloadLength);

    /** Completes the frame begun last over the payload now in place; answers the frame length. */
    int finish();

    /**
     * Writes the whole frame at {@code offset} with {@code payloadLength} bytes copied from {@code payload} at
     * {@code payloadOffset}; answers the frame length.
     */
    default int build(BytesStore<?, ?> out, long offset, BytesStore<?, ?> payload, long payloadOffset,
                      int payloadLength) {
        if (payloadLength > 0) {
            NetworkOrder.requireRange(payload, payloadOffset, payloadLength);
        }
        long at = begin(out, offset, payloadLength);
        if (payloadLength > 0) {
            out.write(at, payload, payloadOffset, payloadLength);
        }
        return finish();
    }

    /** Writes a frame without payload (a bare TCP SYN, ACK, FIN or RST; a RoCEv2 ACK, READ REQUEST or CNP). */
    default int build(BytesStore<?, ?> out, long offset) {
        begin(out, offset, 0);
        return finish();
    }
}
