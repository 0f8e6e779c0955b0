package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the RDMAP Terminate message (RFC 5040 §4.8), the payload of an untagged DDP segment on queue 2.
 * Layout (RFC 5040 §4.8; irdma type.h struct irdma_terminate_hdr and ctrl.c irdma_bld_termhdr_ddp_rdma;
 * siw iwarp.h struct iwarp_terminate and TERM_* masks):
 * <pre>
 *  0 Layer(4 bits) | Error Type(4)   1 Error Code(8)   2 Hdrct: M 0x80, D 0x40, R 0x20; rest reserved  3 reserved
 *  then, in this order and each only when its bit is set:
 *    M: DDP Segment Length (u16 big-endian) of the segment in error (for MPA, its ULPDU_Length)
 *    D: that segment's DDP header (14 bytes if its T bit is set, else 18), copied
 *    R: the RDMA Read Request header (28 bytes, RFC 5040 §4.4), copied
 * </pre>
 * irdma and siw always set M with D; a D-without-M message is parsed with the DDP header at offset 4.
 * <p>{@link #wrap} takes the Terminate message (the DDP payload).
 */
public final class Terminate extends WireView implements Flyweight<Terminate> {
    public static final int CONTROL_LENGTH = 4;
    public static final int DDP_SEGMENT_LENGTH_SIZE = 2;
    public static final int FLAG_M = 0x80;
    public static final int FLAG_D = 0x40;
    public static final int FLAG_R = 0x20;

    public static final int OFF_LAYER_ETYPE = 0;
    public static final int OFF_ERROR_CODE = 1;
    public static final int OFF_HDRCT = 2;
    public static final int OFF_HEADERS = 4;

    /** RFC 5040 §7.1 Layer (siw enum term_elayer; irdma enum irdma_term_layers). */
    public static final int LAYER_RDMAP = 0;
    public static final int LAYER_DDP = 1;
    public static final int LAYER_LLP = 2;

    /** RFC 5040 §7.2 RDMAP error types and codes (siw enum rdmap_etype / rdmap_ecode). */
    public static final class Rdmap {
        public static final int ETYPE_LOCAL_CATASTROPHIC = 0x0;
        public static final int ETYPE_REMOTE_PROTECTION = 0x1;
        public static final int ETYPE_REMOTE_OPERATION = 0x2;

        public static final int INVALID_STAG = 0x00;
        public static final int BASE_OR_BOUNDS_VIOLATION = 0x01;
        public static final int ACCESS_RIGHTS_VIOLATION = 0x02;
        public static final int STAG_NOT_ASSOCIATED = 0x03;
        public static final int TO_WRAP = 0x04;
        public static final int INVALID_RDMAP_VERSION = 0x05;
        public static final int UNEXPECTED_OPCODE = 0x06;
        public static final int CATASTROPHIC_LOCAL = 0x07;
        public static final int CATASTROPHIC_GLOBAL = 0x08;
        public static final int CANNOT_INVALIDATE = 0x09;
        public static final int UNSPECIFIED = 0xff;

        private Rdmap() {
        }
    }

    /** RFC 5041 §7.2 DDP error types and codes (siw enum ddp_etype / ddp_ecode). */
    public static final class Ddp {
        public static final int ETYPE_LOCAL_CATASTROPHIC = 0x0;
        public static final int ETYPE_TAGGED_BUFFER = 0x1;
        public static final int ETYPE_UNTAGGED_BUFFER = 0x2;
        /**
         * irdma type.h DDP_LLP: irdma's ctrl.c reports MPA errors as layer 2 with this error type; siw uses
         * {@link Llp#ETYPE_MPA} (0) instead.
         */
        public static final int ETYPE_IRDMA_LLP = 0x3;

        public static final int CATASTROPHIC_LOCAL = 0x00;
        // tagged buffer errors
        public static final int TAGGED_INVALID_STAG = 0x00;
        public static final int TAGGED_BASE_OR_BOUNDS_VIOLATION = 0x01;
        public static final int TAGGED_STAG_NOT_ASSOCIATED = 0x02;
        public static final int TAGGED_TO_WRAP = 0x03;
        public static final int TAGGED_INVALID_DDP_VERSION = 0x04;
        // untagged buffer errors
        public static final int UNTAGGED_INVALID_QN = 0x01;
        public static final int UNTAGGED_INVALID_MSN_NO_BUFFER = 0x02;
        public static final int UNTAGGED_INVALID_MSN_RANGE = 0x03;
        public static final int UNTAGGED_INVALID_MO = 0x04;
        public static final int UNTAGGED_MESSAGE_TOO_LONG = 0x05;
        public static final int UNTAGGED_INVALID_DDP_VERSION = 0x06;

        private Ddp() {
        }
    }

    /** RFC 5044 §8 / RFC 6581 §8 LLP (MPA) error codes (siw enum llp_ecode; irdma enum irdma_term_mpa_errors). */
    public static final class Llp {
        public static final int ETYPE_MPA = 0x0;

        public static final int TCP_CONNECTION_LOST = 0x01;
        public static final int CRC_ERROR = 0x02;
        public static final int MARKER_ERROR = 0x03;
        public static final int INVALID_REQUEST_REPLY = 0x04;
        // enhanced connection establishment (RFC 6581)
        public static final int LOCAL_CATASTROPHIC = 0x05;
        public static final int INSUFFICIENT_IRD = 0x06;
        public static final int NO_MATCHING_RTR = 0x07;

        private Llp() {
        }
    }

    /** The first byte of the Terminate Control: Layer in the high nibble, Error Type in the low (RFC 5040 §4.8). */
    public static int layerEtype(int layer, int errorType) {
        return (layer & 0x0f) << 4 | errorType & 0x0f;
    }

    public TerminateCheck validate() {
        if (!beginValidation(CONTROL_LENGTH)) {
            return fail(TerminateCheck.TRUNCATED, length);
        }
        if (hasDdpSegmentLength() && !has(OFF_HEADERS, DDP_SEGMENT_LENGTH_SIZE)) {
            return fail(TerminateCheck.MISSING_DDP_SEGMENT_LENGTH, OFF_HEADERS);
        }
        long ddpAt = ddpHeaderRel();
        if (hasDdpHeader() && (!has(ddpAt, 1) || !has(ddpAt, ddpHeaderLength()))) {
            return fail(TerminateCheck.MISSING_DDP_HEADER, ddpAt);
        }
        long rdmaAt = rdmaHeaderRel();
        if (hasRdmaHeader() && !has(rdmaAt, RdmaReadRequest.LENGTH)) {
            return fail(TerminateCheck.MISSING_RDMA_HEADER, rdmaAt);
        }
        return TerminateCheck.ACCEPTED;
    }

    public int layer() {
        return u8(OFF_LAYER_ETYPE) >>> 4;
    }

    public int errorType() {
        return u8(OFF_LAYER_ETYPE) & 0x0f;
    }

    public int errorCode() {
        return u8(OFF_ERROR_CODE);
    }

    public int hdrct() {
        return u8(OFF_HDRCT);
    }

    /** M: the DDP Segment Length field is present and valid. */
    public boolean hasDdpSegmentLength() {
        return (hdrct() & FLAG_M) != 0;
    }

    /** D: the terminated DDP header is included. */
    public boolean hasDdpHeader() {
        return (hdrct() & FLAG_D) != 0;
    }

    /** R: the terminated RDMA (Read Request) header is included. */
    public boolean hasRdmaHeader() {
        return (hdrct() & FLAG_R) != 0;
    }

    /** The 13 reserved bits after Hdrct (RFC 5040 §4.8: sent as zero). */
    public int reserved() {
        return (hdrct() & 0x1f) << 8 | u8(3);
    }

    /** DDP Segment Length, or -1 without the M bit. */
    public int ddpSegmentLength() {
        return hasDdpSegmentLength() ? u16(OFF_HEADERS) : -1;
    }

    private long ddpHeaderRel() {
        return OFF_HEADERS + (hasDdpSegmentLength() ? DDP_SEGMENT_LENGTH_SIZE : 0);
    }

    /** Absolute offset of the copied DDP header (meaningful with the D bit; wrap a {@link DdpHeader} there). */
    public long ddpHeaderOffset() {
        return base + ddpHeaderRel();
    }

    /** 14 or 18 by the copied header's T bit; 0 without the D bit. */
    public int ddpHeaderLength() {
        if (!hasDdpHeader()) {
            return 0;
        }
        return (u8(ddpHeaderRel()) & DdpHeader.FLAG_TAGGED) != 0 ? DdpHeader.TAGGED_LENGTH
                : DdpHeader.UNTAGGED_LENGTH;
    }

    private long rdmaHeaderRel() {
        return ddpHeaderRel() + ddpHeaderLength();
    }

    /** Absolute offset of the copied RDMA Read Request header (with the R bit; wrap a {@link RdmaReadRequest}). */
    public long rdmaHeaderOffset() {
        return base + rdmaHeaderRel();
    }

    public int rdmaHeaderLength() {
        return hasRdmaHeader() ? RdmaReadRequest.LENGTH : 0;
    }

    /** Bytes the message occupies by its Hdrct bits. */
    public long messageLength() {
        return rdmaHeaderRel() + rdmaHeaderLength();
    }

    public long offset() {
        return base;
    }

    /**
     * Writes a Terminate message at absolute {@code offset}; answers its length.
     *
     * @param ddpSegmentLength the M field, or -1 to leave M clear
     * @param ddpHeader source of the DDP header to copy (its T bit gives 14 or 18 bytes), or null to leave D clear
     * @param rdmaHeader source of the 28-byte RDMA Read Request header to copy, or null to leave R clear
     */
    public static int write(BytesStore<?, ?> dst, long offset, long capacity, int layer, int errorType,
                            int errorCode, int ddpSegmentLength, BytesStore<?, ?> ddpHeader, long ddpHeaderOffset,
                            BytesStore<?, ?> rdmaHeader, long rdmaHeaderOffset) {
        int ddpLen = ddpHeader == null ? 0
                : (ddpHeader.readUnsignedByte(ddpHeaderOffset) & DdpHeader.FLAG_TAGGED) != 0
                        ? DdpHeader.TAGGED_LENGTH : DdpHeader.UNTAGGED_LENGTH;
        int total = CONTROL_LENGTH + (ddpSegmentLength >= 0 ? DDP_SEGMENT_LENGTH_SIZE : 0) + ddpLen
                + (rdmaHeader != null ? RdmaReadRequest.LENGTH : 0);
        NetworkOrder.requireRoom(capacity, total, "Terminate");
        int hdrct = (ddpSegmentLength >= 0 ? FLAG_M : 0) | (ddpHeader != null ? FLAG_D : 0)
                | (rdmaHeader != null ? FLAG_R : 0);
        NetworkOrder.put8(dst, offset + OFF_LAYER_ETYPE, layerEtype(layer, errorType));
        NetworkOrder.put8(dst, offset + OFF_ERROR_CODE, errorCode);
        NetworkOrder.put8(dst, offset + OFF_HDRCT, hdrct);
        NetworkOrder.put8(dst, offset + 3, 0);
        long at = offset + OFF_HEADERS;
        if (ddpSegmentLength >= 0) {
            NetworkOrder.put16(dst, at, ddpSegmentLength);
            at += DDP_SEGMENT_LENGTH_SIZE;
        }
        if (ddpHeader != null) {
            dst.write(at, ddpHeader, ddpHeaderOffset, ddpLen);
            at += ddpLen;
        }
        if (rdmaHeader != null) {
            dst.write(at, rdmaHeader, rdmaHeaderOffset, RdmaReadRequest.LENGTH);
        }
        return total;
    }
}
