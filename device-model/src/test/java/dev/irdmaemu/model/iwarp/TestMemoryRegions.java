package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.mr.MemoryRegions;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A test stand-in for the device's memory registration (until the real {@code MemoryRegionTable} is merged):
 * flat, VA-based regions keyed by STag (index in the upper 24 bits, key in the low 8), each one physically
 * contiguous guest range whose tagged offsets are its guest addresses. The checks and their AE codes follow the
 * {@link MemoryRegions} contract; local read is always granted (irdma_get_mr_access). Arrays, no allocation.
 */
public final class TestMemoryRegions implements MemoryRegions {
    public static final int CAPACITY = 4096;

    private final HostMemory memory;
    private final boolean[] allocated = new boolean[CAPACITY];
    private final boolean[] valid = new boolean[CAPACITY];
    private final int[] key = new int[CAPACITY];
    private final int[] pd = new int[CAPACITY];
    private final long[] base = new long[CAPACITY];
    private final long[] length = new long[CAPACITY];
    private final int[] rights = new int[CAPACITY];
    private int live;
    private long writes;
    private long reads;

    public TestMemoryRegions(HostMemory memory) {
        this.memory = memory;
    }

    /** Registers {@code bytes} at guest address {@code gpa} under {@code stag} (Register MR). */
    public int register(int stag, long gpa, long bytes, int access, int pdId) {
        int i = stag >>> 8;
        if (!allocated[i]) {
            live++;
        }
        allocated[i] = true;
        valid[i] = true;
        key[i] = stag & 0xff;
        pd[i] = pdId;
        base[i] = gpa;
        length[i] = bytes;
        rights[i] = access | LOCAL_READ;
        return stag;
    }

    /** Allocates an STag for a later Fast Register (Alloc STag: present, not valid). */
    public void allocate(int stag, int pdId) {
        int i = stag >>> 8;
        if (!allocated[i]) {
            live++;
        }
        allocated[i] = true;
        valid[i] = false;
        key[i] = stag & 0xff;
        pd[i] = pdId;
    }

    public boolean isValid(int stag) {
        int i = stag >>> 8;
        return i < CAPACITY && allocated[i] && valid[i] && key[i] == (stag & 0xff);
    }

    @Override
    public int check(int stag, long taggedOffset, long bytes, int access, int pdId) {
        int i = stag >>> 8;
        if (i >= CAPACITY || !allocated[i]) {
            return AeCode.AMP_INVALID_STAG.code();
        }
        if (key[i] != (stag & 0xff)) {
            return AeCode.AMP_BAD_STAG_KEY.code();
        }
        if (!valid[i]) {
            return AeCode.AMP_INVALID_STAG.code();
        }
        if (pd[i] != pdId) {
            return AeCode.AMP_BAD_PD.code();
        }
        if ((rights[i] & access) != access) {
            return AeCode.AMP_RIGHTS_VIOLATION.code();
        }
        if (bytes == 0) {
            return OK;
        }
        long end = taggedOffset + bytes;
        if (Long.compareUnsigned(end, taggedOffset) < 0) {
            return AeCode.AMP_TO_WRAP.code();
        }
        if (Long.compareUnsigned(taggedOffset, base[i]) < 0 || Long.compareUnsigned(end, base[i] + length[i]) > 0) {
            return AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        return OK;
    }

    @Override
    public int write(int stag, long taggedOffset, BytesStore<?, ?> src, long srcOffset, int bytes, int access,
                     int pdId) {
        int rc = check(stag, taggedOffset, bytes, access, pdId);
        if (rc != OK) {
            return rc;
        }
        if (bytes > 0 && !memory.copyIn(taggedOffset, src, srcOffset, bytes)) {
            return AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        writes++;
        return OK;
    }

    @Override
    public int read(int stag, long taggedOffset, BytesStore<?, ?> dst, long dstOffset, int bytes, int access,
                    int pdId) {
        int rc = check(stag, taggedOffset, bytes, access, pdId);
        if (rc != OK) {
            return rc;
        }
        if (bytes > 0 && !memory.copyOut(taggedOffset, dst, dstOffset, bytes)) {
            return AeCode.AMP_BOUNDS_VIOLATION.code();
        }
        reads++;
        return OK;
    }

    @Override
    public int invalidate(int stag, int pdId, boolean remote) {
        int i = stag >>> 8;
        if (i >= CAPACITY || !allocated[i]) {
            return AeCode.AMP_INVALID_STAG.code();
        }
        if (key[i] != (stag & 0xff)) {
            return AeCode.AMP_BAD_STAG_KEY.code();
        }
        if (pd[i] != pdId) {
            return AeCode.AMP_BAD_PD.code();
        }
        if (remote && (rights[i] & (REMOTE_READ | REMOTE_WRITE)) == 0) {
            return AeCode.AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS.code();
        }
        valid[i] = false;
        return OK;
    }

    @Override
    public int fastRegister(SqWqe wqe, int pdId) {
        int i = wqe.stagIndex();
        if (i >= CAPACITY || !allocated[i]) {
            return AeCode.AMP_INVALID_STAG.code();
        }
        if (valid[i]) {
            return AeCode.AMP_FASTREG_VALID_STAG.code();
        }
        if (pd[i] != pdId) {
            return AeCode.AMP_BAD_PD.code();
        }
        key[i] = wqe.stagKey();
        base[i] = wqe.qword(0);
        length[i] = wqe.stagLength();
        rights[i] = wqe.stagRights() | LOCAL_READ;
        valid[i] = true;
        return OK;
    }

    @Override
    public int liveCount() {
        return live;
    }

    public long writes() {
        return writes;
    }

    public long reads() {
        return reads;
    }
}
