package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Flyweight;

/**
 * Flyweight over the second 32 bytes of an extended CQE (user.h struct irdma_extended_cqe, quadwords 4..7),
 * present when the base entry's IRDMA_CQ_EXTCQE is set. The driver reads it from the next ring slot (or from
 * the upper half of a 64-byte entry when the CQ avoids memory conflicts); defs.h masks:
 * <pre>
 *  qword4 (+0)   IRDMA_CQ_IMMDATALOW32 [31:0] IRDMA_CQ_IMMDATAUP32 [63:32]
 *  qword6 (+16)  IRDMA_CQ_UDSMAC [47:0] (smac[0] in bits 47:40 ... smac[5] in 7:0)  IRDMA_CQ_UDVLAN [63:48]
 *  qword7 (+24)  IRDMA_CQ_UDVLANVALID 60 IRDMA_CQ_UDSMACVALID 61 IRDMA_CQ_IMMVALID 62 IRDMA_CQ_VALID 63
 * </pre>
 * For the ILQ this is where a gen2 device reports the VLAN of a received frame (irdma_puda_poll_info reads
 * IRDMA_CQ_UDVLANVALID / IRDMA_CQ_UDVLAN and the source MAC); the 16-bit VLAN field is the whole TCI as the
 * driver keeps it. Its valid bit follows {@link Cqe#extensionValidBit(boolean, long)}.
 */
public final class CqeExtension extends QuadView implements Flyweight<CqeExtension> {
    public static final int SIZE = 32;
    public static final int OFF_IMM = 0;
    public static final int OFF_UD = 16;
    public static final int OFF_FLAGS = 24;
    public static final int BIT_VLAN_VALID = 60;
    public static final int BIT_SMAC_VALID = 61;
    public static final int BIT_IMM_VALID = 62;
    public static final int BIT_VALID = 63;

    public CqeCheck validate(boolean expectedValidBit) {
        return checkPolled(SIZE, OFF_FLAGS, BIT_VALID, expectedValidBit);
    }

    public long immediateData() {
        return qword(OFF_IMM);
    }

    /** What irdma_uk_cq_poll_cmpl reports as imm_data: the low 32 bits. */
    public int immediateDataLow32() {
        return (int) get(qword(OFF_IMM), 31, 0);
    }

    /** IRDMA_CQ_UDSMAC as a 48-bit number, smac[0] most significant. */
    public long sourceMac() {
        return get(qword(OFF_UD), 47, 0);
    }

    /** Byte {@code i} (0..5) of the source MAC as the driver assembles ud_smac[i]. */
    public int sourceMacByte(int i) {
        return i < 0 || i > 5 ? 0 : (int) (sourceMac() >>> (8 * (5 - i)) & 0xff);
    }

    public int vlan() {
        return (int) get(qword(OFF_UD), 63, 48);
    }

    public boolean vlanValid() {
        return bit(qword(OFF_FLAGS), BIT_VLAN_VALID);
    }

    public boolean sourceMacValid() {
        return bit(qword(OFF_FLAGS), BIT_SMAC_VALID);
    }

    public boolean immediateValid() {
        return bit(qword(OFF_FLAGS), BIT_IMM_VALID);
    }

    public boolean valid() {
        return bit(qword(OFF_FLAGS), BIT_VALID);
    }

    /** Zeroes the 32 bytes but the valid bit, which keeps the slot's old value until {@link #valid} (as Cqe#clear). */
    public CqeExtension clear() {
        requireRoom(SIZE, "extended CQE");
        for (int i = 0; i < SIZE; i += 8) {
            putQ(i, i == OFF_FLAGS ? qword(OFF_FLAGS) & 1L << BIT_VALID : 0L);
        }
        return this;
    }

    public CqeExtension immediateData(long imm) {
        putQ(OFF_IMM, imm);
        putBit(OFF_FLAGS, BIT_IMM_VALID, true);
        return this;
    }

    public CqeExtension vlan(int tci) {
        putField(OFF_UD, 63, 48, tci);
        putBit(OFF_FLAGS, BIT_VLAN_VALID, true);
        return this;
    }

    /** {@code mac48}: the address with its first byte most significant (ether_addr_to_u64 order). */
    public CqeExtension sourceMac(long mac48) {
        putField(OFF_UD, 47, 0, mac48);
        putBit(OFF_FLAGS, BIT_SMAC_VALID, true);
        return this;
    }

    public CqeExtension valid(boolean v) {
        putQOrdered(OFF_FLAGS, set(qword(OFF_FLAGS), BIT_VALID, BIT_VALID, v ? 1 : 0));
        return this;
    }
}
