package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.mr.MemoryRegions;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * {@link MemoryRegions} with no STag at all: every access, invalidation and Fast Register answers
 * IRDMA_AE_AMP_INVALID_STAG (there is nothing to register into). The function uses it when it is not given the
 * real registration state.
 */
public final class UnregisteredMemory implements MemoryRegions {
    public static final UnregisteredMemory INSTANCE = new UnregisteredMemory();

    private UnregisteredMemory() {
    }

    @Override
    public int check(int stag, long taggedOffset, long length, int access, int pdId) {
        return AeCode.AMP_INVALID_STAG.code();
    }

    @Override
    public int write(int stag, long taggedOffset, BytesStore<?, ?> src, long srcOffset, int length, int access,
                     int pdId) {
        return AeCode.AMP_INVALID_STAG.code();
    }

    @Override
    public int read(int stag, long taggedOffset, BytesStore<?, ?> dst, long dstOffset, int length, int access,
                    int pdId) {
        return AeCode.AMP_INVALID_STAG.code();
    }

    @Override
    public int invalidate(int stag, int pdId, boolean remote) {
        return AeCode.AMP_INVALID_STAG.code();
    }

    @Override
    public int fastRegister(SqWqe wqe, int pdId) {
        return AeCode.AMP_INVALID_STAG.code();
    }

    @Override
    public int liveCount() {
        return 0;
    }
}
