package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.queue.SgeList;

/** A receive work request (ib_verbs.h struct ib_recv_wr), mutable and reusable like {@link SendWorkRequest}. */
public final class ReceiveWorkRequest {
    long wrId;
    final SgeList sges = new SgeList();

    public ReceiveWorkRequest clear() {
        wrId = 0;
        sges.clear();
        return this;
    }

    public ReceiveWorkRequest wrId(long id) {
        this.wrId = id;
        return this;
    }

    public ReceiveWorkRequest sge(long address, int length, int lkey) {
        sges.add(address, length, lkey);
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public SgeList sges() {
        return sges;
    }
}
