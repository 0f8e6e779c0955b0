package dev.irdmaemu.fw.lan;

/**
 * BAR0 registers of the LAN queues (ice_hw_autogen.h, Linux 7.3): offsets of element 0, strides and the fields
 * ice sets or tests (ice_base.c ice_setup_rx_ctx / ice_vsi_ctrl_one_rx_ring, ice_lib.c ice_cfg_rxq_interrupt /
 * ice_cfg_txq_interrupt, ice_txrx.c ice_tx_map, ice_main.c ice_handle_mdd_event).
 */
public final class LanRegister {
    private LanRegister() {
    }

    /** QRX_CONTEXT(i, q) = 0x280000 + i * 8192 + q * 4: dword i (0..7) of queue q's packed ice_rlan_ctx. */
    public static final int QRX_CONTEXT = 0x0028_0000;
    public static final int QRX_CONTEXT_DWORD_STRIDE = 8192;
    public static final int QRX_CONTEXT_DWORDS = 8;
    /** QRX_CTRL(q): QENA_REQ (bit 0) asks, QENA_STAT (bit 2) answers (ice_vsi_wait_one_rx_ring polls it). */
    public static final int QRX_CTRL = 0x0012_0000;
    public static final int QRX_CTRL_QENA_REQ_M = 1;
    public static final int QRX_CTRL_QENA_STAT_M = 1 << 2;
    /** QRX_TAIL(q): the index one past the last descriptor the driver posted (13 bits). */
    public static final int QRX_TAIL = 0x0029_0000;
    public static final int QRX_TAIL_M = 0x1FFF;
    /** QRXFLXP_CNTXT(q): RXDID (6 bits) and its priority (3 bits at 8) (ice_write_qrxflxp_cntxt). */
    public static final int QRXFLXP_CNTXT = 0x0048_0000;
    public static final int QRXFLXP_CNTXT_RXDID_IDX_M = 0x3F;
    /** QINT_RQCTL(q) / QINT_TQCTL(q): MSI-X index (11 bits), ITR index (2 bits at 11), CAUSE_ENA (bit 30). */
    public static final int QINT_RQCTL = 0x0015_0000;
    public static final int QINT_TQCTL = 0x0014_0000;
    public static final int QINT_MSIX_INDX_M = 0x7FF;
    public static final int QINT_ITR_INDX_S = 11;
    public static final int QINT_ITR_INDX_M = 0x3;
    public static final int QINT_CAUSE_ENA_M = 1 << 30;
    /** QTX_COMM_DBELL(q): the Tx tail doorbell (ice_tx_map writes next_to_use). */
    public static final int QTX_COMM_DBELL = 0x002C_0000;
    /** QTX_COMM_HEAD(q): the head the hardware reports (13 bits); ice reads it only for hang detection. */
    public static final int QTX_COMM_HEAD = 0x000E_0000;
    public static final int QTX_COMM_HEAD_M = 0x1FFF;
    /** Every per-queue register array above is 4 bytes per queue. */
    public static final int QUEUE_STRIDE = 4;

    // Malicious driver detection (ice_main.c ice_handle_mdd_event reads these, then writes all-ones to clear).
    public static final int GL_MDET_RX = 0x0029_4C00;
    public static final int GL_MDET_TX_TCLAN = 0x000F_C068;
    public static final int PF_MDET_RX = 0x0029_4280;
    public static final int PF_MDET_TX_TCLAN = 0x000F_C000;
    public static final int GL_MDET_QNUM_M = 0x7FFF;
    public static final int GL_MDET_PF_NUM_S = 23;
    public static final int GL_MDET_MAL_TYPE_S = 26;
    public static final int GL_MDET_MAL_TYPE_M = 0x1F << 26;
    public static final int GL_MDET_VALID_M = 1 << 31;
    public static final int PF_MDET_VALID_M = 1;
    /** GLV_RDPC(vsi): Rx frames dropped for want of a descriptor (ice_update_eth_stats rx_discards). */
    public static final int GLV_RDPC = 0x0029_4C04;
}
