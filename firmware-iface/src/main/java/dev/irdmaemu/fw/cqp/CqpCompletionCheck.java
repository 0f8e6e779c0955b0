package dev.irdmaemu.fw.cqp;

import dev.irdmaemu.fw.Check;

/** Checks of a CCQ completion as irdma_sc_ccq_get_cqe_info (ctrl.c) reads it. */
public enum CqpCompletionCheck implements Check {
    ACCEPTED("well-formed CCQ completion"),
    TRUNCATED("fewer than 32 bytes readable"),
    MAJOR_WITHOUT_ERROR("a major error code without IRDMA_CQ_ERROR (the driver would read it as success)");

    private final String text;

    CqpCompletionCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
