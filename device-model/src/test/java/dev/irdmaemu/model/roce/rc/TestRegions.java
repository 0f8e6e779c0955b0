package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.mr.MemoryRegions;
import java.util.HashMap;
import java.util.Map;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A memory-registration table for the RC transport's tests: VA-based regions over native stores, each with its
 * key, rights, PD and validity, checked as {@code model.mr} checks (invalid key, PD, rights, bounds) with the same
 * AE codes. The data path of the engine under test sees only {@link MemoryRegions}.
 */
final class TestRegions implements MemoryRegions {
    static final class Region {
        final BytesStore<?, Void> store;
        final long va;
        final long length;
        final int access;
        final int pd;
        boolean valid = true;

        Region(long length, long va, int access, int pd) {
            this.store = BytesStore.nativeStoreWithFixedCapacity(length);
            this.va = va;
            this.length = length;
            this.access = access;
            this.pd = pd;
        }
    }

    private final Map<Integer, Region> byKey = new HashMap<>();
    /** Small keys without boxing, so the engine's hot paths can be measured for allocation through this table. */
    private final Region[] small = new Region[0x1000];

    Region register(int key, long length, long va, int access, int pd) {
        Region r = new Region(length, va, access, pd);
        if (key >= 0 && key < small.length) {
            small[key] = r;
        }
        byKey.put(key, r);
        return r;
    }

    Region region(int key) {
        return key >= 0 && key < small.length ? small[key] : byKey.get(key);
    }

    @Override
    public int check(int stag, long to, long length, int access, int pdId) {
        Region r = region(stag);
        if (r == null || !r.valid) {
            return AeCode.AMP_INVALID_STAG.code();
        }
        if (r.pd != pdId) {
            return AeCode.AMP_BAD_PD.code();
        }
        if ((r.access & access) != access) {
            return AeCode.AMP_RIGHTS_VIOLATION.code();
        }
        if (length < 0 || to < r.va || to - r.va > r.length - length) {
            return AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return OK;
    }

    @Override
    public int write(int stag, long to, BytesStore<?, ?> src, long srcOffset, int length, int access, int pdId) {
        int c = check(stag, to, length, access, pdId);
        if (c == OK && length > 0) {
            Region r = region(stag);
            r.store.write(to - r.va, src, srcOffset, length);
        }
        return c;
    }

    @Override
    public int read(int stag, long to, BytesStore<?, ?> dst, long dstOffset, int length, int access, int pdId) {
        int c = check(stag, to, length, access, pdId);
        if (c == OK && length > 0) {
            Region r = region(stag);
            dst.write(dstOffset, r.store, to - r.va, length);
        }
        return c;
    }

    @Override
    public int invalidate(int stag, int pdId, boolean remote) {
        Region r = region(stag);
        if (r == null || !r.valid) {
            return AeCode.AMP_INVALID_STAG.code();
        }
        if (r.pd != pdId) {
            return AeCode.AMP_BAD_PD.code();
        }
        if (remote && (r.access & (REMOTE_READ | REMOTE_WRITE)) == 0) {
            return AeCode.AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS.code();
        }
        r.valid = false;
        return OK;
    }

    @Override
    public int fastRegister(SqWqe wqe, int pdId) {
        return AeCode.WQE_UNEXPECTED_OPCODE.code();
    }

    @Override
    public int liveCount() {
        return (int) byKey.values().stream().filter(r -> r.valid).count();
    }
}
