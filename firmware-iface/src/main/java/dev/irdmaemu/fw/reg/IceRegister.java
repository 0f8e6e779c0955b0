package dev.irdmaemu.fw.reg;

/**
 * The BAR0 registers of one E810 PF that ice.ko touches before and around its admin queue, with the masks it
 * tests: offsets and fields from drivers/net/ethernet/intel/ice/ice_hw_autogen.h (Linux 7.3). GLINT_DYN_CTL is
 * deliberately absent: it is shared with irdma and lives with {@link Gen2Register#GLINT_DYN_CTL}.
 */
public final class IceRegister {
    private IceRegister() {
    }

    // Admin queue (PF_FW_*) and PF/VF mailbox (PF_MBX_*) rings: the same field layout.
    public static final int PF_FW_ATQBAL = 0x0008_0000;
    public static final int PF_FW_ARQBAL = 0x0008_0080;
    public static final int PF_FW_ATQBAH = 0x0008_0100;
    public static final int PF_FW_ARQBAH = 0x0008_0180;
    public static final int PF_FW_ATQLEN = 0x0008_0200;
    public static final int PF_FW_ARQLEN = 0x0008_0280;
    public static final int PF_FW_ATQH = 0x0008_0300;
    public static final int PF_FW_ARQH = 0x0008_0380;
    public static final int PF_FW_ATQT = 0x0008_0400;
    public static final int PF_FW_ARQT = 0x0008_0480;
    public static final int PF_MBX_ATQBAL = 0x0022_E100;
    public static final int PF_MBX_ATQBAH = 0x0022_E180;
    public static final int PF_MBX_ATQLEN = 0x0022_E200;
    public static final int PF_MBX_ATQH = 0x0022_E280;
    public static final int PF_MBX_ATQT = 0x0022_E300;
    public static final int PF_MBX_ARQBAL = 0x0022_E380;
    public static final int PF_MBX_ARQBAH = 0x0022_E400;
    public static final int PF_MBX_ARQLEN = 0x0022_E480;
    public static final int PF_MBX_ARQH = 0x0022_E500;
    public static final int PF_MBX_ARQT = 0x0022_E580;
    /** *_ATQLEN_ATQLEN_M / *_ARQLEN_ARQLEN_M: ring entries. */
    public static final int QLEN_LEN_M = 0x3FF;
    /** PF_FW_*QLEN_*VFE_M. */
    public static final int QLEN_VFE_M = 1 << 28;
    /** PF_FW_*QLEN_*OVFL_M. */
    public static final int QLEN_OVFL_M = 1 << 29;
    /** *_ATQLEN_ATQCRIT_M: ice_sq_send_cmd reads it after a timeout ("Critical FW error"). */
    public static final int QLEN_CRIT_M = 1 << 30;
    public static final int QLEN_ENABLE_M = 1 << 31;
    /** *_ATQH_ATQH_M / *_ARQH_ARQH_M. */
    public static final int QH_M = 0x3FF;

    // Before the admin queue (ice_main.c ice_probe / ice_common.c ice_init_hw, ice_check_reset, ice_pf_reset).
    public static final int GL_MNG_FWSM = 0x000B_6134;
    /** E800_GL_MNG_FWSM_FW_MODES_M: bit 1 set means recovery mode. */
    public static final int GL_MNG_FWSM_FW_MODES_M = 0x7;
    public static final int GL_MNG_FWSM_FW_LOADING_M = 1 << 30;
    public static final int GLNVM_ULD = 0x000B_6008;
    public static final int GLNVM_ULD_PCIER_DONE_M = 1;
    public static final int GLNVM_ULD_PCIER_DONE_1_M = 1 << 1;
    public static final int GLNVM_ULD_CORER_DONE_M = 1 << 3;
    public static final int GLNVM_ULD_GLOBR_DONE_M = 1 << 4;
    public static final int GLNVM_ULD_POR_DONE_M = 1 << 5;
    public static final int GLNVM_ULD_POR_DONE_1_M = 1 << 8;
    public static final int GLNVM_ULD_PCIER_DONE_2_M = 1 << 9;
    public static final int GLNVM_ULD_PE_DONE_M = 1 << 10;
    public static final int GLNVM_GENS = 0x000B_6100;
    public static final int GLNVM_GENS_SR_SIZE_S = 5;
    public static final int GLNVM_GENS_SR_SIZE_M = 0x7 << 5;
    public static final int GLNVM_FLA = 0x000B_6108;
    public static final int GLNVM_FLA_LOCKED_M = 1 << 6;
    public static final int GLGEN_RSTCTL = 0x000B_8180;
    public static final int GLGEN_RSTCTL_GRSTDEL_M = 0x3F;
    public static final int GLGEN_RSTAT = 0x000B_8188;
    public static final int GLGEN_RSTAT_DEVSTATE_M = 0x3;
    public static final int GLGEN_RSTAT_RESET_TYPE_S = 2;
    public static final int GLGEN_RSTAT_RESET_TYPE_M = 0x3 << 2;
    public static final int GLGEN_RTRIG = 0x000B_8190;
    public static final int GLGEN_RTRIG_CORER_M = 1;
    public static final int GLGEN_RTRIG_GLOBR_M = 1 << 1;
    public static final int GL_PWR_MODE_CTL = 0x000B_820C;
    public static final int GLGEN_CLKSTAT_SRC = 0x000B_826C;
    public static final int GLPCI_CNF2 = 0x000B_E004;
    public static final int GLPCI_CNF2_CACHELINE_SIZE_M = 1 << 1;
    public static final int PFGEN_CTRL = 0x0009_1000;
    public static final int PFGEN_CTRL_PFSWR_M = 1;
    public static final int PF_FUNC_RID = 0x0009_E880;
    public static final int PF_FUNC_RID_FUNC_NUM_M = 0x7;
    public static final int PFPM_WUS = 0x0009_DB80;
    public static final int PFQF_FD_ENA = 0x0043_A000;
    /**
     * Flow director table sizes (ice_hw_autogen.h): FD_GSIZE bits 14:0 (guaranteed filters, shared by the valid
     * functions), FD_BSIZE bits 30:16 (best effort); ice_common.c ice_parse_fdir_func_caps reads it when the
     * function capabilities list ICE_AQC_CAPS_FD.
     */
    public static final int GLQF_FD_SIZE = 0x0046_0010;
    public static final int GLQF_FD_SIZE_FD_GSIZE_M = 0x7FFF;
    public static final int GLQF_FD_SIZE_FD_BSIZE_S = 16;
    public static final int GLQF_FD_SIZE_FD_BSIZE_M = 0x7FFF << GLQF_FD_SIZE_FD_BSIZE_S;

    // Misc / OICR interrupt causes (ice_main.c ice_ena_misc_vector, ice_ena_ctrlq_interrupts, ice_misc_intr).
    public static final int PFINT_MBX_CTL = 0x0016_B280;
    public static final int PFINT_SB_CTL = 0x0016_B600;
    public static final int PFINT_FW_CTL = 0x0016_C800;
    public static final int PFINT_OICR_ENA = 0x0016_C900;
    public static final int PFINT_OICR = 0x0016_CA00;
    public static final int PFINT_OICR_CTL = 0x0016_CA80;
    public static final int PFINT_ALLOC = 0x001D_2600;
    /** PFINT_{FW,MBX,OICR,SB}_CTL_MSIX_INDX_M. */
    public static final int CTL_MSIX_INDX_M = 0x7FF;
    /** PFINT_{FW,MBX,OICR}_CTL_ITR_INDX_M. */
    public static final int CTL_ITR_INDX_M = 0x3 << 11;
    /** PFINT_{FW,MBX,OICR,SB}_CTL_CAUSE_ENA_M. */
    public static final int CTL_CAUSE_ENA_M = 1 << 30;
    public static final int PFINT_OICR_TSYN_TX_M = 1 << 11;
    public static final int PFINT_OICR_TSYN_EVNT_M = 1 << 12;
    public static final int PFINT_OICR_ECC_ERR_M = 1 << 16;
    public static final int PFINT_OICR_MAL_DETECT_M = 1 << 19;
    public static final int PFINT_OICR_GRST_M = 1 << 20;
    public static final int PFINT_OICR_PCI_EXCEPTION_M = 1 << 21;
    public static final int PFINT_OICR_HMC_ERR_M = 1 << 26;
    public static final int PFINT_OICR_PE_PUSH_M = 1 << 27;
    public static final int PFINT_OICR_PE_CRITERR_M = 1 << 28;
    public static final int PFINT_OICR_VFLR_M = 1 << 29;
    public static final int PFINT_OICR_SWINT_M = 1 << 31;

    // DCB (ice_dcb.c ice_get_dcbx_status)
    public static final int PRTDCB_GENS = 0x0008_3020;
    /** PRTDCB_GENS_DCBX_STATUS_M: ICE_DCBX_STATUS_NOT_STARTED 0, IN_PROGRESS 1, DONE 2, DIS 7 (FW agent off). */
    public static final int PRTDCB_GENS_DCBX_STATUS_M = 0x7;
    public static final int DCBX_STATUS_DIS = 7;

    // 1588 source timer (ice_hw_autogen.h GLTSYN_*, PFTSYN_SEM; commands from ice_ptp_hw.h), timer index 0
    public static final int GLTSYN_CMD = 0x0008_8810;
    public static final int GLTSYN_CMD_SYNC = 0x0008_8814;
    public static final int GLTSYN_ENA_0 = 0x0008_8808;
    public static final int GLTSYN_SYNC_DLAY = 0x0008_8818;
    public static final int GLTSYN_STAT_0 = 0x0008_88C0;
    public static final int GLTSYN_TIME_0_0 = 0x0008_88C8;
    public static final int GLTSYN_TIME_L_0 = 0x0008_88D0;
    public static final int GLTSYN_TIME_H_0 = 0x0008_88D8;
    public static final int GLTSYN_SHTIME_0_0 = 0x0008_88E0;
    public static final int GLTSYN_SHTIME_L_0 = 0x0008_88E8;
    public static final int GLTSYN_SHTIME_H_0 = 0x0008_88F0;
    public static final int GLTSYN_SHADJ_L_0 = 0x0008_8908;
    public static final int GLTSYN_SHADJ_H_0 = 0x0008_8910;
    /** PFTSYN_SEM + 4 * pf: the PF's 1588 semaphore; BUSY in bit 0. */
    public static final int PFTSYN_SEM = 0x0008_8880;
    public static final int PFTSYN_SEM_BUSY_M = 1;
    /** GLTSYN_CMD values: GLTSYN_CMD_INIT_TIME, _INIT_INCVAL, _ADJ_TIME, _ADJ_INIT_TIME (with bit 3), _READ_TIME. */
    public static final int GLTSYN_CMD_INIT_TIME = 1;
    public static final int GLTSYN_CMD_INIT_INCVAL = 1 << 1;
    public static final int GLTSYN_CMD_ADJ_TIME = 1 << 2;
    public static final int GLTSYN_CMD_ADJ_AT_TIME = 1 << 3;
    public static final int GLTSYN_CMD_READ_TIME = 1 << 7;
    /** SYNC_EXEC_CMD: the GLTSYN_CMD_SYNC value that executes the prepared commands. */
    public static final int GLTSYN_SYNC_EXEC_CMD = 0x3;
}
