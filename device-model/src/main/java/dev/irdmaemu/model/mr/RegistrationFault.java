package dev.irdmaemu.model.mr;

/**
 * Why an Alloc STag, Register MR (non-shared) or Deallocate STag CQP op was refused. The CQP handler answers each
 * with its CQP error code ({@code model.cqp.MemoryRegistrationOps}); here they are named and counted.
 */
public enum RegistrationFault {
    NONE("accepted"),
    INDEX_OUT_OF_RANGE("STag index beyond the model's table"),
    IN_USE("an STag is already allocated at the index"),
    NO_SUCH_STAG("no STag is allocated at the index (or its driver key bits differ)"),
    KIND_MISMATCH("Deallocate STag's MR flag differs from what was allocated (memory region or window)"),
    PD_MISMATCH("Deallocate STag names another protection domain"),
    ZERO_LENGTH("a zero length where the op needs one (only the all-memory DMA region is zero-length)"),
    LENGTH_OVERFLOW("VA + length wraps past 2^64"),
    BAD_RIGHTS("remote write without local write (user.h IRDMA_ACCESS_FLAGS_REMOTEWRITE includes LOCALWRITE), "
            + "or remote rights without REMACCENABLED"),
    BAD_PAGE_SIZE("host page size code 3 is no enum irdma_page_size"),
    BAD_CHUNK_SIZE("PBL chunk size code 2 is never written for an STag"),
    BAD_FIRST_BYTE_OFFSET("the zero-based first byte offset is not inside the first page"),
    PBL_INDEX_OUT_OF_RANGE("the page list runs beyond the committed PBLE count"),
    PBLE_NOT_RESOLVED("a PBLE of the page list is not backed (SD or PD not valid, or outside host memory)"),
    BUFFER_NOT_MAPPED("the physical buffer is outside mapped host memory");

    private final String text;

    RegistrationFault(String text) {
        this.text = text;
    }

    public String describe() {
        return text;
    }
}
