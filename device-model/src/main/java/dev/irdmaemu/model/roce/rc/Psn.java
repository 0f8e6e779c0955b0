package dev.irdmaemu.model.roce.rc;

/**
 * Packet Sequence Number arithmetic: 24-bit serial numbers that wrap (IBA Vol. 1 §9.7.1; rxe_hdr.h psn_compare,
 * which compares by the sign of the 24-bit difference shifted into 32 bits).
 */
final class Psn {
    static final int MASK = 0xff_ffff;

    private Psn() {
    }

    /** {@code psn + n}, wrapped to 24 bits. */
    static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** The signed distance {@code a - b} in the 24-bit circle: negative when a is before b. */
    static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }
}
