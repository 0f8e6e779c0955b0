package dev.irdmaemu.cm.rping;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * An rping side's buffers (rping.c struct rping_cb): the receive buffer and the send buffer, one
 * {@link RpingInfo} each, and rdma_buf, the {@code size}-byte buffer the server reads into and writes from and the
 * client's sink; the client also has its start buffer, the source of the server's Read. For each: where its bytes
 * are in {@link #store} (for the protocol to read and write them), and its address and key in the consumer's
 * space (for advertisements and work requests).
 */
public final class RpingBuffers {
    final BytesStore<?, ?> store;
    final int size;
    final long recvOffset;
    final long recvAddress;
    final int recvLkey;
    final long sendOffset;
    final long sendAddress;
    final int sendLkey;
    final long rdmaOffset;
    final long rdmaAddress;
    final int rdmaKey;
    /** -1 / 0 on a server, which has no start buffer. */
    final long startOffset;
    final long startAddress;
    final int startKey;

    /** One buffer: where its bytes are in the store, its address in the consumer's space, and its key. */
    public record Place(long offset, long address, int key) {
    }

    /** Buffers at these places; {@code start} is null for a server. */
    public RpingBuffers(BytesStore<?, ?> store, int size, Place recv, Place send, Place rdma, Place start) {
        this.store = store;
        this.size = size;
        this.recvOffset = recv.offset();
        this.recvAddress = recv.address();
        this.recvLkey = recv.key();
        this.sendOffset = send.offset();
        this.sendAddress = send.address();
        this.sendLkey = send.key();
        this.rdmaOffset = rdma.offset();
        this.rdmaAddress = rdma.address();
        this.rdmaKey = rdma.key();
        this.startOffset = start == null ? -1 : start.offset();
        this.startAddress = start == null ? 0 : start.address();
        this.startKey = start == null ? 0 : start.key();
    }

    public boolean hasStartBuffer() {
        return startOffset >= 0;
    }
}
