package dev.irdmaemu.cm.rping;

/**
 * Where an rping side is in its connection and its ping (rping.c enum test_state, less the address and route
 * resolution states the model's CM does not have). Once CONNECTED, each ping goes RDMA_READ_ADV,
 * RDMA_READ_COMPLETE (server), RDMA_WRITE_ADV, RDMA_WRITE_COMPLETE.
 */
public enum RpingState {
    /** Set up, not connected yet. */
    IDLE,
    /** Server: a connection request was taken and accepted, waiting for the connection. */
    CONNECT_REQUEST,
    /** The connection is up; the server waits for the client's first advertisement. */
    CONNECTED,
    /** Client: its start buffer is advertised. Server: it received that, its RDMA Read is posted. */
    RDMA_READ_ADV,
    /** Server: the Read completed and the go-ahead is posted; it waits for the client's sink. */
    RDMA_READ_COMPLETE,
    /** Client: its sink (rdma_buf) is advertised. Server: it received that, its RDMA Write is posted. */
    RDMA_WRITE_ADV,
    /** The Write completed (server) or its go-ahead arrived (client): the ping is done. */
    RDMA_WRITE_COMPLETE,
    /** The peer disconnected (RDMA_CM_EVENT_DISCONNECTED); a server is done. */
    DISCONNECTED,
    /** Something failed; the run's result says what. */
    ERROR,
    /** The connection is closed and its QP, CQ, regions and PD are freed. */
    CLOSED
}
