package dev.irdmaemu.fw.qp;

import dev.irdmaemu.fw.Check;

/** Checks of an iWARP QP context the host wrote (irdma_sc_qp_setctx layout) before the model uses it. */
public enum QpContextCheck implements Check {
    ACCEPTED("usable iWARP QP context"),
    TRUNCATED("shorter than the 256-byte QP context (user.h IRDMA_QP_CTX_SIZE)"),
    NOT_IWARP_MODE("IRDMAQPC_IWARPMODE is clear (irdma_sc_qp_setctx always sets it for iWARP)"),
    BAD_DDP_VERSION("IRDMAQPC_DDP_VER is not 1 (RFC 5041 §5.1; irdma sets ddp_ver = 1)"),
    BAD_RDMAP_VERSION("IRDMAQPC_RDMAP_VER is not 1 (RFC 5040 §4.1; irdma sets rdmap_ver = 1)"),
    BAD_IRD_SIZE("IRDMAQPC_IRDSIZE is not an IRDMA_IRD_HW_SIZE_* code (0..4, defs.h)"),
    BAD_WINDOW_SCALE("a window scale above 14 (RFC 7323 §2.3)"),
    ZERO_MSS("IRDMAQPC_SNDMSS is 0"),
    BAD_TCP_STATE("IRDMAQPC_TCPSTATE is a reserved value (12..15, defs.h IRDMA_TCP_STATE_RESERVED_*)");

    private final String text;

    QpContextCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
