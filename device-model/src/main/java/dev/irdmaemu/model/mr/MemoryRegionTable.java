package dev.irdmaemu.model.mr;

import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_LEVEL_1;
import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_LEVEL_2;
import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_NONE;
import static dev.irdmaemu.fw.hmc.PbleLayout.PBLE_PER_PAGE;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.hmc.HmcFault;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.hmc.PbleWalker;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The device's STag table and the checked translation of tagged offsets into host memory.
 *
 * <p><b>Entries.</b> One per HMC MR object index, in parallel arrays (no object per STag): state (free, allocated
 * but invalid, valid), memory region or window, the STag index field and key, PD, access rights
 * (IRDMA_ACCESS_FLAGS_*), REMACCENABLED, VA-based or zero-based, base VA, first byte offset, length, and the page
 * list: chunk code (0 the "PBL address" is the physically contiguous buffer's first page, 1 a level-1 PBL whose
 * entries start at the first PM PBL index, 3 a two-level PBL whose root entries there hold leaf PBLE indexes,
 * pble.c get_lvl2_pble; the layout is firmware-iface's {@code fw.hmc.PbleLayout}), the host page size (4 KiB,
 * 2 MiB, 1 GiB) and the first PBLE index.
 *
 * <p><b>STag index.</b> irdma puts a random driver key above the index (verbs.c irdma_create_stag; hw.c
 * irdma_initialize_hw_rsrc keeps {@code max(order(max_mr), 14)} index bits) and hands the device {@code stag >> 8}
 * whole (verbs.c irdma_hwreg_mr, irdma_hw_alloc_stag, irdma_hwdereg_mr). The device indexes its table with the low
 * {@link #indexBits()} bits of that field and keeps the rest: they must match on every use, as the 8-bit key does.
 *
 * <p><b>Translation.</b> The byte at tagged offset TO is at region offset {@code fbo + (TO - VA)} (VA-based) or
 * {@code fbo + TO} (zero-based), where fbo is the first byte's offset in its page (for a VA-based region
 * {@code VA & (page - 1)}, ctrl.c irdma_sc_mr_reg_non_shared). Page {@code offset >> shift} is the page list's entry;
 * an access is split at page and host-memory region boundaries, every piece is translated and checked against
 * {@link HostMemory} before the first byte is copied, and the copy goes store to store with no allocation. A PBLE
 * is a 64-bit page address; the bits below the page size are ignored, as for a page frame. PBLEs live in the HMC
 * PBLE object at {@code base + 8 x index} ({@link HmcFunction#resolve}).
 *
 * <p><b>Zero length.</b> Register MR with no PBL and length 0 is the all-memory region irdma_get_dma_mr asks for
 * (irdma_reg_phys_mr with address 0, size 0; the WQE does not carry all_memory): tagged offsets are then physical
 * addresses and only host memory bounds them.
 *
 * <p>Memory windows are allocated, deallocated and invalidated, never bound: binding (IRDMAQP_OP_BIND_MW) is not
 * modelled, so an access through a window STag is AMP_INVALID_STAG, and what the device does to a region with
 * windows bound to it is out of scope. Single-threaded, like the rest of the model.
 */
public final class MemoryRegionTable implements MemoryRegions {
    /** hw.c irdma_initialize_hw_rsrc: "stag index mask has a minimum of 14 bits" (gen2). */
    public static final int MIN_INDEX_BITS = 14;
    /** type.h enum irdma_page_size codes 0, 1, 2: 4 KiB, 2 MiB, 1 GiB. */
    private static final int[] PAGE_SHIFT = {12, 21, 30};
    private static final int REMOTE_RIGHTS = REMOTE_READ | REMOTE_WRITE;
    private static final int ACCESS_RIGHTS = LOCAL_READ | LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE;

    /** Alloc STag carries no key (ctrl.c irdma_sc_alloc_stag): the first Fast Register sets it. */
    private static final int NO_KEY = -1;
    private static final byte FREE = 0;
    private static final byte INVALID = 1;
    private static final byte VALID = 2;

    /** Translated pieces kept between the check pass and the copy pass; beyond them the copy re-translates. */
    private static final int CACHED_PIECES = 32;
    private static final int VALIDATE = 0;
    private static final int COPY_IN = 1;
    private static final int COPY_OUT = 2;

    private final HostMemory memory;
    private final HmcFunction hmc;
    private final Trace trace;

    private final byte[] state;
    private final boolean[] window;
    private final boolean[] windowType2;
    private final int[] indexField;
    private final int[] key;
    private final int[] pd;
    private final int[] rights;
    private final boolean[] remoteEnabled;
    private final boolean[] remoteAtomics;
    private final boolean[] vaBased;
    private final boolean[] allMemory;
    private final long[] va;
    private final long[] fbo;
    private final long[] length;
    private final byte[] chunk;
    private final byte[] pageShift;
    private final long[] firstPble;
    private final long[] firstFrame;
    private int live;

    private final long[] accessFailures = new long[AccessFault.values().length];
    private final long[] registrationFailures = new long[RegistrationFault.values().length];
    private AccessFault lastAccessFault = AccessFault.NONE;
    private RegistrationFault lastRegistrationFault = RegistrationFault.NONE;
    private long registrations;
    private long fastRegistrations;
    private long invalidations;

    /**
     * Bumped by every operation that may change an entry (Alloc / Register / Dealloc STag, Fast Register,
     * invalidation), whatever its outcome: what the data path remembers of an admission holds only while this
     * has not moved.
     */
    private long generation;
    // The last STag the data path admitted, for the next access with the same STag, PD and rights (a stream of
    // FPDUs into one buffer): the checks that depend only on the entry passed, and the entry's bounds and offset
    // are here side by side instead of in a dozen arrays. Valid while the generation and the committed MR count
    // (which decides the index bits) are what they were. Every access still checks its own offset and length.
    private long admittedGeneration = -1;
    private long admittedMrCount;
    private int admittedStag;
    private int admittedPd;
    private int admittedRights;
    private int admittedIndex;
    private boolean admittedVaBased;
    private boolean admittedAllMemory;
    private long admittedVa;
    private long admittedLength;
    private long admittedFbo;

    // scratch of one call: the admitted entry and region offset, the last PBLE read, the last frame, the pieces
    private int hitIndex;
    private long hitOffset;
    private final PbleWalker pbles;
    private long frame;
    private AccessFault frameFault;
    private final int[] pieceRegion = new int[CACHED_PIECES];
    private final long[] pieceOffset = new long[CACHED_PIECES];
    private final long[] pieceLength = new long[CACHED_PIECES];
    private int pieces;
    private long cachedBytes;

    /** A table of {@code capacity} entries (the HMC MR maximum the model answers to Query FPM Values). */
    public MemoryRegionTable(HostMemory memory, HmcFunction hmc, Trace trace, int capacity) {
        this.memory = memory;
        this.hmc = hmc;
        this.trace = trace;
        this.pbles = new PbleWalker(memory, hmc);
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

    // ------------------------------------------------------------------ STag index

    /** The index bits of the STag index field: {@code max(order(committed MR count), 14)}, as irdma masks. */
    public int indexBits() {
        long n = hmc.count(HmcObjectType.MR);
        int order = n <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(n - 1);
        return Math.min(24, Math.max(order, MIN_INDEX_BITS));
    }

    /** The table index of a 24-bit STag index field ({@code stag >>> 8}). */
    public int indexOf(int stagIndexField) {
        return stagIndexField & ((1 << indexBits()) - 1);
    }

    public int capacity() {
        return state.length;
    }

    /** An entry is allocated (valid or not) at {@code index}. */
    public boolean inUse(int index) {
        return index >= 0 && index < state.length && state[index] != FREE;
    }

    /** The entry at {@code index} is a valid region (registered, or fast-registered and not invalidated). */
    public boolean registered(int index) {
        return inUse(index) && state[index] == VALID;
    }

    public boolean window(int index) {
        return inUse(index) && window[index];
    }

    @Override
    public int liveCount() {
        return live;
    }

    /** Entries whose index is below the committed MR count (and the table). */
    private long usableEntries() {
        return Math.min(hmc.count(HmcObjectType.MR), state.length);
    }

    // ------------------------------------------------------------------ CQP ops

    /**
     * Alloc STag (ctrl.c irdma_sc_alloc_stag for a region, irdma_sc_mw_alloc for a window when STAG_MR is clear):
     * the entry exists but is not valid until a Fast Register (regions) or a bind (windows). The caller has
     * checked that the MR object {@link #indexOf} the index field resolves in the HMC.
     */
    public RegistrationFault allocate(CqpWqe w) {
        generation++;
        int field = w.stagIndex();
        int idx = indexOf(field);
        if (idx >= state.length) {
            return refuse(RegistrationFault.INDEX_OUT_OF_RANGE, "alloc", field, w.stagPdId());
        }
        if (state[idx] != FREE) {
            return refuse(RegistrationFault.IN_USE, "alloc", field, w.stagPdId());
        }
        if (!w.stagMr()) {
            clearEntry(idx);
            window[idx] = true;
            windowType2[idx] = w.stagMwWide();
            indexField[idx] = field;
            pd[idx] = w.stagPdId();
            state[idx] = INVALID;
            live++;
            traceEntry("alloc_window", idx);
            return RegistrationFault.NONE;
        }
        int pageCode = w.stagPageSize();
        int chunkCode = w.pblChunkSize();
        RegistrationFault f = pageListCodes(pageCode, chunkCode);
        if (f == RegistrationFault.NONE && w.stagLength() == 0) {
            // ctrl.c irdma_sc_alloc_stag refuses total_len 0 unless all_memory, which no Alloc STag caller sets
            f = RegistrationFault.ZERO_LENGTH;
        }
        if (f == RegistrationFault.NONE) {
            f = rightsFault(w.stagAccessRights(), w.stagRemoteAccess());
        }
        if (f == RegistrationFault.NONE && chunkCode != CHUNK_NONE
                && w.stagFirstPmPblIndex() >= hmc.count(HmcObjectType.PBLE)) {
            f = RegistrationFault.PBL_INDEX_OUT_OF_RANGE;
        }
        if (f != RegistrationFault.NONE) {
            return refuse(f, "alloc", field, w.stagPdId());
        }
        clearEntry(idx);
        indexField[idx] = field;
        pd[idx] = w.stagPdId();
        rights[idx] = w.stagAccessRights();
        remoteEnabled[idx] = w.stagRemoteAccess();
        remoteAtomics[idx] = w.stagUsePfRid();
        length[idx] = w.stagLength();
        chunk[idx] = (byte) chunkCode;
        pageShift[idx] = (byte) PAGE_SHIFT[pageCode];
        firstPble[idx] = chunkCode == CHUNK_NONE ? 0 : w.stagFirstPmPblIndex();
        state[idx] = INVALID;
        live++;
        traceEntry("alloc", idx);
        return RegistrationFault.NONE;
    }

    /**
     * Register MR, non-shared (ctrl.c irdma_sc_mr_reg_non_shared): valid at once. Checks the page size and chunk
     * codes, the length (zero only for the all-memory region), VA + length against 2^64, the rights, the first byte
     * offset, the page list's first and last PBLE against the committed PBLE count and the HMC backing, and for a
     * physical buffer that its first byte is mapped.
     */
    public RegistrationFault register(CqpWqe w) {
        generation++;
        int field = w.stagIndex();
        int idx = indexOf(field);
        int pdId = w.stagPdId();
        if (idx >= state.length) {
            return refuse(RegistrationFault.INDEX_OUT_OF_RANGE, "register", field, pdId);
        }
        if (state[idx] != FREE) {
            return refuse(RegistrationFault.IN_USE, "register", field, pdId);
        }
        int pageCode = w.stagPageSize();
        int chunkCode = w.pblChunkSize();
        RegistrationFault f = pageListCodes(pageCode, chunkCode);
        if (f != RegistrationFault.NONE) {
            return refuse(f, "register", field, pdId);
        }
        int shift = PAGE_SHIFT[pageCode];
        long pageMask = (1L << shift) - 1;
        long len = w.stagLength();
        boolean based = w.stagVaBased();
        long q0 = w.stagVaOrFbo();
        boolean all = len == 0 && chunkCode == CHUNK_NONE;
        long first = w.stagFirstPmPblIndex();
        long offsetInPage = based ? q0 & pageMask : q0;
        if (len == 0 && !all) {
            f = RegistrationFault.ZERO_LENGTH;
        } else if (!based && Long.compareUnsigned(q0, pageMask) > 0) {
            f = RegistrationFault.BAD_FIRST_BYTE_OFFSET;
        } else if (based && !all && Long.compareUnsigned(q0 + len - 1, q0) < 0) {
            f = RegistrationFault.LENGTH_OVERFLOW;
        } else {
            f = rightsFault(w.stagAccessRights(), w.stagRemoteAccess());
        }
        long frame0 = w.stagRegAddress() & ~pageMask;
        if (f == RegistrationFault.NONE) {
            if (chunkCode != CHUNK_NONE) {
                f = pageListFault(chunkCode, first, offsetInPage, len, shift);
            } else if (!all && !memory.contains(frame0 + offsetInPage, 1)) {
                f = RegistrationFault.BUFFER_NOT_MAPPED;
            }
        }
        if (f != RegistrationFault.NONE) {
            return refuse(f, "register", field, pdId);
        }
        clearEntry(idx);
        indexField[idx] = field;
        key[idx] = w.stagKey();
        pd[idx] = pdId;
        rights[idx] = w.stagAccessRights();
        remoteEnabled[idx] = w.stagRemoteAccess();
        remoteAtomics[idx] = w.stagUsePfRid();
        vaBased[idx] = based;
        allMemory[idx] = all;
        va[idx] = based ? q0 : 0;
        fbo[idx] = offsetInPage;
        length[idx] = len;
        chunk[idx] = (byte) chunkCode;
        pageShift[idx] = (byte) shift;
        firstPble[idx] = chunkCode == CHUNK_NONE ? 0 : first;
        firstFrame[idx] = chunkCode == CHUNK_NONE ? frame0 : 0;
        state[idx] = VALID;
        live++;
        registrations++;
        traceEntry("register", idx);
        return RegistrationFault.NONE;
    }

    /** Deallocate STag (ctrl.c irdma_sc_dealloc_stag): the index field, MR flag and PD must match the entry. */
    public RegistrationFault deallocate(CqpWqe w) {
        generation++;
        int field = w.stagIndex();
        int idx = indexOf(field);
        int pdId = w.stagPdId();
        RegistrationFault f = RegistrationFault.NONE;
        if (idx >= state.length || state[idx] == FREE || indexField[idx] != field) {
            f = RegistrationFault.NO_SUCH_STAG;
        } else if (window[idx] == w.stagMr()) {
            f = RegistrationFault.KIND_MISMATCH;
        } else if (pd[idx] != pdId) {
            f = RegistrationFault.PD_MISMATCH;
        }
        if (f != RegistrationFault.NONE) {
            return refuse(f, "dealloc", field, pdId);
        }
        traceEntry("dealloc", idx);
        clearEntry(idx);
        live--;
        return RegistrationFault.NONE;
    }

    private static RegistrationFault pageListCodes(int pageCode, int chunkCode) {
        if (pageCode >= PAGE_SHIFT.length) {
            return RegistrationFault.BAD_PAGE_SIZE;
        }
        if (chunkCode != CHUNK_NONE && chunkCode != CHUNK_LEVEL_1 && chunkCode != CHUNK_LEVEL_2) {
            return RegistrationFault.BAD_CHUNK_SIZE;
        }
        return RegistrationFault.NONE;
    }

    /** user.h: IRDMA_ACCESS_FLAGS_REMOTEWRITE includes LOCALWRITE; ctrl.c sets REMACCENABLED for remote rights. */
    private static RegistrationFault rightsFault(int r, boolean remote) {
        if ((r & REMOTE_WRITE) != 0 && (r & LOCAL_WRITE) == 0 || (r & REMOTE_RIGHTS) != 0 && !remote) {
            return RegistrationFault.BAD_RIGHTS;
        }
        return RegistrationFault.NONE;
    }

    /** PBLEs (level 1) or root entries (level 2) the page list of {@code len} bytes from {@code offsetInPage} uses. */
    private static long pageListEntries(int chunkCode, long offsetInPage, long len, int shift) {
        long pages = (offsetInPage + len + (1L << shift) - 1) >>> shift;
        return chunkCode == CHUNK_LEVEL_1 ? pages : (pages + PBLE_PER_PAGE - 1) / PBLE_PER_PAGE;
    }

    /**
     * The page list's entries must lie below the committed PBLE count and its first and last must resolve
     * (ctrl.c irdma_sc_mr_reg_non_shared checks the first index against the count on the driver's side too).
     * The entries between, and the leaves of a two-level list, are read when an access needs them.
     */
    private RegistrationFault pageListFault(int chunkCode, long first, long offsetInPage, long len, int shift) {
        long entries = pageListEntries(chunkCode, offsetInPage, len, shift);
        if (entries <= 0 || first + entries > hmc.count(HmcObjectType.PBLE)) {
            return RegistrationFault.PBL_INDEX_OUT_OF_RANGE;
        }
        if (hmc.locate(HmcObjectType.PBLE, first) != HmcFault.NONE
                || hmc.locate(HmcObjectType.PBLE, first + entries - 1) != HmcFault.NONE) {
            return RegistrationFault.PBLE_NOT_RESOLVED;
        }
        return RegistrationFault.NONE;
    }

    private void clearEntry(int i) {
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

    // ------------------------------------------------------------------ SQ ops: Fast Register, invalidation

    /**
     * Fast Register (ctrl.c irdma_sc_mr_fast_register; verbs.c irdma_post_send IB_WR_REG_MR): the allocated,
     * invalid region of the WQE's STag index becomes valid with the WQE's key, rights, VA or first byte offset,
     * length and page list. irdma writes the first page's address as the PBL address and, with more than one page,
     * chunk size 1 and the level-1 PBLE index; the device's check that the page list's first page is that address
     * is {@link AccessFault#FASTREG_PBLE_MISMATCH}.
     */
    @Override
    public int fastRegister(SqWqe wqe, int pdId) {
        generation++;
        int field = wqe.stagIndex();
        int stag = field << 8 | wqe.stagKey();
        if (wqe.sqOpcode() != SqOpcode.FAST_REGISTER) {
            return refuse(AccessFault.NOT_FAST_REGISTER, stag, 0, 0);
        }
        int idx = indexOf(field);
        AccessFault f = AccessFault.NONE;
        int r = wqe.stagRights();
        int pageCode = wqe.hostPageSizeCode();
        int chunkCode = wqe.pblChunkSize();
        long len = wqe.stagLength();
        boolean based = wqe.vaBased();
        long q0 = wqe.stagVaOrFbo();
        if (idx >= usableEntries()) {
            f = AccessFault.BAD_STAG_INDEX;
        } else if (state[idx] == FREE) {
            f = AccessFault.UNALLOCATED_STAG;
        } else if (indexField[idx] != field) {
            f = AccessFault.BAD_STAG_KEY;
        } else if (window[idx]) {
            f = AccessFault.FASTREG_MW_STAG;
        } else if (state[idx] == VALID) {
            f = AccessFault.FASTREG_VALID_STAG;
        } else if (pd[idx] != pdId) {
            f = AccessFault.BAD_PD;
        } else if ((r & REMOTE_WRITE) != 0 && (r & LOCAL_WRITE) == 0 || (r & BIND_WINDOW) != 0
                || (r & REMOTE_RIGHTS) != 0 && !remoteEnabled[idx]) {
            // verbs.c irdma_get_mr_access: BIND_WINDOW only from gen3; REMOTEWRITE always carries LOCALWRITE
            f = AccessFault.FASTREG_INVALID_RIGHTS;
        } else if (pageCode >= PAGE_SHIFT.length || chunkCode != CHUNK_NONE && chunkCode != CHUNK_LEVEL_1
                && chunkCode != CHUNK_LEVEL_2) {
            f = AccessFault.FASTREG_INVALID_PBL_HPS_CFG;
        } else if (len == 0 || based && Long.compareUnsigned(q0 + len - 1, q0) < 0) {
            f = AccessFault.FASTREG_INVALID_LENGTH;
        } else if (!based && Long.compareUnsigned(q0, (1L << PAGE_SHIFT[pageCode]) - 1) > 0) {
            f = AccessFault.FASTREG_INVALID_PBL_HPS_CFG;
        }
        if (f != AccessFault.NONE) {
            return refuse(f, stag, q0, len);
        }
        int shift = PAGE_SHIFT[pageCode];
        long pageMask = (1L << shift) - 1;
        long offsetInPage = based ? q0 & pageMask : q0;
        long first = wqe.firstPmPblIndex();
        long pbl = wqe.pblAddress() & ~pageMask;
        if (chunkCode != CHUNK_NONE) {
            if (pageListFault(chunkCode, first, offsetInPage, len, shift) != RegistrationFault.NONE
                    || !frameOf(chunkCode, first, 0, shift, 0) || frame != pbl) {
                return refuse(AccessFault.FASTREG_PBLE_MISMATCH, stag, q0, len);
            }
        }
        key[idx] = wqe.stagKey();
        rights[idx] = r;
        remoteAtomics[idx] = wqe.remoteAtomics();
        vaBased[idx] = based;
        allMemory[idx] = false;
        va[idx] = based ? q0 : 0;
        fbo[idx] = offsetInPage;
        length[idx] = len;
        chunk[idx] = (byte) chunkCode;
        pageShift[idx] = (byte) shift;
        firstPble[idx] = chunkCode == CHUNK_NONE ? 0 : first;
        firstFrame[idx] = chunkCode == CHUNK_NONE ? pbl : 0;
        state[idx] = VALID;
        fastRegistrations++;
        traceEntry("fast_register", idx);
        return OK;
    }

    /**
     * Local Invalidate (uk.c irdma_uk_stag_local_invalidate) or a received Send with Invalidate (RFC 5040,
     * {@code remote}). An STag already invalid stays so without error (the verbs semantics siw_invalidate_stag
     * also follows); a remote invalidation needs the region to grant remote access.
     */
    @Override
    public int invalidate(int stag, int pdId, boolean remote) {
        generation++;
        AccessFault f = lookup(stag);
        int idx = hitIndex;
        if (f == AccessFault.NONE) {
            if (window[idx] && !windowType2[idx]) {
                f = AccessFault.INVALIDATE_TYPE1_MW;
            } else if (pd[idx] != pdId) {
                f = AccessFault.BAD_PD;
            } else if (remote && !(remoteEnabled[idx] && (rights[idx] & REMOTE_RIGHTS) != 0)) {
                f = AccessFault.INVALIDATE_NO_REMOTE_ACCESS_RIGHTS;
            }
        }
        if (f != AccessFault.NONE) {
            return refuse(f, stag, 0, 0);
        }
        state[idx] = INVALID;
        invalidations++;
        TraceEvent t = trace.start(TraceKind.MR);
        if (t != null) {
            t.text("action", remote ? "remote_invalidate" : "local_invalidate").hex("stag", stag & 0xffff_ffffL)
                    .num("index", idx).num("pd", pdId).emit();
        }
        return OK;
    }

    // ------------------------------------------------------------------ the data path

    /** STag 0, index range, allocation and key (index field and 8-bit key); sets {@link #hitIndex}. */
    private AccessFault lookup(int stag) {
        if (stag == 0) {
            return AccessFault.STAG_ZERO;
        }
        int field = stag >>> 8;
        int idx = indexOf(field);
        if (idx >= usableEntries()) {
            return AccessFault.BAD_STAG_INDEX;
        }
        if (state[idx] == FREE) {
            return AccessFault.UNALLOCATED_STAG;
        }
        if (indexField[idx] != field || key[idx] != NO_KEY && key[idx] != (stag & 0xff)) {
            return AccessFault.BAD_STAG_KEY;
        }
        hitIndex = idx;
        return AccessFault.NONE;
    }

    /**
     * The checks in the order RFC 5040 (§7, §8) and the E810 AE list imply: STag (index, allocated, key), valid,
     * PD, rights, tagged offset wrap, bounds. Sets {@link #hitIndex} and {@link #hitOffset} (the region offset of the
     * first byte) when admitted.
     */
    private AccessFault admit(int stag, long to, long len, int access, int pdId) {
        int need = access & ACCESS_RIGHTS;
        long mrCount = hmc.count(HmcObjectType.MR);
        if (stag != admittedStag || pdId != admittedPd || need != admittedRights
                || generation != admittedGeneration || mrCount != admittedMrCount) {
            AccessFault f = lookup(stag);
            if (f != AccessFault.NONE) {
                return f;
            }
            int idx = hitIndex;
            if (state[idx] != VALID) {
                return AccessFault.INVALID_STAG;
            }
            if (pd[idx] != pdId) {
                return AccessFault.BAD_PD;
            }
            if ((rights[idx] & need) != need || (need & REMOTE_RIGHTS) != 0 && !remoteEnabled[idx]) {
                return AccessFault.RIGHTS_VIOLATION;
            }
            admittedStag = stag;
            admittedPd = pdId;
            admittedRights = need;
            admittedGeneration = generation;
            admittedMrCount = mrCount;
            admittedIndex = idx;
            admittedVaBased = vaBased[idx];
            admittedAllMemory = allMemory[idx];
            admittedVa = va[idx];
            admittedLength = length[idx];
            admittedFbo = fbo[idx];
        }
        hitIndex = admittedIndex;
        if (len == 0) {
            hitOffset = 0;
            return AccessFault.NONE;
        }
        if (Long.compareUnsigned(to + len - 1, to) < 0) {
            return AccessFault.TO_WRAP;
        }
        boolean based = admittedVaBased;
        long rel = based ? to - admittedVa : to;
        if (!admittedAllMemory) {
            long size = admittedLength;
            if (based && Long.compareUnsigned(to, admittedVa) < 0 || Long.compareUnsigned(rel, size) >= 0
                    || Long.compareUnsigned(len, size - rel) > 0) {
                return AccessFault.BOUNDS_VIOLATION;
            }
        }
        hitOffset = admittedFbo + rel;
        return AccessFault.NONE;
    }

    @Override
    public int check(int stag, long taggedOffset, long len, int access, int pdId) {
        AccessFault f = admit(stag, taggedOffset, len, access, pdId);
        if (f != AccessFault.NONE) {
            return refuse(f, stag, taggedOffset, len);
        }
        if (len == 0) {
            return OK;
        }
        f = walk(hitIndex, hitOffset, len, VALIDATE, null, 0);
        return f == AccessFault.NONE ? OK : refuse(f, stag, taggedOffset, len);
    }

    @Override
    public int write(int stag, long taggedOffset, BytesStore<?, ?> src, long srcOffset, int len, int access,
                     int pdId) {
        if (len < 0 || srcOffset < src.start() || srcOffset > src.readLimit() - len) {
            throw new IllegalArgumentException("source " + srcOffset + "+" + len + " outside its store");
        }
        return place(stag, taggedOffset, src, srcOffset, len, access, pdId, COPY_IN);
    }

    @Override
    public int read(int stag, long taggedOffset, BytesStore<?, ?> dst, long dstOffset, int len, int access,
                    int pdId) {
        if (len < 0 || dstOffset < dst.start() || dstOffset > dst.capacity() - len) {
            throw new IllegalArgumentException("destination " + dstOffset + "+" + len + " outside its store");
        }
        return place(stag, taggedOffset, dst, dstOffset, len, access, pdId, COPY_OUT);
    }

    private int place(int stag, long to, BytesStore<?, ?> buf, long bufOffset, int len, int access, int pdId,
                      int mode) {
        AccessFault f = admit(stag, to, len, access, pdId);
        if (f == AccessFault.NONE && len > 0) {
            f = walk(hitIndex, hitOffset, len, VALIDATE, null, 0);
        }
        if (f != AccessFault.NONE) {
            return refuse(f, stag, to, len);
        }
        if (len == 0) {
            return OK;
        }
        int cached = Math.min(pieces, CACHED_PIECES);
        for (int i = 0; i < cached; i++) {
            copy(mode, pieceRegion[i], pieceOffset[i], buf, bufOffset, pieceLength[i]);
            bufOffset += pieceLength[i];
        }
        if (pieces > CACHED_PIECES) {
            // the pieces beyond the cache are translated again; only a guest rewriting its PBLEs from another
            // thread during this call could make that fail, and then the bytes before stay written
            f = walk(hitIndex, hitOffset + cachedBytes, len - cachedBytes, mode, buf, bufOffset);
            if (f != AccessFault.NONE) {
                return refuse(f, stag, to, len);
            }
        }
        return OK;
    }

    private void copy(int mode, int region, long storeOffset, BytesStore<?, ?> buf, long bufOffset, long n) {
        if (mode == COPY_IN) {
            memory.store(region).write(storeOffset, buf, bufOffset, n);
        } else {
            buf.write(bufOffset, memory.store(region), storeOffset, n);
        }
    }

    /**
     * Walks {@code len} bytes of entry {@code e} from region offset {@code offset}: page by page through the page
     * list, each page split again at host-memory region ends. VALIDATE checks and caches the pieces (setting
     * {@link #pieces} and {@link #cachedBytes}); COPY_IN / COPY_OUT copy as they go.
     */
    private AccessFault walk(int e, long offset, long len, int mode, BytesStore<?, ?> buf, long bufOffset) {
        int shift = pageShift[e];
        long pageSize = 1L << shift;
        long done = 0;
        long lastPage = -1;
        int n = 0;
        long cached = 0;
        while (done < len) {
            long at = offset + done;
            long page = at >>> shift;
            if (page != lastPage) {
                if (!frameOf(chunk[e], firstPble[e], firstFrame[e], shift, page)) {
                    return frameFault;
                }
                lastPage = page;
            }
            long within = at & (pageSize - 1);
            long gpa = frame + within;
            int r = gpa < 0 ? -1 : memory.find(gpa, 1);
            if (r < 0) {
                return AccessFault.DMA_FAULT;
            }
            long piece = Math.min(len - done, pageSize - within);
            piece = Math.min(piece, memory.base(r) + memory.length(r) - gpa);
            long storeOffset = memory.offset(r, gpa);
            if (mode == VALIDATE) {
                if (n < CACHED_PIECES) {
                    pieceRegion[n] = r;
                    pieceOffset[n] = storeOffset;
                    pieceLength[n] = piece;
                    cached += piece;
                }
            } else {
                copy(mode, r, storeOffset, buf, bufOffset + done, piece);
            }
            n++;
            done += piece;
        }
        if (mode == VALIDATE) {
            pieces = n;
            cachedBytes = cached;
        }
        return AccessFault.NONE;
    }

    /**
     * The page frame of page {@code page} of a page list into {@link #frame}: contiguous from {@code frame0}
     * (no PBL), PBLE {@code first + page} (level 1), or PBLE {@code root[first + page / 512] + page % 512}
     * (level 2, pble.c get_lvl2_pble). False with {@link #frameFault} when a PBLE does not resolve.
     */
    private boolean frameOf(int chunkCode, long first, long frame0, int shift, long page) {
        long pageMask = (1L << shift) - 1;
        if (chunkCode == CHUNK_NONE) {
            frame = frame0 + (page << shift);
            return true;
        }
        if (!pbles.page(chunkCode != CHUNK_LEVEL_1, first, page)) {
            frameFault = AccessFault.PBLE_FAULT;
            return false;
        }
        frame = pbles.value() & ~pageMask;
        return true;
    }

    // ------------------------------------------------------------------ privileged physical access

    /**
     * A privileged STag 0 write (the QP engine decides who is privileged): {@code len} bytes at guest-physical
     * {@code gpa}, split at host-memory region ends, all checked before the first byte is written. Answers
     * {@link #OK} or the DMA fault's code.
     */
    public int writePhysical(long gpa, BytesStore<?, ?> src, long srcOffset, int len) {
        if (len < 0 || srcOffset < src.start() || srcOffset > src.readLimit() - len) {
            throw new IllegalArgumentException("source " + srcOffset + "+" + len + " outside its store");
        }
        return physical(gpa, src, srcOffset, len, COPY_IN);
    }

    /** A privileged STag 0 read, as {@link #writePhysical}. */
    public int readPhysical(long gpa, BytesStore<?, ?> dst, long dstOffset, int len) {
        if (len < 0 || dstOffset < dst.start() || dstOffset > dst.capacity() - len) {
            throw new IllegalArgumentException("destination " + dstOffset + "+" + len + " outside its store");
        }
        return physical(gpa, dst, dstOffset, len, COPY_OUT);
    }

    private int physical(long gpa, BytesStore<?, ?> buf, long bufOffset, int len, int mode) {
        for (boolean copying = false; ; copying = true) {
            long done = 0;
            while (done < len) {
                long at = gpa + done;
                int r = at < 0 ? -1 : memory.find(at, 1);
                if (r < 0) {
                    return refuse(AccessFault.DMA_FAULT, 0, gpa, len);
                }
                long piece = Math.min(len - done, memory.base(r) + memory.length(r) - at);
                if (copying) {
                    copy(mode, r, memory.offset(r, at), buf, bufOffset + done, piece);
                }
                done += piece;
            }
            if (copying) {
                return OK;
            }
        }
    }

    // ------------------------------------------------------------------ failures, counters, trace

    private int refuse(AccessFault f, int stag, long to, long len) {
        accessFailures[f.ordinal()]++;
        lastAccessFault = f;
        TraceEvent t = trace.start(TraceKind.MR);
        if (t != null) {
            t.text("action", "refused").text("reason", f.name()).hex("ae", f.code()).hex("stag", stag & 0xffff_ffffL)
                    .hex("to", to).num("len", len).emit();
        }
        return f.code();
    }

    private RegistrationFault refuse(RegistrationFault f, String op, int field, int pdId) {
        registrationFailures[f.ordinal()]++;
        lastRegistrationFault = f;
        TraceEvent t = trace.start(TraceKind.MR);
        if (t != null) {
            t.text("action", op).text("result", f.name()).hex("stag_index", field).num("pd", pdId).emit();
        }
        return f;
    }

    private void traceEntry(String action, int i) {
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

    /** Refusals of data-path accesses, Fast Registers and invalidations for {@code f}. */
    public long failures(AccessFault f) {
        return accessFailures[f.ordinal()];
    }

    /** Refused CQP STag ops for {@code f}. */
    public long failures(RegistrationFault f) {
        return registrationFailures[f.ordinal()];
    }

    /** All refused accesses, Fast Registers and invalidations. */
    public long accessFailures() {
        long n = 0;
        for (long c : accessFailures) {
            n += c;
        }
        return n;
    }

    public AccessFault lastAccessFault() {
        return lastAccessFault;
    }

    public RegistrationFault lastRegistrationFault() {
        return lastRegistrationFault;
    }

    /** Successful Register MR ops. */
    public long registrations() {
        return registrations;
    }

    public long fastRegistrations() {
        return fastRegistrations;
    }

    public long invalidations() {
        return invalidations;
    }

    // ------------------------------------------------------------------ inspection (tests, summaries)

    /** The key the entry at {@code index} answers to, as a 32-bit STag; 0 when free. */
    public int stagAt(int index) {
        return inUse(index) ? indexField[index] << 8 | key[index] & 0xff : 0;
    }

    public int pdAt(int index) {
        return pd[index];
    }

    public long lengthAt(int index) {
        return length[index];
    }

    public int rightsAt(int index) {
        return rights[index];
    }
}
