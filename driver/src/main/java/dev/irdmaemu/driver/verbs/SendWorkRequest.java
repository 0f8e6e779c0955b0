package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.queue.SgeList;

/**
 * A send work request (include/rdma/ib_verbs.h struct ib_send_wr with its rdma_wr / reg_wr parts), mutable and
 * reusable: a consumer keeps one, fills it, posts it with {@link QueuePair#postSend}, and fills it again. SGE
 * addresses are the addresses of the memory region the lkey names (its iova space); nothing here allocates.
 */
public final class SendWorkRequest {
    /** ib_send_flags. */
    public static final int SIGNALED = 1;
    public static final int FENCE = 1 << 1;
    public static final int SOLICITED = 1 << 2;
    public static final int INLINE = 1 << 3;

    long wrId;
    WrOpcode opcode = WrOpcode.SEND;
    int flags;
    final SgeList sges = new SgeList();
    long remoteAddress;
    int rkey;
    int invalidateRkey;
    MemoryRegion mr;
    int key;
    int access;

    /**
     * Resets everything but keeps the SGE list's storage. A consumer clears and fills one request per post, so the
     * reference fields are written only when they change: each reference store runs the GC's write barrier.
     */
    public SendWorkRequest clear() {
        wrId = 0;
        if (opcode != WrOpcode.SEND) {
            opcode = WrOpcode.SEND;
        }
        flags = 0;
        sges.clear();
        remoteAddress = 0;
        rkey = 0;
        invalidateRkey = 0;
        if (mr != null) {
            mr = null;
        }
        key = 0;
        access = 0;
        return this;
    }

    public SendWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    public SendWorkRequest opcode(WrOpcode op) {
        if (this.opcode != op) {
            this.opcode = op;
        }
        return this;
    }

    /** {@link #SIGNALED}, {@link #FENCE}, {@link #SOLICITED}, {@link #INLINE}. */
    public SendWorkRequest flags(int f) {
        this.flags = f;
        return this;
    }

    public SendWorkRequest sge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    /** RDMA Write / Read: the remote buffer. */
    public SendWorkRequest remote(long address, int remoteKey) {
        this.remoteAddress = address;
        this.rkey = remoteKey;
        return this;
    }

    /** Send with Invalidate (the peer's STag) or Local Invalidate (this side's). */
    public SendWorkRequest invalidate(int stag) {
        this.invalidateRkey = stag;
        return this;
    }

    /** IB_WR_REG_MR: fast-register {@code region} (already mapped) under {@code newKey} with {@code accessFlags}. */
    public SendWorkRequest register(MemoryRegion region, int newKey, int accessFlags) {
        this.mr = region;
        this.key = newKey;
        this.access = accessFlags;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public WrOpcode opcode() {
        return opcode;
    }

    public SgeList sges() {
        return sges;
    }
}
