package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the RDMAP RDMA Read Request header (RFC 5040 §4.4; siw iwarp.h struct iwarp_rdma_rreq after the
 * untagged DDP header), the payload of an untagged DDP segment on queue 1:
 * <pre>
 *   0 Data Sink STag (32)   4 Data Sink Tagged Offset (64)   12 RDMA Read Message Size (32)
 *  16 Data Source STag (32) 20 Data Source Tagged Offset (64)  = 28 bytes
 * </pre>
 * <p>{@link #wrap} takes the RDMAP payload (the DDP payload).
 */
public final class RdmaReadRequest extends WireView implements Flyweight<RdmaReadRequest> {
    public static final int LENGTH = 28;
    public static final int OFF_SINK_STAG = 0;
    public static final int OFF_SINK_TO = 4;
    public static final int OFF_READ_SIZE = 12;
    public static final int OFF_SOURCE_STAG = 16;
    public static final int OFF_SOURCE_TO = 20;

    public RdmaReadRequestCheck validate() {
        return beginValidation(LENGTH) ? RdmaReadRequestCheck.ACCEPTED : fail(RdmaReadRequestCheck.TRUNCATED, length);
    }

    public int sinkStag() {
        return i32(OFF_SINK_STAG);
    }

    public long sinkTaggedOffset() {
        return i64(OFF_SINK_TO);
    }

    /** RDMA Read Message Size, unsigned 32 bits. */
    public long readMessageSize() {
        return u32(OFF_READ_SIZE);
    }

    public int sourceStag() {
        return i32(OFF_SOURCE_STAG);
    }

    public long sourceTaggedOffset() {
        return i64(OFF_SOURCE_TO);
    }

    /** Writes the 28-byte header at absolute {@code offset}; answers 28. */
    public static int write(BytesStore<?, ?> dst, long offset, int sinkStag, long sinkTo, int readMessageSize,
                            int sourceStag, long sourceTo) {
        NetworkOrder.put32(dst, offset + OFF_SINK_STAG, sinkStag);
        NetworkOrder.put64(dst, offset + OFF_SINK_TO, sinkTo);
        NetworkOrder.put32(dst, offset + OFF_READ_SIZE, readMessageSize);
        NetworkOrder.put32(dst, offset + OFF_SOURCE_STAG, sourceStag);
        NetworkOrder.put64(dst, offset + OFF_SOURCE_TO, sourceTo);
        return LENGTH;
    }
}
