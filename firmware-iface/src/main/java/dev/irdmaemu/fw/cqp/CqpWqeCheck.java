package dev.irdmaemu.fw.cqp;

import dev.irdmaemu.fw.Check;

/** Checks of one CQP SQ WQE fetched from host memory (the layouts ctrl.c writes; defs.h masks). */
public enum CqpWqeCheck implements Check {
    ACCEPTED("well-formed CQP WQE"),
    TRUNCATED("fewer than 64 bytes (IRDMA_CQP_WQE_SIZE quadwords) readable"),
    UNKNOWN_OPCODE("IRDMA_CQPSQ_OPCODE is no IRDMA_CQP_OP_* value of defs.h"),
    UNSUPPORTED_OPCODE("a defs.h opcode this model does not decode"),
    RESERVED_BITS_SET("a bit the driver never sets for this opcode is set (ctrl.c writer of the op)"),
    INCONSISTENT_FLAGS("flags the driver never combines: Register MR without IRDMA_CQPSQ_STAG_MR, an MR Alloc STag "
            + "with memory-window fields, or a memory-window Alloc STag with MR fields"),
    BAD_QP_TYPE("IRDMA_CQPSQ_QP_QPTYPE is not 1..4 (defs.h IRDMA_QP_TYPE_*)"),
    BAD_IWARP_STATE("IRDMA_CQPSQ_QP_NEXTIWSTATE 7 is no IRDMA_QP_STATE_* (defs.h)"),
    BAD_PBL_CHUNK_SIZE("an LPBLSIZE code the driver never writes: 3 for the queue ops, 2 for the STag ops "
            + "(irdma_hwreg_mr writes 3 for two PBL levels)"),
    CQ_ID_MISMATCH("the CQ id in the header disagrees with quadword 1"),
    BAD_QHASH_MANAGE("IRDMA_CQPSQ_QHASH_MANAGE 3 is no enum irdma_quad_hash_manage_type"),
    BAD_QHASH_ENTRY_TYPE("IRDMA_CQPSQ_QHASH_ENTRYTYPE is no enum irdma_quad_entry_type (1..6)"),
    BAD_PAGE_SIZE("IRDMA_CQPSQ_STAG_HPAGESIZE 3 is no enum irdma_page_size"),
    BAD_SD_COUNT("IRDMA_CQPSQ_UPESD_ENTRY_COUNT above 8 (IRDMA_MAX_SD_ENTRIES - 3 inline)"),
    SD_ENTRY_GAP("inline SD entry 2 valid without entry 1, or buffer entries with fewer than 3 inline"),
    SD_BUFFER_MISSING("buffer SD entries announced with a zero buffer address"),
    BAD_SD_ENTRY("an inline SD entry is not a write command of irdma_set_sd_entry / irdma_clr_sd_entry"),
    BAD_BUFFER_SIZE("Commit FPM buffer size is not IRDMA_COMMIT_FPM_BUF_SIZE (208)");

    private final String text;

    CqpWqeCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
