package dev.irdmaemu.fw.reg;

/**
 * Field layouts of the gen2 registers irdma touches, and the values it writes to its doorbells. Offsets are in
 * {@link Gen2Register}; the gen-dependent WQE masks in {@link Gen2HwMask}. Everything here is 32-bit (readl /
 * writel). Sources: irdma.h (IRDMA_CQPTAIL_*, IRDMA_CQPERRCODES_*, IRDMA_GLINT_*, IRDMA_PFINT_AEQCTL_*,
 * IRDMA_PFHMC_PDINV_*, IRDMA_GLPCI_LBARCTRL_PE_DB_SIZE), icrdma_hw.h (ICRDMA_CCQPSTATUS_*, VFPE_*), the functions
 * named at each group.
 *
 * <p>Note: icrdma_hw.h defines no PFHMC_SDCMD / SDDATALOW / SDDATAHIGH offsets: on gen2 the PF programs segment
 * descriptors through the CQP (Update PE SDs, ctrl.c cqp_sds_wqe_fill); only the field masks of those registers
 * (IRDMA_PFHMC_SDCMD_PMSDWR, IRDMA_PFHMC_SDDATALOW_*) survive, as the encoding of the SD entries carried by that
 * WQE: see {@code dev.irdmaemu.fw.hmc.SegmentDescriptor}.
 */
public final class Gen2Registers {
    private Gen2Registers() {
    }

    // --- PFPE_CQPTAIL (ctrl.c irdma_get_cqp_reg_info): the device's CQP SQ tail and the op-error flag.
    public static final long CQPTAIL_WQTAIL = Bits.genmask(10, 0);
    public static final long CQPTAIL_CQP_OP_ERR = Bits.bit(31);

    public static int cqpTail(int tail, boolean opError) {
        return (int) (Bits.prep(CQPTAIL_WQTAIL, tail) | Bits.prep(CQPTAIL_CQP_OP_ERR, opError));
    }

    public static int cqpTailIndex(int value) {
        return Bits.getInt(value, CQPTAIL_WQTAIL);
    }

    public static boolean cqpTailError(int value) {
        return (value & CQPTAIL_CQP_OP_ERR) != 0;
    }

    // --- PFPE_CQPDB (ctrl.c irdma_sc_cqp_post_sq): the driver writes its SQ ring head (the next free WQE index).
    /** The CQP doorbell value: the new SQ head. */
    public static int cqpDoorbell(int sqHead) {
        return sqHead;
    }

    // --- PFPE_CCQPSTATUS (ctrl.c irdma_sc_cqp_create polls until non-zero, then tests CCQP_ERR;
    // irdma_sc_cqp_destroy polls until CCQP_DONE clears).
    public static int ccqpStatus(boolean done, boolean error) {
        return (int) (Gen2HwMask.CCQPSTATUS_CCQP_DONE.prep(done ? 1 : 0)
                | Gen2HwMask.CCQPSTATUS_CCQP_ERR.prep(error ? 1 : 0));
    }

    public static boolean ccqpDone(int value) {
        return Gen2HwMask.CCQPSTATUS_CCQP_DONE.get(value & 0xffff_ffffL) != 0;
    }

    public static boolean ccqpError(int value) {
        return Gen2HwMask.CCQPSTATUS_CCQP_ERR.get(value & 0xffff_ffffL) != 0;
    }

    // --- PFPE_CCQPHIGH / PFPE_CCQPLOW (irdma_sc_cqp_create): the CQP host context address, high word first; the
    // writes of 0, 0 in irdma_sc_cqp_destroy tear the CQP down.
    public static long hostContextAddress(int high, int low) {
        return (high & 0xffff_ffffL) << 32 | (low & 0xffff_ffffL);
    }

    // --- PFPE_CQPERRCODES (irdma_sc_cqp_create error path, irdma_cqp_poll_registers, irdma_sc_ccq_get_cqe_info).
    public static final long CQPERRCODES_CQP_MINOR_CODE = Bits.genmask(15, 0);
    public static final long CQPERRCODES_CQP_MAJOR_CODE = Bits.genmask(31, 16);

    public static int cqpErrCodes(int major, int minor) {
        return (int) (Bits.prep(CQPERRCODES_CQP_MAJOR_CODE, major) | Bits.prep(CQPERRCODES_CQP_MINOR_CODE, minor));
    }

    public static int cqpErrMajor(int value) {
        return Bits.getInt(value & 0xffff_ffffL, CQPERRCODES_CQP_MAJOR_CODE);
    }

    public static int cqpErrMinor(int value) {
        return Bits.getInt(value, CQPERRCODES_CQP_MINOR_CODE);
    }

    // --- Doorbells. PFPE_WQEALLOC: uk.c irdma_uk_qp_post_wr writes the QP id (IRDMA_WQEALLOC_WQE_DESC_INDEX,
    // GENMASK(31, 20), is defined in irdma.h but no 7.3 code writes it). PFPE_CQARM: uk.c
    // irdma_uk_cq_request_notification and ctrl.c irdma_sc_ccq_arm write the CQ id after updating the arm word of
    // the CQ shadow area. PFPE_CQACK: hw.c writes the CQ id. PFPE_AEQALLOC: ctrl.c irdma_sc_repost_aeq_entries
    // writes the number of AEQ entries handed back.
    public static final long WQEALLOC_WQE_DESC_INDEX = Bits.genmask(31, 20);
    public static int wqeAllocDoorbell(int qpId) {
        return qpId;
    }

    /** The QP id of a WQEALLOC write: the whole value, as irdma_uk_qp_post_wr writes it. */
    public static int wqeAllocQpId(int value) {
        return value;
    }

    public static int wqeAllocDescIndex(int value) {
        return Bits.getInt(value & 0xffff_ffffL, WQEALLOC_WQE_DESC_INDEX);
    }

    public static int cqArmDoorbell(int cqId) {
        return cqId;
    }

    public static int cqAckDoorbell(int cqId) {
        return cqId;
    }

    public static int aeqAllocDoorbell(int count) {
        return count;
    }

    // --- CQ arm word, quadword 4 (byte 32) of the CQ shadow area (defs.h IRDMA_CQ_DBSA_*), read by the device on a
    // CQARM doorbell; written by uk.c irdma_uk_cq_request_notification / ctrl.c irdma_sc_ccq_arm.
    public static final int CQ_SHADOW_ARM_OFFSET = 32;
    public static final long CQ_DBSA_SW_CQ_SELECT = Bits.genmask(13, 0);
    public static final long CQ_DBSA_ARM_NEXT = Bits.bit(14);
    public static final long CQ_DBSA_ARM_NEXT_SE = Bits.bit(15);
    public static final long CQ_DBSA_ARM_SEQ_NUM = Bits.genmask(17, 16);
    /** Quadword 0 of the CQ shadow area: the CQ head (IRDMA_CQ_DBSA_CQEIDX, ctrl.c irdma_sc_ccq_get_cqe_info). */
    public static final long CQ_DBSA_CQEIDX = Bits.genmask(19, 0);

    public static long cqArmWord(int seqNum, int swCqSelect, boolean armNextSolicited, boolean armNext) {
        return Bits.prep(CQ_DBSA_ARM_SEQ_NUM, seqNum) | Bits.prep(CQ_DBSA_SW_CQ_SELECT, swCqSelect)
                | Bits.prep(CQ_DBSA_ARM_NEXT_SE, armNextSolicited) | Bits.prep(CQ_DBSA_ARM_NEXT, armNext);
    }

    // --- The user doorbell page at BAR0 + Gen2Register.DB_ADDR_OFFSET (verbs.c irdma_alloc_ucontext maps one page
    // of it, uncached, into each user context). libirdma writes a QP id at its start (irdma_uk_qp_post_wr through
    // wqe_alloc_db = the page) and a CQ id at IRDMA_DB_CQ_OFFSET (irdma_uk_cq_request_notification through
    // cqe_alloc_db = page + 64): the same values the kernel writes to PFPE_WQEALLOC and PFPE_CQARM.
    /** Byte offset in the doorbell page of the SQ doorbell (the QP id; PFPE_WQEALLOC's alias). */
    public static final int DB_PAGE_WQE_ALLOC = 0x00;
    /** Byte offset in the doorbell page of the CQ arm doorbell (the CQ id; PFPE_CQARM's alias). */
    public static final int DB_PAGE_CQ_ARM = 0x40;
    /** The page the kernel maps (PAGE_SIZE; irdma_mmap refuses any other length). */
    public static final int DB_PAGE_SIZE = 4096;

    // --- QP shadow area (Create QP quadword 5, ctrl.c irdma_sc_qp_create), quadword 0: the device's SQ tail
    // (defs.h IRDMA_QP_DBSA_HW_SQ_TAIL), the SQ index in quanta of the next WQE it will fetch. Read by the
    // doorbell elision of older uk.c / libirdma irdma_uk_qp_post_wr; current versions always ring.
    public static final int QP_SHADOW_SQ_TAIL_OFFSET = 0;
    public static final long QP_DBSA_HW_SQ_TAIL = Bits.genmask(14, 0);

    /** Quadword 0 of the QP shadow area for SQ tail {@code sqIndex} (in quanta). No allocation. */
    public static long qpShadowSqTail(int sqIndex) {
        return Bits.prep(QP_DBSA_HW_SQ_TAIL, sqIndex);
    }

    public static int qpShadowSqTailOf(long quadword) {
        return Bits.getInt(quadword, QP_DBSA_HW_SQ_TAIL);
    }

    // --- GLINT_DYN_CTL(vector) (icrdma_hw.c icrdma_ena_irq / icrdma_disable_irq; gen2 indexes by vector, gen1 by
    // vector - 1).
    public static final long GLINT_DYN_CTL_INTENA = Bits.bit(0);
    public static final long GLINT_DYN_CTL_CLEARPBA = Bits.bit(1);
    public static final long GLINT_DYN_CTL_ITR_INDX = Bits.genmask(4, 3);
    public static final long GLINT_DYN_CTL_INTERVAL = Bits.genmask(16, 5);
    // The rest of the register as ice uses it (ice_hw_autogen.h; ice_txrx.c ice_buildreg_itr, ice_enable_interrupt,
    // ice_set_wb_on_itr): a software interrupt, the ITR index it waits on, write-back on ITR, and INTENA_MSK, which
    // makes the write leave INTENA as it is.
    public static final long GLINT_DYN_CTL_SWINT_TRIG = Bits.bit(2);
    public static final long GLINT_DYN_CTL_SW_ITR_INDX_ENA = Bits.bit(24);
    public static final long GLINT_DYN_CTL_SW_ITR_INDX = Bits.genmask(26, 25);
    public static final long GLINT_DYN_CTL_WB_ON_ITR = Bits.bit(30);
    public static final long GLINT_DYN_CTL_INTENA_MSK = Bits.bit(31);
    /** ITR index 3 in ITR_INDX: "no ITR" (ice_txrx.h ICE_ITR_NONE): the write updates no interval, a cause waits on none. */
    public static final int ITR_NONE = 3;
    /** The ITR interval unit: 2 us (ice_txrx.h ICE_ITR_GRAN_S; ice_lib.c __ice_write_itr writes usecs >> 1). */
    public static final long ITR_GRANULE_NANOS = 2_000;

    // --- GLINT_ITR(i, vector) (ice_hw_autogen.h): the three throttling intervals of each vector, 12 bits of 2 us.
    public static final int GLINT_ITR = 0x0015_4000;
    public static final int GLINT_ITR_INDEX_STRIDE = 8192;
    public static final int GLINT_ITR_INDEXES = 3;
    public static final long GLINT_ITR_INTERVAL = Bits.genmask(11, 0);

    /** The value icrdma_ena_irq writes: ITR index 0, the interval (2 us units), INTENA and CLEARPBA set. */
    public static int dynCtlEnable(int interval) {
        return (int) (Bits.prep(GLINT_DYN_CTL_ITR_INDX, 0) | Bits.prep(GLINT_DYN_CTL_INTERVAL, interval)
                | GLINT_DYN_CTL_INTENA | GLINT_DYN_CTL_CLEARPBA);
    }

    // --- GLINT_CEQCTL(ceq) (icrdma_hw.c icrdma_cfg_ceq) and PFINT_AEQCTL (ctrl.c irdma_cfg_aeq): route a CEQ / the
    // AEQ to an MSI-X vector; the driver always uses ITR index 3 (IRDMA_IDX_NOITR).
    public static final long GLINT_CEQCTL_MSIX_INDX = Bits.genmask(10, 0);
    public static final long GLINT_CEQCTL_ITR_INDX = Bits.genmask(12, 11);
    public static final long GLINT_CEQCTL_CAUSE_ENA = Bits.bit(30);
    public static final long PFINT_AEQCTL_MSIX_INDX = Bits.genmask(10, 0);
    public static final long PFINT_AEQCTL_ITR_INDX = Bits.genmask(12, 11);
    public static final long PFINT_AEQCTL_CAUSE_ENA = Bits.bit(30);
    /** IRDMA_IDX_NOITR (irdma.h enum irdma_dyn_idx_t). */
    public static final int ITR_INDEX_NOITR = 3;

    public static int ceqCtl(boolean enable, int msixVector) {
        return (int) (Bits.prep(GLINT_CEQCTL_CAUSE_ENA, enable) | Bits.prep(GLINT_CEQCTL_MSIX_INDX, msixVector)
                | Bits.prep(GLINT_CEQCTL_ITR_INDX, ITR_INDEX_NOITR));
    }

    public static int aeqCtl(boolean enable, int msixVector) {
        return (int) (Bits.prep(PFINT_AEQCTL_CAUSE_ENA, enable) | Bits.prep(PFINT_AEQCTL_MSIX_INDX, msixVector)
                | Bits.prep(PFINT_AEQCTL_ITR_INDX, ITR_INDEX_NOITR));
    }

    public static boolean causeEnabled(int ctl) {
        return (ctl & GLINT_CEQCTL_CAUSE_ENA) != 0;
    }

    public static int msixVector(int ctl) {
        return Bits.getInt(ctl, GLINT_CEQCTL_MSIX_INDX);
    }

    // --- GLINT_RATE (irdma.h IRDMA_GLINT_RATE_*).
    public static final long GLINT_RATE_INTERVAL = Bits.genmask(5, 0);
    public static final long GLINT_RATE_INTRL_ENA = Bits.bit(6);
    /** The INTRL unit ice writes in (ice_lib.c ice_write_intrl: ICE_INTRL_GRAN_ABOVE_25, 4 us). */
    public static final long INTRL_GRANULE_NANOS = 4_000;

    // --- PFHMC_PDINV (hmc.c irdma_invalidate_pf_hmc_pd): invalidate one PD of a paged SD in the device's cache.
    public static final long PFHMC_PDINV_PMSDIDX = Bits.genmask(11, 0);
    public static final long PFHMC_PDINV_PMSDPARTSEL = Bits.bit(15);
    public static final long PFHMC_PDINV_PMPDIDX = Bits.genmask(24, 16);

    /**
     * The value irdma_invalidate_pf_hmc_pd writes. FIELD_PREP truncates {@code pdIndex} to 9 bits, so the absolute
     * PD index irdma_remove_pd_bp passes and the relative one irdma_add_pd_table_entry passes encode the same.
     */
    public static int pdInvalidate(int sdIndex, int pdIndex) {
        return (int) (Bits.prep(PFHMC_PDINV_PMSDIDX, sdIndex) | PFHMC_PDINV_PMSDPARTSEL
                | Bits.prep(PFHMC_PDINV_PMPDIDX, pdIndex));
    }

    public static int pdInvalidateSdIndex(int value) {
        return Bits.getInt(value, PFHMC_PDINV_PMSDIDX);
    }

    public static int pdInvalidatePdIndex(int value) {
        return Bits.getInt(value, PFHMC_PDINV_PMPDIDX);
    }

    public static boolean pdInvalidatePartSel(int value) {
        return (value & PFHMC_PDINV_PMSDPARTSEL) != 0;
    }

    // --- GLPCI_LBARCTRL (ctrl.c irdma_sc_dev_init): the PE doorbell size must read 1 (4 MiB) or 2 (8 MiB).
    public static final long GLPCI_LBARCTRL_PE_DB_SIZE = Bits.genmask(5, 4);
    /** defs.h IRDMA_PE_DB_SIZE_4M / IRDMA_PE_DB_SIZE_8M. */
    public static final int PE_DB_SIZE_4M = 1;
    public static final int PE_DB_SIZE_8M = 2;

    public static int lbarCtrl(int peDbSize) {
        return (int) Bits.prep(GLPCI_LBARCTRL_PE_DB_SIZE, peDbSize);
    }

    // --- GLPE_CPUSTATUS0/1/2 (ctrl.c irdma_wait_pe_ready): all three read 0x80 when the PE firmware is ready.
    public static final int CPUSTATUS_READY = 0x80;

    // --- VF register set (icrdma_hw.h VFPE_*): the same CQP/doorbell registers seen through a VF BAR.
    public static final int VFPE_CQPTAIL1 = 0x0000_a000;
    public static final int VFPE_CQPDB1 = 0x0000_bc00;
    public static final int VFPE_CCQPSTATUS1 = 0x0000_b800;
    public static final int VFPE_CCQPHIGH1 = 0x0000_9800;
    public static final int VFPE_CCQPLOW1 = 0x0000_ac00;
    public static final int VFPE_CQARM1 = 0x0000_b400;
    public static final int VFPE_CQACK1 = 0x0000_b000;
    public static final int VFPE_AEQALLOC1 = 0x0000_a400;
    public static final int VFPE_CQPERRCODES1 = 0x0000_9c00;
    public static final int VFPE_WQEALLOC1 = 0x0000_c000;
    /** VFINT_DYN_CTLN(_i) = 0x00003800 + 4 * _i, _i = 0..63. */
    public static final int VFINT_DYN_CTLN = 0x0000_3800;
    /** ICRDMA_VF_DB_ADDR_OFFSET. */
    public static final int VF_DB_ADDR_OFFSET = 64 * 1024;
}
