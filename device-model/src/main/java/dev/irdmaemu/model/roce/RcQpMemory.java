package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.mr.MemoryRegions;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The memory one RC QP's engine reaches: the function's STags ({@link MemoryRegions}), and for a privileged (kernel)
 * QP its own SGEs of STag 0 straight at their physical address, as {@link LocalBuffers} does for UD: irdma
 * advertises local_dma_lkey 0 (verbs.c irdma_query_device) and sets PRIVEN in a kernel QP's context (verbs.c
 * irdma_roce_fill_and_set_qpctx_info), so the kernel's RC users post DMA addresses with lkey 0. Only local access
 * takes that way; an R_Key of 0 from the wire goes to the table (which refuses it). Allocation-free.
 */
final class RcQpMemory implements MemoryRegions {
    private final HostMemory memory;
    private final MemoryRegions regions;
    private boolean privileged;

    RcQpMemory(HostMemory memory, MemoryRegions regions) {
        this.memory = memory;
        this.regions = regions;
    }

    /** IRDMAQPC_PRIVEN of the context last loaded. */
    void privileged(boolean priv) {
        privileged = priv;
    }

    private boolean physical(int stag, int access) {
        return stag == 0 && privileged && (access & ~(LOCAL_READ | LOCAL_WRITE)) == 0;
    }

    @Override
    public int check(int stag, long taggedOffset, long length, int access, int pdId) {
        if (physical(stag, access)) {
            return memory.contains(taggedOffset, length) ? OK : AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return regions.check(stag, taggedOffset, length, access, pdId);
    }

    @Override
    public int write(int stag, long taggedOffset, BytesStore<?, ?> src, long srcOffset, int length, int access,
                     int pdId) {
        if (physical(stag, access)) {
            return memory.copyIn(taggedOffset, src, srcOffset, length) ? OK : AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return regions.write(stag, taggedOffset, src, srcOffset, length, access, pdId);
    }

    @Override
    public int read(int stag, long taggedOffset, BytesStore<?, ?> dst, long dstOffset, int length, int access,
                    int pdId) {
        if (physical(stag, access)) {
            return memory.copyOut(taggedOffset, dst, dstOffset, length) ? OK : AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return regions.read(stag, taggedOffset, dst, dstOffset, length, access, pdId);
    }

    @Override
    public int invalidate(int stag, int pdId, boolean remote) {
        return regions.invalidate(stag, pdId, remote);
    }

    @Override
    public int fastRegister(SqWqe wqe, int pdId) {
        return regions.fastRegister(wqe, pdId);
    }

    @Override
    public int liveCount() {
        return regions.liveCount();
    }
}
