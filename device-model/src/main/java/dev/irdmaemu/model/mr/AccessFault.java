package dev.irdmaemu.model.mr;

import dev.irdmaemu.fw.queue.AeCode;

/**
 * Why a data-path access, a Fast Register or an invalidation was refused, each with the asynchronous event code
 * the E810 raises for it (user.h IRDMA_AE_*). Several reasons share a code where the device has one code for them
 * (a page list that does not resolve and a page outside host memory are both a local catastrophic error of the
 * QP); {@link MemoryRegionTable} counts them apart.
 */
public enum AccessFault {
    NONE(null, "accepted"),
    /** user.h IRDMA_AE_STAG_ZERO_INVALID: STag 0 is the privileged (physical-address) STag of the verbs. */
    STAG_ZERO(AeCode.STAG_ZERO_INVALID, "STag 0 used by an unprivileged consumer"),
    BAD_STAG_INDEX(AeCode.AMP_BAD_STAG_INDEX, "STag index at or beyond the committed MR count"),
    UNALLOCATED_STAG(AeCode.AMP_UNALLOCATED_STAG, "no STag is allocated at the index"),
    BAD_STAG_KEY(AeCode.AMP_BAD_STAG_KEY, "the STag's key, or the driver key bits above its index, differ"),
    INVALID_STAG(AeCode.AMP_INVALID_STAG,
            "the STag is allocated but not valid (not yet fast-registered, invalidated, or an unbound window)"),
    BAD_PD(AeCode.AMP_BAD_PD, "the region belongs to another protection domain"),
    RIGHTS_VIOLATION(AeCode.AMP_RIGHTS_VIOLATION, "the region does not grant the access"),
    TO_WRAP(AeCode.AMP_TO_WRAP, "tagged offset + length wraps past 2^64"),
    BOUNDS_VIOLATION(AeCode.AMP_BOUNDS_VIOLATION, "the access is not inside the region"),
    PBLE_FAULT(AeCode.LCE_QP_CATASTROPHIC,
            "a PBLE of the page list does not resolve (beyond the committed PBLE count, SD or PD not valid)"),
    DMA_FAULT(AeCode.LCE_QP_CATASTROPHIC, "a page of the region is outside mapped host memory"),
    NOT_FAST_REGISTER(AeCode.WQE_UNEXPECTED_OPCODE, "the WQE handed to fastRegister is no Fast Register WQE"),
    FASTREG_VALID_STAG(AeCode.AMP_FASTREG_VALID_STAG, "Fast Register of an STag that is valid"),
    FASTREG_MW_STAG(AeCode.AMP_FASTREG_MW_STAG, "Fast Register of a memory-window STag"),
    FASTREG_INVALID_RIGHTS(AeCode.AMP_FASTREG_INVALID_RIGHTS,
            "remote write without local write, window binding, or remote rights on an STag allocated without "
                    + "remote access"),
    FASTREG_INVALID_LENGTH(AeCode.AMP_FASTREG_INVALID_LENGTH, "zero length, or VA + length wraps past 2^64"),
    FASTREG_INVALID_PBL_HPS_CFG(AeCode.AMP_FASTREG_INVALID_PBL_HPS_CFG,
            "a host page size or PBL chunk size code the device does not define, or a first byte offset outside "
                    + "the first page"),
    FASTREG_PBLE_MISMATCH(AeCode.AMP_FASTREG_PBLE_MISMATCH,
            "the page list runs beyond the committed PBLE count, does not resolve, or its first page differs from "
                    + "the WQE's PBL address"),
    INVALIDATE_NO_REMOTE_ACCESS_RIGHTS(AeCode.AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS,
            "remote invalidation of a region without remote access"),
    INVALIDATE_TYPE1_MW(AeCode.AMP_INVALIDATE_TYPE1_MW, "invalidation of a type 1 memory window");

    private final AeCode ae;
    private final String text;

    AccessFault(AeCode ae, String text) {
        this.ae = ae;
        this.text = text;
    }

    /** The AE code ({@link MemoryRegions#OK} for {@link #NONE}). */
    public int code() {
        return ae == null ? MemoryRegions.OK : ae.code();
    }

    /** The AE, null for {@link #NONE}. */
    public AeCode ae() {
        return ae;
    }

    public String describe() {
        return text;
    }
}
