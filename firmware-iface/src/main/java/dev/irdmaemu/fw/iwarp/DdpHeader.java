package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over a DDP segment header (RFC 5041 §5) with the RDMAP control carried in its RsvdULP byte
 * (RFC 5040 §4.1). Layout (siw iwarp.h struct iwarp_ctrl_tagged / iwarp_ctrl_untagged, minus the MPA length):
 * <pre>
 *  byte 0   T(0x80) L(0x40) Rsvd(0x3c) DV(0x03)           RFC 5041 §5.1
 *  byte 1   RV(0xc0) Rsvd(0x30) Opcode(0x0f)              RFC 5040 §4.1 (DDP's first RsvdULP byte)
 *  tagged:   2 STag(32)  6 TO(64)                  = 14   RFC 5041 §5.2
 *  untagged: 2 RsvdULP(32) 6 QN(32) 10 MSN(32) 14 MO(32) = 18   RFC 5041 §5.3; RsvdULP is the Invalidate
 *            STag for Send with Invalidate (RFC 5040 §4.3)
 * </pre>
 * Queue numbers are reported, not judged: compare {@link #queueNumber()} with
 * {@link RdmapOpcode#expectedQueueFor(int)}.
 * <p>{@link #wrap} takes the DDP segment (header and payload).
 */
public final class DdpHeader extends WireView implements Flyweight<DdpHeader> {
    public static final int TAGGED_LENGTH = 14;
    public static final int UNTAGGED_LENGTH = 18;
    /** The smaller of the two header sizes: the least a ULPDU can carry. */
    public static final int MIN_LENGTH = TAGGED_LENGTH;

    public static final int FLAG_TAGGED = 0x80;
    public static final int FLAG_LAST = 0x40;
    public static final int DDP_RESERVED_MASK = 0x3c;
    public static final int DDP_VERSION_MASK = 0x03;
    public static final int RDMAP_VERSION_MASK = 0xc0;
    public static final int RDMAP_RESERVED_MASK = 0x30;
    public static final int OPCODE_MASK = 0x0f;
    /** RFC 5041 §5.1 / RFC 5040 §4.1 (siw iwarp.h DDP_VERSION, RDMAP_VERSION). */
    public static final int DDP_VERSION = 1;
    public static final int RDMAP_VERSION = 1;

    public static final int OFF_CONTROL = 0;
    public static final int OFF_RDMAP_CONTROL = 1;
    public static final int OFF_STAG = 2;
    public static final int OFF_TO = 6;
    public static final int OFF_INVALIDATE_STAG = 2;
    public static final int OFF_QN = 6;
    public static final int OFF_MSN = 10;
    public static final int OFF_MO = 14;

    public DdpCheck validate() {
        if (!beginValidation(2)) {
            return fail(DdpCheck.TRUNCATED, length);
        }
        if (ddpVersion() != DDP_VERSION) {
            return fail(DdpCheck.BAD_DDP_VERSION, OFF_CONTROL);
        }
        if (rdmapVersion() != RDMAP_VERSION) {
            return fail(DdpCheck.BAD_RDMAP_VERSION, OFF_RDMAP_CONTROL);
        }
        RdmapOpcode op = RdmapOpcode.of(opcode());
        if (op == null) {
            return fail(DdpCheck.UNKNOWN_OPCODE, OFF_RDMAP_CONTROL);
        }
        if (op.tagged() != tagged()) {
            return fail(DdpCheck.TAGGED_MISMATCH, OFF_CONTROL);
        }
        if (!has(0, headerLength())) {
            return fail(DdpCheck.TRUNCATED, length);
        }
        return DdpCheck.ACCEPTED;
    }

    public int control() {
        return u8(OFF_CONTROL);
    }

    public int rdmapControl() {
        return u8(OFF_RDMAP_CONTROL);
    }

    public boolean tagged() {
        return (control() & FLAG_TAGGED) != 0;
    }

    public boolean last() {
        return (control() & FLAG_LAST) != 0;
    }

    public int ddpReserved() {
        return (control() & DDP_RESERVED_MASK) >>> 2;
    }

    public int ddpVersion() {
        return control() & DDP_VERSION_MASK;
    }

    public int rdmapVersion() {
        return (rdmapControl() & RDMAP_VERSION_MASK) >>> 6;
    }

    public int rdmapReserved() {
        return (rdmapControl() & RDMAP_RESERVED_MASK) >>> 4;
    }

    public int opcode() {
        return rdmapControl() & OPCODE_MASK;
    }

    /** The opcode as an enum, null if undefined. */
    public RdmapOpcode rdmapOpcode() {
        return RdmapOpcode.of(opcode());
    }

    /** 14 for a tagged header, 18 for untagged (from the T bit). */
    public int headerLength() {
        return tagged() ? TAGGED_LENGTH : UNTAGGED_LENGTH;
    }

    /** Tagged: the Steering Tag (RFC 5041 §5.2). */
    public int stag() {
        return tagged() ? i32(OFF_STAG) : 0;
    }

    /** Tagged: the Tagged Offset. */
    public long taggedOffset() {
        return tagged() ? i64(OFF_TO) : 0L;
    }

    /** Untagged: the 32-bit RsvdULP, i.e. the Invalidate STag of a Send with Invalidate (RFC 5040 §4.3). */
    public int invalidateStag() {
        return tagged() ? 0 : i32(OFF_INVALIDATE_STAG);
    }

    /** Untagged: Queue Number (RFC 5041 §5.3); unsigned 32 bits as a long. */
    public long queueNumber() {
        return tagged() ? -1L : u32(OFF_QN);
    }

    /** Untagged: Message Sequence Number. */
    public long msn() {
        return tagged() ? -1L : u32(OFF_MSN);
    }

    /** Untagged: Message Offset. */
    public long messageOffset() {
        return tagged() ? -1L : u32(OFF_MO);
    }

    /** True when the untagged QN is the one RFC 5040 §5 assigns to the opcode (always true when tagged). */
    public boolean queueMatchesOpcode() {
        return tagged() || queueNumber() == RdmapOpcode.expectedQueueFor(opcode());
    }

    /** Absolute store offset of the DDP payload (after the header). */
    public long payloadOffset() {
        return base + headerLength();
    }

    /** Payload bytes inside the wrapped window (0 if the header itself is truncated). */
    public long payloadLength() {
        return Math.max(0, length - headerLength());
    }

    public long offset() {
        return base;
    }

    public long length() {
        return length;
    }

    /** RFC 5041 §5.1 control byte with DV = 1 and the given T/L bits. */
    public static int controlByte(boolean tagged, boolean last) {
        return (tagged ? FLAG_TAGGED : 0) | (last ? FLAG_LAST : 0) | DDP_VERSION;
    }

    /** RFC 5040 §4.1 RDMAP control byte with RV = 1. */
    public static int rdmapControlByte(int opcode) {
        return RDMAP_VERSION << 6 | (opcode & OPCODE_MASK);
    }

    /** Writes a tagged header (14 bytes) at absolute {@code offset}; answers the bytes written. */
    public static int writeTagged(BytesStore<?, ?> dst, long offset, int opcode, boolean last, int stag, long to) {
        NetworkOrder.put8(dst, offset + OFF_CONTROL, controlByte(true, last));
        NetworkOrder.put8(dst, offset + OFF_RDMAP_CONTROL, rdmapControlByte(opcode));
        NetworkOrder.put32(dst, offset + OFF_STAG, stag);
        NetworkOrder.put64(dst, offset + OFF_TO, to);
        return TAGGED_LENGTH;
    }

    /** Writes an untagged header (18 bytes) at absolute {@code offset}; answers the bytes written. */
    public static int writeUntagged(BytesStore<?, ?> dst, long offset, int opcode, boolean last,
                                    int invalidateStag, int qn, int msn, int mo) {
        NetworkOrder.put8(dst, offset + OFF_CONTROL, controlByte(false, last));
        NetworkOrder.put8(dst, offset + OFF_RDMAP_CONTROL, rdmapControlByte(opcode));
        NetworkOrder.put32(dst, offset + OFF_INVALIDATE_STAG, invalidateStag);
        NetworkOrder.put32(dst, offset + OFF_QN, qn);
        NetworkOrder.put32(dst, offset + OFF_MSN, msn);
        NetworkOrder.put32(dst, offset + OFF_MO, mo);
        return UNTAGGED_LENGTH;
    }
}
