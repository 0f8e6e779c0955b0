package dev.irdmaemu.bench;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.mr.MemoryRegions;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The benchmarks' stand-in for the device's memory registration (until the real one is merged): one VA-based STag
 * ({@link #STAG}) covering all of a node's RAM with every right, its tagged offsets the guest addresses. Checks
 * the STag and the bounds as the data path needs; allocation-free.
 */
final class BenchMemoryRegions implements MemoryRegions {
    static final int STAG = 0x100 << 8 | 0x42;

    private final HostMemory memory;
    private final long base;
    private final long length;

    BenchMemoryRegions(HostMemory memory, long base, long length) {
        this.memory = memory;
        this.base = base;
        this.length = length;
    }

    @Override
    public int check(int stag, long taggedOffset, long bytes, int access, int pdId) {
        if (stag != STAG) {
            return AeCode.AMP_INVALID_STAG.code();
        }
        if (bytes > 0 && (taggedOffset < base || taggedOffset + bytes > base + length)) {
            return AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return OK;
    }

    @Override
    public int write(int stag, long taggedOffset, BytesStore<?, ?> src, long srcOffset, int bytes, int access,
                     int pdId) {
        int rc = check(stag, taggedOffset, bytes, access, pdId);
        if (rc == OK && bytes > 0 && !memory.copyIn(taggedOffset, src, srcOffset, bytes)) {
            return AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return rc;
    }

    @Override
    public int read(int stag, long taggedOffset, BytesStore<?, ?> dst, long dstOffset, int bytes, int access,
                    int pdId) {
        int rc = check(stag, taggedOffset, bytes, access, pdId);
        if (rc == OK && bytes > 0 && !memory.copyOut(taggedOffset, dst, dstOffset, bytes)) {
            return AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return rc;
    }

    @Override
    public int invalidate(int stag, int pdId, boolean remote) {
        return AeCode.AMP_INVALIDATE_SHARED.code();
    }

    @Override
    public int fastRegister(SqWqe wqe, int pdId) {
        return AeCode.AMP_FASTREG_INVALID_RIGHTS.code();
    }

    @Override
    public int liveCount() {
        return 1;
    }
}
