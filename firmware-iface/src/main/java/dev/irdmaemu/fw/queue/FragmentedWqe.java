package dev.irdmaemu.fw.queue;

/**
 * What the SQ and RQ work queue entries share (gen2: uk.c irdma_set_fragment and irdma_uk_post_receive; defs.h,
 * whose IRDMAQPRQ_* fields alias the SQ's IRDMAQPSQ_*): the header in quadword 3 with ADDFRAGCNT [41:38] and the
 * valid bit 63, and the fragment slots, slot 0 at +0 and the others every 16 bytes from +32, each an address
 * quadword then a quadword of length [62:32], STag [31:0] and the slot's own valid bit 63. The slot readers answer
 * 0 (or false) for a slot outside 0..15.
 */
abstract class FragmentedWqe extends QuadView {
    public static final int OFF_HEADER = 24;
    public static final int BIT_VALID = 63;

    /** Byte offset of fragment slot {@code slot} in the WQE. */
    public static int slotOffset(int slot) {
        return slot == 0 ? 0 : 32 + 16 * (slot - 1);
    }

    public long header() {
        return qword(OFF_HEADER);
    }

    public boolean valid() {
        return bit(header(), BIT_VALID);
    }

    public int additionalFragmentCount() {
        return (int) get(header(), 41, 38);
    }

    /** Fragment slots described by the header (ADDFRAGCNT + 1), the SQ's immediate and the gen2 pad included. */
    public int fragmentSlots() {
        return additionalFragmentCount() + 1;
    }

    public long fragmentAddress(int slot) {
        return slot < 0 || slot > 15 ? 0 : qword(slotOffset(slot));
    }

    public long fragmentLength(int slot) {
        return slot < 0 || slot > 15 ? 0 : get(qword(slotOffset(slot) + 8L), 62, 32);
    }

    public int fragmentStag(int slot) {
        return slot < 0 || slot > 15 ? 0 : (int) get(qword(slotOffset(slot) + 8L), 31, 0);
    }

    public boolean fragmentValid(int slot) {
        return slot >= 0 && slot <= 15 && bit(qword(slotOffset(slot) + 8L), 63);
    }

    /**
     * Writes the fragment slot at byte {@code off} as uk.c irdma_set_fragment does: SGE {@code i} of {@code sges}
     * (address; length, STag and the valid bit), or, past the last SGE, an empty slot carrying only the valid bit
     * (the gen2 pad slot).
     */
    protected final void fragment(int off, SgeList sges, int i, boolean polarity) {
        if (sges == null || i >= sges.count()) {
            putQ(off, 0L);
            putQ(off + 8, flag(polarity, 63));
        } else {
            putQ(off, sges.address(i));
            putQ(off + 8, flag(polarity, 63) | prep(Integer.toUnsignedLong(sges.length(i)), 62, 32)
                | prep(Integer.toUnsignedLong(sges.stag(i)), 31, 0));
        }
    }
}
