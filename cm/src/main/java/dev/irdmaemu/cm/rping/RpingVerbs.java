package dev.irdmaemu.cm.rping;

import dev.irdmaemu.driver.verbs.PostStatus;

/**
 * The calls an rping side makes on its connection once it is set up: its three fixed work requests (rping.c
 * rping_setup_wr: {@code rq_wr} for the receive buffer, {@code sq_wr} for a Send of the send buffer, {@code
 * rdma_sq_wr} for an RDMA Read into or a Write from rdma_buf), the disconnect, and freeing it all. The protocol
 * ({@link RpingClient}, {@link RpingServerConnection}) is written against this; {@link RpingControlBlock} is the one
 * on the verbs and the CM, and a test can script another.
 */
public interface RpingVerbs {
    /** ibv_post_recv of rq_wr: one receive of {@link RpingInfo#SIZE} bytes into the receive buffer. */
    PostStatus postRecv();

    /** ibv_post_send of sq_wr: a signaled Send of the {@link RpingInfo#SIZE}-byte send buffer. */
    PostStatus postSend();

    /** ibv_post_send of rdma_sq_wr as an RDMA Read of {@code length} bytes at the peer into rdma_buf. */
    PostStatus postRead(long remoteAddress, int rkey, int length);

    /** ibv_post_send of rdma_sq_wr as an RDMA Write of rdma_buf's first {@code length} bytes to the peer. */
    PostStatus postWrite(long remoteAddress, int rkey, int length);

    /** rdma_disconnect: a graceful close (FIN), or an abortive one (RST). */
    void disconnect(boolean abortive);

    /**
     * rping_free_buffers and rping_free_qp: the QP, the regions, the buffers, the CQ and the PD go, then {@code
     * released} runs (later, on a fresh scheduler event, when the QP or CQ handler is what called this).
     */
    void release(Runnable released);
}
