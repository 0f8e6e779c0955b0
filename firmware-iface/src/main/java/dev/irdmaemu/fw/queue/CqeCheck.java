package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Check;

/** Checks of a completion queue entry as the consumer polls it (irdma_uk_cq_poll_cmpl). */
public enum CqeCheck implements Check {
    ACCEPTED("a completion the consumer may read"),
    TRUNCATED("shorter than the 32-byte CQE (user.h IRDMA_CQE_SIZE)"),
    NOT_POSTED("valid bit differs from the consumer's polarity: no new completion (uk.c irdma_uk_cq_poll_cmpl)");

    private final String text;

    CqeCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
