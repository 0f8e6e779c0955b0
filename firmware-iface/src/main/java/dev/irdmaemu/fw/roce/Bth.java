package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import java.util.Optional;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 12-byte Base Transport Header (IBA Vol. 1 §9.2; the layout of
 * drivers/infiniband/sw/rxe/rxe_hdr.h struct rxe_bth), big-endian:
 * <pre>
 *  byte 0    OpCode
 *  byte 1    SE 0x80, MigReq 0x40, PadCnt 0x30, TVer 0x0f
 *  byte 2-3  P_Key
 *  byte 4    FECN 0x80, BECN 0x40 (IBA Annex A17 congestion bits), reserved 0x3f     byte 5-7 DestQP
 *  byte 8    AckReq 0x80, reserved 0x7f                                               byte 9-11 PSN
 * </pre>
 * Byte 4 as a whole is IBA's resv8a: the ICRC treats it as variant (masked to ones, {@link Icrc}). Fields are
 * reported, not judged; {@link RoceFrame} applies the rules (TVer 0, a known opcode). Accessors read 0 outside the
 * wrapped bytes. No allocation.
 */
public final class Bth extends FixedLengthHeader<Bth> {
    public static final int LENGTH = 12;
    /** IBA §9.2.5: the only transport header version defined. */
    public static final int TRANSPORT_VERSION = 0;
    /** IBA §10.9.1.1: the default partition, full membership (rxe_hdr.h BTH_DEF_PKEY). */
    public static final int DEFAULT_P_KEY = 0xffff;
    /** DestQP and PSN are 24 bits. */
    public static final int QPN_MASK = 0xff_ffff;
    public static final int PSN_MASK = 0xff_ffff;

    public static final int OFF_OPCODE = 0;
    public static final int OFF_FLAGS = 1;
    public static final int OFF_P_KEY = 2;
    public static final int OFF_ECN = 4;
    public static final int OFF_DEST_QP = 4;
    public static final int OFF_ACK_REQ = 8;
    public static final int OFF_PSN = 8;

    public static final int FLAG_SE = 0x80;
    public static final int FLAG_MIG_REQ = 0x40;
    public static final int PAD_MASK = 0x30;
    public static final int TVER_MASK = 0x0f;
    public static final int FECN = 0x80;
    public static final int BECN = 0x40;
    public static final int ACK_REQ = 0x80;

    public Bth() {
        super(LENGTH);
    }

    /** True when all 12 bytes are there. */
    /** The 8-bit opcode as on the wire. */
    public int opcodeCode() {
        return u8(OFF_OPCODE);
    }

    /** The opcode, empty for one this model does not carry (no allocation). */
    public Optional<BthOpcode> opcode() {
        return BthOpcode.lookup(opcodeCode());
    }

    public boolean solicitedEvent() {
        return (u8(OFF_FLAGS) & FLAG_SE) != 0;
    }

    public boolean migrationRequest() {
        return (u8(OFF_FLAGS) & FLAG_MIG_REQ) != 0;
    }

    /** Pad bytes (0..3) between the payload and the ICRC. */
    public int padCount() {
        return (u8(OFF_FLAGS) & PAD_MASK) >>> 4;
    }

    public int transportVersion() {
        return u8(OFF_FLAGS) & TVER_MASK;
    }

    public int partitionKey() {
        return u16(OFF_P_KEY);
    }

    /** Forward explicit congestion notification (IBA Annex A17: set where the packet met congestion). */
    public boolean fecn() {
        return (u8(OFF_ECN) & FECN) != 0;
    }

    /** Backward explicit congestion notification: set in a CNP. */
    public boolean becn() {
        return (u8(OFF_ECN) & BECN) != 0;
    }

    /** The six reserved bits of byte 4. */
    public int reserved6() {
        return u8(OFF_ECN) & 0x3f;
    }

    public int destinationQp() {
        return i32(OFF_DEST_QP) & QPN_MASK;
    }

    public boolean ackRequest() {
        return (u8(OFF_ACK_REQ) & ACK_REQ) != 0;
    }

    /** The seven reserved bits of byte 8. */
    public int reserved7() {
        return u8(OFF_ACK_REQ) & 0x7f;
    }

    public int psn() {
        return i32(OFF_PSN) & PSN_MASK;
    }

    // ---- builder side ----

    /** The flags byte: SE, MigReq, pad count (0..3), TVer 0. */
    public static int flagsByte(boolean solicitedEvent, boolean migrationRequest, int padCount) {
        return (solicitedEvent ? FLAG_SE : 0) | (migrationRequest ? FLAG_MIG_REQ : 0) | (padCount & 3) << 4
                | TRANSPORT_VERSION;
    }

    /**
     * Writes a BTH at absolute {@code offset}; answers 12. {@code flags} is {@link #flagsByte}, {@code ecn} the
     * {@link #FECN}/{@link #BECN} bits.
     */
    public static int write(BytesStore<?, ?> store, long offset, int opcode, int flags, int partitionKey, int ecn,
                            int destinationQp, boolean ackRequest, int psn) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        NetworkOrder.put8(store, offset + OFF_OPCODE, opcode);
        NetworkOrder.put8(store, offset + OFF_FLAGS, flags);
        NetworkOrder.put16(store, offset + OFF_P_KEY, partitionKey);
        NetworkOrder.put32(store, offset + OFF_DEST_QP, (ecn & (FECN | BECN)) << 24 | destinationQp & QPN_MASK);
        NetworkOrder.put32(store, offset + OFF_PSN, (ackRequest ? ACK_REQ : 0) << 24 | psn & PSN_MASK);
        return LENGTH;
    }
}
