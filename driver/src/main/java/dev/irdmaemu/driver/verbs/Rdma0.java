package dev.irdmaemu.driver.verbs;

/**
 * The zero-length RDMA operation the initiator sends as its RTR (RFC 6581 §4; irdma cm.h {@code enum send_rdma0}):
 * a zero-length RDMA Read or RDMA Write.
 */
public enum Rdma0 {
    READ,
    WRITE
}
