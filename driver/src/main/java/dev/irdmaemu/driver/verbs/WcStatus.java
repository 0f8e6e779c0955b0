package dev.irdmaemu.driver.verbs;

/** The status of a work completion (include/rdma/ib_verbs.h enum ib_wc_status), the ones irdma reports. */
public enum WcStatus {
    SUCCESS,
    LOC_LEN_ERR,
    LOC_QP_OP_ERR,
    LOC_PROT_ERR,
    WR_FLUSH_ERR,
    MW_BIND_ERR,
    REM_INV_REQ_ERR,
    REM_ACCESS_ERR,
    REM_OP_ERR,
    RETRY_EXC_ERR,
    RNR_RETRY_EXC_ERR,
    FATAL_ERR,
    GENERAL_ERR
}
