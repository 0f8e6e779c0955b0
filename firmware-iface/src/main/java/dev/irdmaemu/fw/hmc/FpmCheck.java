package dev.irdmaemu.fw.hmc;

import dev.irdmaemu.fw.Check;

/** Checks of the FPM value buffers (irdma_sc_parse_fpm_query_buf / irdma_sc_parse_fpm_commit_buf, ctrl.c). */
public enum FpmCheck implements Check {
    ACCEPTED("well-formed FPM buffer"),
    TRUNCATED("shorter than IRDMA_QUERY_FPM_BUF_SIZE (200) / IRDMA_COMMIT_FPM_BUF_SIZE (208)"),
    MISSING_BLOCK_SIZE("a free list with objects but no block size (the driver answers -EINVAL)"),
    OBJECT_SIZE_TOO_LARGE("log2 object size of 64 or more (BIT_ULL of it is undefined)");

    private final String text;

    FpmCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
