package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the 4-byte ACK Extended Transport Header (IBA Vol. 1 §9.3.6; rxe_hdr.h struct rxe_aeth):
 * an 8-bit syndrome and the 24-bit MSN, big-endian. It follows the BTH of ACKNOWLEDGE, ATOMIC ACKNOWLEDGE and RDMA
 * READ RESPONSE FIRST/LAST/ONLY. The syndrome is decoded as {@link AethSyndrome} and {@link NakCode}; the RNR
 * timer codes are IBA's Table 45 (the same table as rxe_comp.c's rnrnak_usec). Accessors read 0 outside the
 * wrapped bytes.
 */
public final class Aeth extends FixedLengthHeader<Aeth> {
    public static final int LENGTH = 4;
    public static final int OFF_SYNDROME = 0;
    public static final int OFF_MSN = 0;
    public static final int MSN_MASK = 0xff_ffff;
    /** Credit count 31: the responder does not flow-control this QP (IBA §9.7.7.2). */
    public static final int CREDITS_UNLIMITED = 0x1f;

    /** IBA Table 45, microseconds by RNR timer code (code 0 is the longest, 655.36 ms). */
    private static final int[] RNR_MICROS = {
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840, 5_120,
        7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760, 327_680,
        491_520,
    };

    public Aeth() {
        super(LENGTH);
    }

    public int syndrome() {
        return u8(OFF_SYNDROME);
    }

    public AethSyndrome kind() {
        return AethSyndrome.of(syndrome());
    }

    /** The low five syndrome bits: credit count, RNR timer code or NAK code, by {@link #kind()}. */
    public int syndromeValue() {
        return syndrome() & AethSyndrome.VALUE_MASK;
    }

    /** For a NAK: its code. */
    public NakCode nakCode() {
        return NakCode.of(syndromeValue());
    }

    public int msn() {
        return i32(OFF_MSN) & MSN_MASK;
    }

    /** Microseconds of an RNR NAK timer code (0..31, IBA Table 45). */
    public static int rnrTimerMicros(int timerCode) {
        return RNR_MICROS[timerCode & AethSyndrome.VALUE_MASK];
    }

    /** Syndrome of an ACK with a credit count (0..31, 31 = not flow controlled). */
    public static int ackSyndrome(int creditCount) {
        return AethSyndrome.ACK_BITS | creditCount & AethSyndrome.VALUE_MASK;
    }

    /** Syndrome of an RNR NAK with a timer code (0..31). */
    public static int rnrNakSyndrome(int timerCode) {
        return AethSyndrome.RNR_NAK_BITS | timerCode & AethSyndrome.VALUE_MASK;
    }

    /** Syndrome of a NAK. */
    public static int nakSyndrome(NakCode code) {
        return AethSyndrome.NAK_BITS | code.code();
    }

    /** Writes the header at absolute {@code offset}; answers 4. */
    public static int write(BytesStore<?, ?> store, long offset, int syndrome, int msn) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        NetworkOrder.put32(store, offset, (syndrome & 0xff) << 24 | msn & MSN_MASK);
        return LENGTH;
    }
}
