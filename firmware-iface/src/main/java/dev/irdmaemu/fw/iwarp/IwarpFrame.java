package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Check;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Composes the layers of one iWARP frame on the TCP stream: MPA FPDU (RFC 5044 §4) carrying a DDP segment
 * (RFC 5041 §5) whose RsvdULP holds the RDMAP control (RFC 5040 §4). Reusable, one per thread; no allocation
 * per frame. Build: {@link #writeTagged}/{@link #writeUntagged} write header + payload + pad + CRC field
 * (the CRC-32c, or zeros with {@code crc} off) in one call.
 * Parse: {@link #parse} validates the FPDU, then the DDP header inside it, and leaves both views wrapped.
 */
public final class IwarpFrame {
    private final Fpdu fpdu = new Fpdu();
    private final DdpHeader ddp = new DdpHeader();
    private int failedAt = -1;

    /** The FPDU view of the last {@link #parse}. */
    public Fpdu fpdu() {
        return fpdu;
    }

    /** The DDP view of the last {@link #parse}, wrapped over the ULPDU. */
    public DdpHeader ddp() {
        return ddp;
    }

    /**
     * Parses the FPDU starting at {@code offset} ({@code available} stream bytes) and the DDP/RDMAP header in it.
     * Answers the first failed {@link FpduCheck} or {@link DdpCheck}, else {@link FpduCheck#ACCEPTED}.
     * {@link #failedAt()} is then relative to the FPDU start.
     */
    public Check parse(BytesStore<?, ?> store, long offset, long available, boolean crcEnabled) {
        failedAt = -1;
        FpduCheck f = fpdu.wrap(store, offset, available, crcEnabled).validate();
        if (!f.accepted()) {
            failedAt = fpdu.failedAt();
            ddp.wrap(store, offset, 0);
            return f;
        }
        DdpCheck d = ddp.wrap(store, fpdu.ulpduOffset(), fpdu.ulpduLength()).validate();
        if (!d.accepted()) {
            failedAt = Fpdu.LENGTH_SIZE + ddp.failedAt();
            return d;
        }
        return FpduCheck.ACCEPTED;
    }

    public int failedAt() {
        return failedAt;
    }

    /** FPDU length of a tagged frame with this payload (CRC field included, in use or not: RFC 5044 §4.1). */
    public static int taggedFrameLength(int payloadLength) {
        return Fpdu.totalLengthFor(DdpHeader.TAGGED_LENGTH + payloadLength);
    }

    /** FPDU length of an untagged frame with this payload (CRC field included, in use or not: RFC 5044 §4.1). */
    public static int untaggedFrameLength(int payloadLength) {
        return Fpdu.totalLengthFor(DdpHeader.UNTAGGED_LENGTH + payloadLength);
    }



    /**
     * Writes a complete FPDU with a tagged DDP header (RDMA Write, Read Response) and the payload copied from
     * {@code payload[payloadOffset, +payloadLength)} (payload may be null when the length is 0). Answers the
     * FPDU length.
     */
    public int writeTagged(BytesStore<?, ?> dst, long offset, long capacity, int opcode, boolean last, int stag,
                           long to, BytesStore<?, ?> payload, long payloadOffset, int payloadLength, boolean crc) {
        long at = fpdu.beginBuild(dst, offset, capacity, DdpHeader.TAGGED_LENGTH + payloadLength);
        at += DdpHeader.writeTagged(dst, at, opcode, last, stag, to);
        if (payloadLength > 0) {
            dst.write(at, payload, payloadOffset, payloadLength);
        }
        return fpdu.finishBuild(crc);
    }

    /**
     * Writes a complete FPDU with an untagged DDP header (Send*, Read Request, Terminate) and the payload copied
     * from the caller's range. Answers the FPDU length.
     */
    public int writeUntagged(BytesStore<?, ?> dst, long offset, long capacity, int opcode, boolean last,
                             int invalidateStag, int qn, int msn, int mo, BytesStore<?, ?> payload,
                             long payloadOffset, int payloadLength, boolean crc) {
        long at = fpdu.beginBuild(dst, offset, capacity, DdpHeader.UNTAGGED_LENGTH + payloadLength);
        at += DdpHeader.writeUntagged(dst, at, opcode, last, invalidateStag, qn, msn, mo);
        if (payloadLength > 0) {
            dst.write(at, payload, payloadOffset, payloadLength);
        }
        return fpdu.finishBuild(crc);
    }

    /**
     * Writes a complete RDMA Read Request FPDU (untagged, QN 1, L set, MO 0; RFC 5040 §4.4/§5.1). Answers the
     * FPDU length.
     */
    public int writeReadRequest(BytesStore<?, ?> dst, long offset, long capacity, int msn, int sinkStag,
                                long sinkTo, int readMessageSize, int sourceStag, long sourceTo, boolean crc) {
        long at = fpdu.beginBuild(dst, offset, capacity, DdpHeader.UNTAGGED_LENGTH + RdmaReadRequest.LENGTH);
        at += DdpHeader.writeUntagged(dst, at, RdmapOpcode.CODE_RDMA_READ_REQUEST, true, 0,
                RdmapOpcode.QN_READ_REQUEST, msn, 0);
        RdmaReadRequest.write(dst, at, sinkStag, sinkTo, readMessageSize, sourceStag, sourceTo);
        return fpdu.finishBuild(crc);
    }
}
