package dev.irdmaemu.fw.cqp;

import dev.irdmaemu.fw.Check;

/** Checks of the CQP host context handed over through PFPE_CCQPHIGH/LOW (ctrl.c irdma_sc_cqp_create). */
public enum CqpHostContextCheck implements Check {
    ACCEPTED("well-formed CQP host context"),
    TRUNCATED("fewer than 64 bytes (IRDMA_CQP_CTX_SIZE quadwords) readable"),
    BAD_SQ_SIZE("IRDMA_CQPHC_SQSIZE is not 1..10 (4..2048 WQEs, irdma_sc_cqp_init)"),
    MISALIGNED_SQ("SQ base not aligned to IRDMA_CQP_ALIGNMENT (512) or zero"),
    BAD_HW_VERSION("IRDMA_CQPHC_HW_MAJVER is not IRDMA_CQPHC_HW_MAJVER_GEN_2 (1)"),
    BAD_PROTOCOL("IRDMA_CQPHC_PROTOCOL_USED 3 is no enum irdma_protocol_used"),
    BAD_HMC_PROFILE("IRDMA_CQPHC_HMC_PROFILE is not 1..3 (enum irdma_cqp_hmc_profile)"),
    RESERVED_BITS_SET("a bit irdma_sc_cqp_create never sets on gen2 is set");

    private final String text;

    CqpHostContextCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
