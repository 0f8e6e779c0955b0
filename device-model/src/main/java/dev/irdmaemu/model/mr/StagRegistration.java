package dev.irdmaemu.model.mr;

import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_LEVEL_1;
import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_LEVEL_2;
import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_NONE;
import static dev.irdmaemu.fw.hmc.PbleLayout.PBLE_PER_PAGE;
import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_WRITE;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_WRITE;
import static dev.irdmaemu.model.mr.StagEntries.FREE;
import static dev.irdmaemu.model.mr.StagEntries.INVALID;
import static dev.irdmaemu.model.mr.StagEntries.PAGE_SHIFT;
import static dev.irdmaemu.model.mr.StagEntries.REMOTE_RIGHTS;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.hmc.HmcFault;
import dev.irdmaemu.model.hmc.HmcFunction;

/**
 * The CQP STag ops on the table (ctrl.c irdma_sc_alloc_stag / irdma_sc_mw_alloc, irdma_sc_mr_reg_non_shared,
 * irdma_sc_dealloc_stag), and the page-list checks a registration makes (page size and PBL chunk codes, rights,
 * the page list's first and last PBLE), which Fast Register ({@link FastRegistration}) shares. Refusals are
 * {@link RegistrationFault}s, counted in {@link StagCounters}.
 */
final class StagRegistration {
    private final HostMemory memory;
    private final HmcFunction hmc;
    private final StagEntries e;
    private final StagCounters counters;

    StagRegistration(HostMemory memory, HmcFunction hmc, StagEntries entries, StagCounters counters) {
        this.memory = memory;
        this.hmc = hmc;
        this.e = entries;
        this.counters = counters;
    }

    /**
     * Alloc STag (ctrl.c irdma_sc_alloc_stag for a region, irdma_sc_mw_alloc for a window when STAG_MR is clear):
     * the entry exists but is not valid until a Fast Register (regions) or a bind (windows). The caller has
     * checked that the MR object {@link StagEntries#indexOf} the index field resolves in the HMC.
     */
    RegistrationFault allocate(CqpWqe w) {
        e.generation++;
        int field = w.stagIndex();
        int idx = e.indexOf(field);
        if (idx >= e.state.length) {
            return counters.refuse(RegistrationFault.INDEX_OUT_OF_RANGE, "alloc", field, w.stagPdId());
        }
        if (e.state[idx] != FREE) {
            return counters.refuse(RegistrationFault.IN_USE, "alloc", field, w.stagPdId());
        }
        if (!w.stagMr()) {
            e.clear(idx);
            e.window[idx] = true;
            e.windowType2[idx] = w.stagMwWide();
            e.indexField[idx] = field;
            e.pd[idx] = w.stagPdId();
            e.state[idx] = INVALID;
            e.live++;
            e.trace("alloc_window", idx);
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
            return counters.refuse(f, "alloc", field, w.stagPdId());
        }
        claim(idx, field, w.stagPdId(), w);
        e.length[idx] = w.stagLength();
        e.chunk[idx] = (byte) chunkCode;
        e.pageShift[idx] = (byte) PAGE_SHIFT[pageCode];
        e.firstPble[idx] = chunkCode == CHUNK_NONE ? 0 : w.stagFirstPmPblIndex();
        e.state[idx] = INVALID;
        e.live++;
        e.trace("alloc", idx);
        return RegistrationFault.NONE;
    }

    /**
     * Register MR, non-shared (ctrl.c irdma_sc_mr_reg_non_shared): valid at once. Checks the page size and chunk
     * codes, the length (zero only for the all-memory region), VA + length against 2^64, the rights, the first byte
     * offset, the page list's first and last PBLE against the committed PBLE count and the HMC backing, and for a
     * physical buffer that its first byte is mapped.
     */
    RegistrationFault register(CqpWqe w) {
        e.generation++;
        int field = w.stagIndex();
        int idx = e.indexOf(field);
        int pdId = w.stagPdId();
        if (idx >= e.state.length) {
            return counters.refuse(RegistrationFault.INDEX_OUT_OF_RANGE, "register", field, pdId);
        }
        if (e.state[idx] != FREE) {
            return counters.refuse(RegistrationFault.IN_USE, "register", field, pdId);
        }
        int pageCode = w.stagPageSize();
        int chunkCode = w.pblChunkSize();
        RegistrationFault f = pageListCodes(pageCode, chunkCode);
        if (f != RegistrationFault.NONE) {
            return counters.refuse(f, "register", field, pdId);
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
            return counters.refuse(f, "register", field, pdId);
        }
        claim(idx, field, pdId, w);
        e.key[idx] = w.stagKey();
        e.validate(idx, based, all, q0, offsetInPage, len, chunkCode, shift, first, frame0);
        e.live++;
        counters.registrations++;
        e.trace("register", idx);
        return RegistrationFault.NONE;
    }

    /**
     * Takes entry {@code idx} for the region the WQE allocates or registers (ctrl.c irdma_sc_alloc_stag,
     * irdma_sc_mr_reg_non_shared): cleared, then its index field, PD and access rights as the WQE gives them.
     */
    private void claim(int idx, int field, int pdId, CqpWqe w) {
        e.clear(idx);
        e.indexField[idx] = field;
        e.pd[idx] = pdId;
        e.rights[idx] = w.stagAccessRights();
        e.remoteEnabled[idx] = w.stagRemoteAccess();
        e.remoteAtomics[idx] = w.stagUsePfRid();
    }

    /** Deallocate STag (ctrl.c irdma_sc_dealloc_stag): the index field, MR flag and PD must match the entry. */
    RegistrationFault deallocate(CqpWqe w) {
        e.generation++;
        int field = w.stagIndex();
        int idx = e.indexOf(field);
        int pdId = w.stagPdId();
        RegistrationFault f = RegistrationFault.NONE;
        if (idx >= e.state.length || e.state[idx] == FREE || e.indexField[idx] != field) {
            f = RegistrationFault.NO_SUCH_STAG;
        } else if (e.window[idx] == w.stagMr()) {
            f = RegistrationFault.KIND_MISMATCH;
        } else if (e.pd[idx] != pdId) {
            f = RegistrationFault.PD_MISMATCH;
        }
        if (f != RegistrationFault.NONE) {
            return counters.refuse(f, "dealloc", field, pdId);
        }
        e.trace("dealloc", idx);
        e.clear(idx);
        e.live--;
        return RegistrationFault.NONE;
    }

    static RegistrationFault pageListCodes(int pageCode, int chunkCode) {
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
    RegistrationFault pageListFault(int chunkCode, long first, long offsetInPage, long len, int shift) {
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
}
