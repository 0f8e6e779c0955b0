package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.model.mr.MemoryRegions;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A RoCE QP's access to its own SGE buffers: through the STag and the QP's PD ({@link MemoryRegions}, LOCAL_READ
 * for sends, LOCAL_WRITE for receives), or, for a privileged (kernel) QP whose SGE carries STag 0, straight to the
 * physical address: irdma advertises IBK_LOCAL_DMA_LKEY with local_dma_lkey 0 (verbs.c irdma_query_device), so
 * the MAD layer's QP1 buffers (mad.c) come as DMA addresses with lkey 0, and irdma sets PRIVEN in kernel QPs'
 * contexts (verbs.c irdma_roce_fill_and_set_qpctx_info). Answers {@link MemoryRegions#OK} or the AE code.
 */
final class LocalBuffers {
    private final HostMemory memory;
    private final MemoryRegions regions;

    LocalBuffers(HostMemory memory, MemoryRegions regions) {
        this.memory = memory;
        this.regions = regions;
    }

    int read(RoceQp q, int stag, long address, BytesStore<?, ?> dst, long dstOffset, int length) {
        if (stag == 0 && q.privileged) {
            return memory.copyOut(address, dst, dstOffset, length) ? MemoryRegions.OK
                    : AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return regions.read(stag, address, dst, dstOffset, length, MemoryRegions.LOCAL_READ, q.pd);
    }

    int write(RoceQp q, int stag, long address, BytesStore<?, ?> src, long srcOffset, int length) {
        if (stag == 0 && q.privileged) {
            return memory.copyIn(address, src, srcOffset, length) ? MemoryRegions.OK
                    : AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return regions.write(stag, address, src, srcOffset, length, MemoryRegions.LOCAL_WRITE, q.pd);
    }
}
