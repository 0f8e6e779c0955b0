package dev.irdmaemu.fw.hmc;

/**
 * How memory regions are described in the HMC PBLE object (pble.c, pble.h; verbs.c irdma_hwreg_mr,
 * irdma_post_send IB_WR_REG_MR), the contract between the driver that writes PBLEs and the device that walks them:
 * <ul>
 *   <li>A PBLE is one little-endian quadword ({@link #PBLE_SIZE}); PBLE index {@code i} lives at FPM address
 *       {@code base(PBLE) + 8 * i} (pble.c fpm_to_idx), in the host page the HMC SD/PD tables map there.</li>
 *   <li>Level 1 ({@link #CHUNK_LEVEL_1} in LPBLSIZE): {@code first_pm_pbl_index} names a run of consecutive PBLEs,
 *       each the physical address of one page of the region, in order.</li>
 *   <li>Level 2 ({@link #CHUNK_LEVEL_2}): {@code first_pm_pbl_index} names the root: consecutive PBLEs, each the
 *       PBLE index of a leaf (pble.c get_lvl2_pble stores leaf-&gt;idx); every leaf is a run of up to
 *       {@link #PBLE_PER_PAGE} page addresses, the last one possibly shorter.</li>
 *   <li>No PBL (LPBLSIZE 0): a physically contiguous region is registered by its first page's address
 *       (reg_addr_pa, irdma_reg_phys_mr and the contiguous case of irdma_reg_user_mr_type_mem).</li>
 * </ul>
 * The region's first byte is at {@code page[0] + (va &amp; (page_size - 1))} for a VA-based region, or
 * {@code page[0] + fbo} for a zero-based one (ctrl.c irdma_sc_mr_reg_non_shared writes the VA or the FBO).
 */
public final class PbleLayout {
    /** Bytes per PBLE (pble.h PBLE_SHIFT is the driver's chunk bitmap granule, 64 bytes; one PBLE is a u64). */
    public static final int PBLE_SIZE = 8;
    /** pble.h PBLE_PER_PAGE: PBLEs in one 4 KiB page, the largest leaf. */
    public static final int PBLE_PER_PAGE = 512;
    /** IRDMA_CQPSQ_STAG_LPBLSIZE / IRDMAQPSQ_LPBLSIZE values irdma writes. */
    public static final int CHUNK_NONE = 0;
    public static final int CHUNK_LEVEL_1 = 1;
    public static final int CHUNK_LEVEL_2 = 3;

    private PbleLayout() {
    }

    /** FPM address of PBLE {@code index} of an object based at {@code pbleBase}. */
    public static long fpmAddress(long pbleBase, long index) {
        return pbleBase + index * PBLE_SIZE;
    }

    /** Leaves a level-2 list of {@code pages} entries needs (pble.c get_lvl2_pble: full 512s plus a remainder). */
    public static int leafCount(long pages) {
        return (int) ((pages + PBLE_PER_PAGE - 1) / PBLE_PER_PAGE);
    }
}
