package dev.irdmaemu.fw.roce;

/**
 * What an AETH syndrome says (IBA Vol. 1 §9.3.6, Table 43; the AETH_* values of rxe_hdr.h): bit 7 is reserved,
 * bits 6..5 choose ACK, RNR NAK or NAK, and the low five bits are the credit count, the RNR timer code or the NAK
 * code. {@link #of(int)} maps any syndrome byte without allocation; a reserved pattern is {@link #RESERVED}.
 */
public enum AethSyndrome {
    /** 000: positive acknowledge; low bits = credit count (31: not flow controlled). */
    ACK,
    /** 001: receiver not ready; low bits = the RNR timer code ({@link Aeth#rnrTimerMicros}). */
    RNR_NAK,
    /** 011: negative acknowledge; low bits = the {@link NakCode}. */
    NAK,
    /** 010, or bit 7 set: reserved. */
    RESERVED;

    static final int KIND_MASK = 0xe0;
    static final int ACK_BITS = 0x00;
    static final int RNR_NAK_BITS = 0x20;
    static final int NAK_BITS = 0x60;
    static final int VALUE_MASK = 0x1f;

    public static AethSyndrome of(int syndrome) {
        switch (syndrome & KIND_MASK) {
            case ACK_BITS:
                return ACK;
            case RNR_NAK_BITS:
                return RNR_NAK;
            case NAK_BITS:
                return NAK;
            default:
                return RESERVED;
        }
    }
}
