package dev.irdmaemu.driver.verbs;

/**
 * What post_send / post_recv answer (the errno of verbs.c irdma_post_send / irdma_post_recv): the work request is
 * queued, the queue has no room for it (-ENOMEM, uk.c irdma_qp_get_next_send_wqe / _recv_wqe), or it is malformed
 * (-EINVAL: too many SGEs, inline data too long, an opcode irdma does not take on iWARP).
 */
public enum PostStatus {
    OK(0),
    QUEUE_FULL(-12),
    INVALID(-22);

    private final int errno;

    PostStatus(int errno) {
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }
}
