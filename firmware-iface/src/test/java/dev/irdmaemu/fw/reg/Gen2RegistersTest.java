package dev.irdmaemu.fw.reg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import java.util.OptionalInt;

class Gen2RegistersTest {

    /** icrdma_hw.c icrdma_regs[], in enum irdma_registers order, values from icrdma_hw.h. */
    @Test
    void offsetsAreIcrdmaRegsInKernelOrder() {
        int[] icrdmaRegs = {
            0x00500880, 0x00500800, 0x0050a000, 0x0050a100, 0x0050a080, 0x00502c00, 0x00502c80, 0x00502d00,
            0x0050a200, 0x00504400, 0x00160000, 8 * 1024 * 1024 - 64 * 1024, 0x0009de74, 0x0050ba5c, 0x0050ba60,
            0x0050ba64, 0x0016cb00, 0x0015c000, 0x00414000, 0x00520300, 0x00528300, 0x00534000, 0x0015A000,
            0x00520400, 0x00520500,
        };
        String[] names = {
            "CQPTAIL", "CQPDB", "CCQPSTATUS", "CCQPHIGH", "CCQPLOW", "CQARM", "CQACK", "AEQALLOC", "CQPERRCODES",
            "WQEALLOC", "GLINT_DYN_CTL", "DB_ADDR_OFFSET", "GLPCI_LBARCTRL", "GLPE_CPUSTATUS0", "GLPE_CPUSTATUS1",
            "GLPE_CPUSTATUS2", "PFINT_AEQCTL", "GLINT_CEQCTL", "VSIQF_PE_CTL1", "PFHMC_PDINV", "GLHMC_VFPDINV",
            "GLPE_CRITERR", "GLINT_RATE", "PFHMC_ERRORINFO", "PFHMC_ERRORDATA",
        };
        assertEquals(icrdmaRegs.length, Gen2Register.values().length, "IRDMA_MAX_REGS entries");
        for (int i = 0; i < icrdmaRegs.length; i++) {
            Gen2Register r = Gen2Register.values()[i];
            assertEquals(names[i], r.name());
            assertEquals(i, r.kernelIndex());
            assertEquals(icrdmaRegs[i], r.offset(), r.name());
        }
        assertEquals(0x7f_0000, Gen2Register.DB_ADDR_OFFSET.offset());
    }

    /** icrdma_hw.h: GLINT_DYN_CTL(_INT) = 0x160000 + 4 * _INT, _i = 0..2047; VSIQF_PE_CTL1 0..767; VFPDINV 0..31. */
    @Test
    void indexedRegisters() {
        assertEquals(0x0016_0000 + 4 * 17, Gen2Register.GLINT_DYN_CTL.at(17));
        assertEquals(0x0015_c000 + 4 * 2047, Gen2Register.GLINT_CEQCTL.at(2047));
        assertEquals(-1, Gen2Register.GLINT_CEQCTL.at(2048));
        assertEquals(-1, Gen2Register.VSIQF_PE_CTL1.at(768));
        assertEquals(0x0052_8300 + 4 * 31, Gen2Register.GLHMC_VFPDINV.at(31));
        assertEquals(-1, Gen2Register.GLHMC_VFPDINV.at(32));
        assertEquals(-1, Gen2Register.CQPTAIL.at(1));
        assertSame(Gen2Register.GLINT_DYN_CTL, Gen2Register.lookup(0x0016_0000 + 4 * 5));
        assertEquals(OptionalInt.of(5), Gen2Register.indexOf(Gen2Register.GLINT_DYN_CTL, 0x0016_0000 + 4 * 5));
        assertSame(Gen2Register.CQPDB, Gen2Register.lookup(0x0050_0800));
        assertNull(Gen2Register.lookup(0x0050_0802), "unaligned inside nothing");
        assertNull(Gen2Register.lookup(0x0016_0000 + 4 * 2048), "past the last vector");
        assertNull(Gen2Register.lookup(Gen2Register.DB_ADDR_OFFSET.offset()), "the doorbell page is no register");
        assertEquals(OptionalInt.empty(), Gen2Register.indexOf(Gen2Register.GLINT_DYN_CTL, 0x0016_0002));
    }

    /** icrdma_hw.c icrdma_masks[] / icrdma_shifts[] in enum irdma_masks order (ICRDMA_* of icrdma_hw.h). */
    @Test
    void hwMasksAreIcrdmaMasks() {
        long[] masks = {1L, 1L << 31, 0xffffc000_00000000L, 0xffc00000L, 0x7ffffL, 0xfffffL, 0x3fL};
        int[] shifts = {0, 31, 46, 22, 0, 0, 0};
        assertEquals(masks.length, Gen2HwMask.values().length, "IRDMA_MAX_MASKS entries");
        for (int i = 0; i < masks.length; i++) {
            assertEquals(masks[i], Gen2HwMask.values()[i].mask(), Gen2HwMask.values()[i].name());
            assertEquals(shifts[i], Gen2HwMask.values()[i].shift(), Gen2HwMask.values()[i].name());
        }
        assertEquals(3L << 46, Gen2HwMask.CQPSQ_STAG_PDID.prep(3), "FLD_LS_64");
        assertEquals(0x3ffffL << 46, Gen2HwMask.CQPSQ_STAG_PDID.prep(0xfffffff), "FLD_LS_64 truncates to the mask");
    }

    /** ctrl.c irdma_get_cqp_reg_info: IRDMA_CQPTAIL_WQTAIL GENMASK(10, 0), IRDMA_CQPTAIL_CQP_OP_ERR BIT(31). */
    @Test
    void cqpTail() {
        assertEquals(0x8000_0123, Gen2Registers.cqpTail(0x123, true));
        assertEquals(0x7ff, Gen2Registers.cqpTail(0xfff, false), "11-bit tail");
        assertEquals(0x123, Gen2Registers.cqpTailIndex(0x8000_0123));
        assertTrue(Gen2Registers.cqpTailError(0x8000_0000));
        assertFalse(Gen2Registers.cqpTailError(0x7fff_ffff));
    }

    /** irdma_sc_cqp_create: FLD_RS_32 of ICRDMA_CCQPSTATUS_CCQP_DONE (bit 0) / _ERR (bit 31). */
    @Test
    void ccqpStatus() {
        assertEquals(1, Gen2Registers.ccqpStatus(true, false));
        assertEquals(0x8000_0001, Gen2Registers.ccqpStatus(true, true));
        assertTrue(Gen2Registers.ccqpError(0x8000_0001));
        assertTrue(Gen2Registers.ccqpDone(0x8000_0001));
        assertFalse(Gen2Registers.ccqpDone(0x8000_0000));
        assertEquals(0x0000_0012_3456_7000L, Gen2Registers.hostContextAddress(0x12, 0x3456_7000));
        assertEquals(0xffff_ffff_8000_0000L, Gen2Registers.hostContextAddress(-1, 0x8000_0000));
    }

    /** irdma.h IRDMA_CQPERRCODES_CQP_MINOR_CODE GENMASK(15, 0), _MAJOR_CODE GENMASK(31, 16). */
    @Test
    void cqpErrCodes() {
        int v = Gen2Registers.cqpErrCodes(0xffff, 0x8002);
        assertEquals(0xffff_8002, v);
        assertEquals(0xffff, Gen2Registers.cqpErrMajor(v));
        assertEquals(0x8002, Gen2Registers.cqpErrMinor(v));
    }

    /** icrdma_cfg_ceq / irdma_cfg_aeq: CAUSE_ENA bit 30, MSIX_INDX 10:0, ITR_INDX 12:11 = 3. */
    @Test
    void eqInterruptControl() {
        assertEquals(0x4000_0000 | 3 << 11 | 7, Gen2Registers.ceqCtl(true, 7));
        assertEquals(3 << 11 | 0x7ff, Gen2Registers.aeqCtl(false, 0x7ff));
        assertTrue(Gen2Registers.causeEnabled(Gen2Registers.ceqCtl(true, 0)));
        assertEquals(9, Gen2Registers.msixVector(Gen2Registers.aeqCtl(true, 9)));
    }

    /** icrdma_ena_irq: INTENA bit 0, CLEARPBA bit 1, ITR_INDX 4:3 = 0, INTERVAL 16:5. */
    @Test
    void dynCtl() {
        assertEquals(3 | 10 << 5, Gen2Registers.dynCtlEnable(10));
        assertEquals(3 | 0xfff << 5, Gen2Registers.dynCtlEnable(0x1fff), "12-bit interval");
    }

    /** hmc.c irdma_invalidate_pf_hmc_pd: PMSDIDX 11:0, PMSDPARTSEL bit 15, PMPDIDX 24:16 (irdma.h). */
    @Test
    void pdInvalidate() {
        assertEquals(0x8005 | 0x1ff << 16, Gen2Registers.pdInvalidate(5, 511));
        assertEquals(Gen2Registers.pdInvalidate(5, 3), Gen2Registers.pdInvalidate(5, 512 * 5 + 3),
                "FIELD_PREP keeps 9 bits: the absolute index of irdma_remove_pd_bp encodes as the relative one");
        int v = Gen2Registers.pdInvalidate(0xabc, 0x42);
        assertEquals(0xabc, Gen2Registers.pdInvalidateSdIndex(v));
        assertEquals(0x42, Gen2Registers.pdInvalidatePdIndex(v));
        assertTrue(Gen2Registers.pdInvalidatePartSel(v));
    }

    /** irdma_sc_dev_init: IRDMA_GLPCI_LBARCTRL_PE_DB_SIZE GENMASK(5, 4) must be 1 or 2; CPUSTATUS 0x80 ready. */
    @Test
    void bringUpRegisters() {
        assertEquals(0x10, Gen2Registers.lbarCtrl(Gen2Registers.PE_DB_SIZE_4M));
        assertEquals(0x20, Gen2Registers.lbarCtrl(Gen2Registers.PE_DB_SIZE_8M));
        assertEquals(0x80, Gen2Registers.CPUSTATUS_READY);
    }

    /**
     * The doorbell values: uk.c irdma_uk_qp_post_wr (QP id to WQEALLOC), irdma_uk_cq_request_notification and
     * irdma_sc_ccq_arm (CQ id to CQARM after the arm word IRDMA_CQ_DBSA_*), irdma_sc_repost_aeq_entries (count).
     */
    @Test
    void doorbells() {
        assertEquals(77, Gen2Registers.wqeAllocDoorbell(77));
        assertEquals(77, Gen2Registers.wqeAllocQpId(77));
        assertEquals(0xabc, Gen2Registers.wqeAllocDescIndex(0xabc0_0000));
        assertEquals(5, Gen2Registers.cqArmDoorbell(5));
        assertEquals(6, Gen2Registers.cqAckDoorbell(6));
        assertEquals(8, Gen2Registers.aeqAllocDoorbell(8));
        assertEquals(9, Gen2Registers.cqpDoorbell(9));
        // arm_seq_num 17:16, sw_cq_sel 13:0, arm_next_se bit 15, arm_next bit 14
        assertEquals(2L << 16 | 0x123 | 1L << 15 | 1L << 14, Gen2Registers.cqArmWord(2, 0x123, true, true));
        assertEquals(1L << 15, Gen2Registers.cqArmWord(4, 0, true, false), "2-bit sequence number wraps");
    }

    @Test
    void bits() {
        assertEquals(0xffff_ffffL << 32, Bits.genmask(63, 32));
        assertEquals(-1L, Bits.genmask(63, 0));
        assertEquals(1L << 63, Bits.bit(63));
        assertEquals(0x3fL << 32, Bits.genmask(37, 32));
        assertThrows(IllegalArgumentException.class, () -> Bits.genmask(3, 4));
        assertEquals(0x25, Bits.get(0x25L << 32 | 1L << 63, Bits.genmask(37, 32)));
        assertEquals(0x5L << 32, Bits.prep(Bits.genmask(37, 32), 0x45), "FIELD_PREP truncates");
        assertTrue(Bits.fits(Bits.genmask(37, 32), 63));
        assertFalse(Bits.fits(Bits.genmask(37, 32), 64));
        assertEquals(0xf0L, Bits.set(0xffL, Bits.genmask(3, 0), 0));
    }

    @Property(tries = 300)
    void fieldGetOfPrepIsTheTruncatedValue(@ForAll @IntRange(max = 63) int a, @ForAll @IntRange(max = 63) int b,
                                           @ForAll long v) {
        int hi = Math.max(a, b);
        int lo = Math.min(a, b);
        long mask = Bits.genmask(hi, lo);
        long width = hi - lo + 1;
        long expected = width == 64 ? v : v & ((1L << width) - 1);
        assertEquals(expected, Bits.get(Bits.prep(mask, v), mask));
        assertEquals(Long.bitCount(mask), (int) width);
    }
}
