package dev.irdmaemu.model.qp;

/**
 * The memory-registration STags the device knows (Alloc STag, Register MR, Deallocate STag; ctrl.c
 * irdma_sc_alloc_stag / irdma_sc_mr_reg_non_shared / irdma_sc_dealloc_stag), by STag index (the HMC MR object
 * index). The data path that checks them is issue 5; the table records what it will need.
 */
public final class StagTable {
    private final boolean[] used;
    private final boolean[] registered;
    private final int[] key;
    private final int[] pd;
    private final long[] length;
    private final long[] va;
    private final int[] rights;
    private int live;

    public StagTable(int capacity) {
        used = new boolean[capacity];
        registered = new boolean[capacity];
        key = new int[capacity];
        pd = new int[capacity];
        length = new long[capacity];
        va = new long[capacity];
        rights = new int[capacity];
    }

    public int capacity() {
        return used.length;
    }

    public boolean inUse(int index) {
        return index >= 0 && index < used.length && used[index];
    }

    public boolean registered(int index) {
        return inUse(index) && registered[index];
    }

    /** Alloc STag (registered false) or Register MR (registered true). */
    public void set(int index, int stagKey, int pdId, long len, long vaOrFbo, int accessRights, boolean reg) {
        if (!used[index]) {
            live++;
        }
        used[index] = true;
        registered[index] = reg;
        key[index] = stagKey;
        pd[index] = pdId;
        length[index] = len;
        va[index] = vaOrFbo;
        rights[index] = accessRights;
    }

    public void clear(int index) {
        if (used[index]) {
            live--;
        }
        used[index] = false;
        registered[index] = false;
    }

    public int key(int index) {
        return key[index];
    }

    public int pd(int index) {
        return pd[index];
    }

    public long length(int index) {
        return length[index];
    }

    public int liveCount() {
        return live;
    }
}
