package dev.irdmaemu.driver;

/**
 * What one look at the CCQ found for a waited request (ctrl.c irdma_sc_ccq_get_cqe_info as utils.c irdma_wait_event
 * drives it): the request's completion ({@link CcqCqeInfo}), or {@link Empty#NOT_YET} while the device has written
 * none for it. Both are preallocated: waiting for a CQP op allocates nothing.
 */
sealed interface CcqPoll permits CcqCqeInfo, CcqPoll.Empty {
    /** No completion for the request yet. */
    enum Empty implements CcqPoll {
        NOT_YET
    }
}
