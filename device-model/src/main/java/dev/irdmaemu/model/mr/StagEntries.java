package dev.irdmaemu.model.mr;

import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_NONE;

import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The device's STag table: one entry per HMC MR object index, in parallel arrays (no object per STag), as
 * {@link MemoryRegionTable} describes them, and the STag index rule (verbs.c irdma_create_stag: a driver key above
 * {@code max(order(max_mr), 14)} index bits, hw.c irdma_initialize_hw_rsrc). The registration, fast-register,
 * admission and page-list classes of this package read and write the arrays directly; {@link #generation} moves
 * whenever an entry may have changed.
 */
final class StagEntries {
    /** type.h enum irdma_page_size codes 0, 1, 2: 4 KiB, 2 MiB, 1 GiB. */
    static final int[] PAGE_SHIFT = {12, 21, 30};
    static final int REMOTE_RIGHTS = MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE;

    /** Alloc STag carries no key (ctrl.c irdma_sc_alloc_stag): the first Fast Register sets it. */
    static final int NO_KEY = -1;
    static final byte FREE = 0;
    static final byte INVALID = 1;
    static final byte VALID = 2;

    private final HmcFunction hmc;
    private final Trace trace;

    final byte[] state;
    final boolean[] window;
    final boolean[] windowType2;
    final int[] indexField;
    final int[] key;
    final int[] pd;
    final int[] rights;
    final boolean[] remoteEnabled;
    final boolean[] remoteAtomics;
    final boolean[] vaBased;
    final boolean[] allMemory;
    final long[] va;
    final long[] fbo;
    final long[] length;
    final byte[] chunk;
    final byte[] pageShift;
    final long[] firstPble;
    final long[] firstFrame;
    int live;
    /**
     * Bumped by every operation that may change an entry (Alloc / Register / Dealloc STag, Fast Register,
     * invalidation), whatever its outcome: what the data path remembers of an admission holds only while this
     * has not moved.
     */
    long generation;

    StagEntries(HmcFunction hmc, Trace trace, int capacity) {
        this.hmc = hmc;
        this.trace = trace;
        state = new byte[capacity];
        window = new boolean[capacity];
        windowType2 = new boolean[capacity];
        indexField = new int[capacity];
        key = new int[capacity];
        pd = new int[capacity];
        rights = new int[capacity];
        remoteEnabled = new boolean[capacity];
        remoteAtomics = new boolean[capacity];
        vaBased = new boolean[capacity];
        allMemory = new boolean[capacity];
        va = new long[capacity];
        fbo = new long[capacity];
        length = new long[capacity];
        chunk = new byte[capacity];
        pageShift = new byte[capacity];
        firstPble = new long[capacity];
        firstFrame = new long[capacity];
    }

    /** The index bits of the STag index field: {@code max(order(committed MR count), 14)}, as irdma masks. */
    int indexBits() {
        long n = hmc.count(HmcObjectType.MR);
        int order = n <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(n - 1);
        return Math.min(24, Math.max(order, MemoryRegionTable.MIN_INDEX_BITS));
    }

    /** The table index of a 24-bit STag index field ({@code stag >>> 8}). */
    int indexOf(int stagIndexField) {
        return stagIndexField & ((1 << indexBits()) - 1);
    }

    /** Entries whose index is below the committed MR count (and the table). */
    long usableEntries() {
        return Math.min(hmc.count(HmcObjectType.MR), state.length);
    }

    /** An entry is allocated (valid or not) at {@code index}. */
    boolean inUse(int index) {
        return index >= 0 && index < state.length && state[index] != FREE;
    }

    void clear(int i) {
        state[i] = FREE;
        window[i] = false;
        windowType2[i] = false;
        indexField[i] = 0;
        key[i] = NO_KEY;
        pd[i] = 0;
        rights[i] = 0;
        remoteEnabled[i] = false;
        remoteAtomics[i] = false;
        vaBased[i] = false;
        allMemory[i] = false;
        va[i] = 0;
        fbo[i] = 0;
        length[i] = 0;
        chunk[i] = 0;
        pageShift[i] = (byte) PAGE_SHIFT[0];
        firstPble[i] = 0;
        firstFrame[i] = 0;
    }

    /**
     * Entry {@code i} becomes valid over its pages (ctrl.c irdma_sc_mr_reg_non_shared and irdma_sc_mr_fast_register
     * write the same fields): a VA-based region's tagged offsets start at {@code q0}, a zero-based one's at 0;
     * {@code offsetInPage} is its first byte's place in its first page; with chunk code 0 its pages are contiguous
     * from {@code frame0}, otherwise the page list starts at PBLE {@code pble0}.
     */
    void validate(int i, boolean based, boolean all, long q0, long offsetInPage, long len, int chunkCode, int shift,
                  long pble0, long frame0) {
        vaBased[i] = based;
        allMemory[i] = all;
        va[i] = based ? q0 : 0;
        fbo[i] = offsetInPage;
        length[i] = len;
        chunk[i] = (byte) chunkCode;
        pageShift[i] = (byte) shift;
        firstPble[i] = chunkCode == CHUNK_NONE ? 0 : pble0;
        firstFrame[i] = chunkCode == CHUNK_NONE ? frame0 : 0;
        state[i] = VALID;
    }

    /** Traces entry {@code i} as it now is, after {@code action}. */
    void trace(String action, int i) {
        TraceEvent t = trace.start(TraceKind.MR);
        if (t != null) {
            t.text("action", action).hex("stag", (long) indexField[i] << 8 | key[i] & 0xff).num("index", i)
                    .num("pd", pd[i])
                    .flag("window", window[i]).num("rights", rights[i]).flag("va_based", vaBased[i])
                    .hex("va", va[i]).hex("fbo", fbo[i]).num("len", length[i]).num("chunk", chunk[i])
                    .num("page_shift", pageShift[i]).num("first_pble", firstPble[i]).hex("frame0", firstFrame[i])
                    .emit();
        }
    }
}
