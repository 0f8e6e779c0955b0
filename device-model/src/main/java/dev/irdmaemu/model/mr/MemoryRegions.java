package dev.irdmaemu.model.mr;

import dev.irdmaemu.fw.cqp.StagAccess;
import dev.irdmaemu.fw.queue.SqWqe;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The device's memory-registration state as the iWARP data path uses it: STags made by the CQP (Alloc STag,
 * Register MR, Deallocate STag; ctrl.c irdma_sc_alloc_stag, irdma_sc_mr_reg_non_shared, irdma_sc_dealloc_stag) or
 * by SQ work requests (Fast Register, Local Invalidate; uk.c / ctrl.c irdma_sc_mr_fast_register), each naming a
 * region of host memory through its page list (PBLEs in the HMC PBLE object, or a single physical buffer), its
 * access rights, its PD and whether it is VA-based or zero-based.
 *
 * <p>Every data-path call checks before it touches memory, and answers {@link #OK} or the AE code
 * ({@link dev.irdmaemu.fw.queue.AeCode#code()}) that the E810 raises for the failure (for example
 * AMP_INVALID_STAG, AMP_BAD_STAG_KEY, AMP_BAD_PD, AMP_RIGHTS_VIOLATION, AMP_BOUNDS_VIOLATION, AMP_TO_WRAP,
 * STAG_ZERO_INVALID). A page list that does not resolve in the HMC PBLE object, or a page outside host memory,
 * answers LCE_QP_CATASTROPHIC ({@link AccessFault} names every reason). A failed call never writes a byte: the
 * whole range is validated and translated first. Nothing on these paths allocates.
 *
 * <p>An STag is 32 bits: the index (the HMC MR object index) in the upper 24 bits and the consumer key in the
 * low 8 (irdma verbs.c irdma_create_stag).
 */
public interface MemoryRegions {
    /** Success. */
    int OK = 0;

    /** The single rights a data-path access needs: firmware-iface's {@link StagAccess} bits (user.h). */
    int LOCAL_READ = StagAccess.LOCAL_READ;
    int LOCAL_WRITE = StagAccess.LOCAL_WRITE;
    int REMOTE_READ = StagAccess.REMOTE_READ_ONLY;
    int REMOTE_WRITE = StagAccess.REMOTE_WRITE_ONLY;
    int BIND_WINDOW = StagAccess.BIND_WINDOW;
    int ZERO_BASED = StagAccess.ZERO_BASED;

    /**
     * Checks that {@code length} bytes at tagged offset {@code taggedOffset} of {@code stag} may be accessed with
     * {@code access} by a QP of protection domain {@code pdId}. A zero-length access checks only the STag's
     * validity, PD and rights (RFC 5040 §7: a zero-length tagged message does not validate the offset).
     */
    int check(int stag, long taggedOffset, long length, int access, int pdId);

    /** Checks as {@link #check}, then copies {@code length} bytes from {@code src} into the region. */
    int write(int stag, long taggedOffset, BytesStore<?, ?> src, long srcOffset, int length, int access, int pdId);

    /** Checks as {@link #check}, then copies {@code length} bytes of the region into {@code dst}. */
    int read(int stag, long taggedOffset, BytesStore<?, ?> dst, long dstOffset, int length, int access, int pdId);

    /**
     * Invalidates {@code stag} (Local Invalidate WQE, or Send with Invalidate from the peer when {@code remote}).
     * A remote invalidation needs the region to allow remote access; both need the QP's PD to match.
     */
    int invalidate(int stag, int pdId, boolean remote);

    /** Executes a Fast Register WQE (IRDMAQP_OP_FAST_REGISTER) posted by a QP of protection domain {@code pdId}. */
    int fastRegister(SqWqe wqe, int pdId);

    /** Live STags (allocated or registered), for summaries and leak checks. */
    int liveCount();
}
