package dev.irdmaemu.model.mr;

import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_LEVEL_1;
import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_LEVEL_2;
import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_NONE;
import static dev.irdmaemu.model.mr.MemoryRegions.BIND_WINDOW;
import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_WRITE;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_WRITE;
import static dev.irdmaemu.model.mr.StagEntries.FREE;
import static dev.irdmaemu.model.mr.StagEntries.INVALID;
import static dev.irdmaemu.model.mr.StagEntries.PAGE_SHIFT;
import static dev.irdmaemu.model.mr.StagEntries.REMOTE_RIGHTS;
import static dev.irdmaemu.model.mr.StagEntries.VALID;

import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * The STag changes a QP makes on its send queue or the peer makes by message, not the CQP: Fast Register (ctrl.c
 * irdma_sc_mr_fast_register; verbs.c irdma_post_send IB_WR_REG_MR) turns an allocated, invalid region valid with a
 * new key and page list; Local Invalidate (uk.c irdma_uk_stag_local_invalidate) and a received Send with
 * Invalidate (RFC 5040 §6.10) make a region or type 2 window invalid again. Refusals are {@link AccessFault}s,
 * answered as AE codes.
 */
final class FastRegistration {
    private final Trace trace;
    private final StagEntries e;
    private final StagCounters counters;
    private final StagAdmission admission;
    private final StagRegistration registration;
    private final RegionTranslation translation;

    FastRegistration(Trace trace, StagEntries entries, StagCounters counters, StagAdmission admission,
                     StagRegistration registration, RegionTranslation translation) {
        this.trace = trace;
        this.e = entries;
        this.counters = counters;
        this.admission = admission;
        this.registration = registration;
        this.translation = translation;
    }


    /**
     * Fast Register (ctrl.c irdma_sc_mr_fast_register; verbs.c irdma_post_send IB_WR_REG_MR): the allocated,
     * invalid region of the WQE's STag index becomes valid with the WQE's key, rights, VA or first byte offset,
     * length and page list. irdma writes the first page's address as the PBL address and, with more than one page,
     * chunk size 1 and the level-1 PBLE index; the device's check that the page list's first page is that address
     * is {@link AccessFault#FASTREG_PBLE_MISMATCH}.
     */
    int fastRegister(SqWqe wqe, int pdId) {
        e.generation++;
        int field = wqe.stagIndex();
        int stag = field << 8 | wqe.stagKey();
        if (wqe.sqOpcode() != SqOpcode.FAST_REGISTER) {
            return counters.refuse(AccessFault.NOT_FAST_REGISTER, stag, 0, 0);
        }
        int idx = e.indexOf(field);
        AccessFault f = AccessFault.NONE;
        int r = wqe.stagRights();
        int pageCode = wqe.hostPageSizeCode();
        int chunkCode = wqe.pblChunkSize();
        long len = wqe.stagLength();
        boolean based = wqe.vaBased();
        long q0 = wqe.stagVaOrFbo();
        if (idx >= e.usableEntries()) {
            f = AccessFault.BAD_STAG_INDEX;
        } else if (e.state[idx] == FREE) {
            f = AccessFault.UNALLOCATED_STAG;
        } else if (e.indexField[idx] != field) {
            f = AccessFault.BAD_STAG_KEY;
        } else if (e.window[idx]) {
            f = AccessFault.FASTREG_MW_STAG;
        } else if (e.state[idx] == VALID) {
            f = AccessFault.FASTREG_VALID_STAG;
        } else if (e.pd[idx] != pdId) {
            f = AccessFault.BAD_PD;
        } else if ((r & REMOTE_WRITE) != 0 && (r & LOCAL_WRITE) == 0 || (r & BIND_WINDOW) != 0
                || (r & REMOTE_RIGHTS) != 0 && !e.remoteEnabled[idx]) {
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
            return counters.refuse(f, stag, q0, len);
        }
        int shift = PAGE_SHIFT[pageCode];
        long pageMask = (1L << shift) - 1;
        long offsetInPage = based ? q0 & pageMask : q0;
        long first = wqe.firstPmPblIndex();
        long pbl = wqe.pblAddress() & ~pageMask;
        if (chunkCode != CHUNK_NONE) {
            if (registration.pageListFault(chunkCode, first, offsetInPage, len, shift) != RegistrationFault.NONE
                    || !translation.frameOf(chunkCode, first, 0, shift, 0) || translation.frame() != pbl) {
                return counters.refuse(AccessFault.FASTREG_PBLE_MISMATCH, stag, q0, len);
            }
        }
        e.key[idx] = wqe.stagKey();
        e.rights[idx] = r;
        e.remoteAtomics[idx] = wqe.remoteAtomics();
        e.validate(idx, based, false, q0, offsetInPage, len, chunkCode, shift, first, pbl);
        counters.fastRegistrations++;
        e.trace("fast_register", idx);
        return MemoryRegions.OK;
    }

    /**
     * Local Invalidate (uk.c irdma_uk_stag_local_invalidate) or a received Send with Invalidate (RFC 5040,
     * {@code remote}). An STag already invalid stays so without error (the verbs semantics siw_invalidate_stag
     * also follows); a remote invalidation needs the region to grant remote access.
     */
    int invalidate(int stag, int pdId, boolean remote) {
        e.generation++;
        AccessFault f = admission.lookup(stag);
        int idx = admission.entry();
        if (f == AccessFault.NONE) {
            if (e.window[idx] && !e.windowType2[idx]) {
                f = AccessFault.INVALIDATE_TYPE1_MW;
            } else if (e.pd[idx] != pdId) {
                f = AccessFault.BAD_PD;
            } else if (remote && !(e.remoteEnabled[idx] && (e.rights[idx] & REMOTE_RIGHTS) != 0)) {
                f = AccessFault.INVALIDATE_NO_REMOTE_ACCESS_RIGHTS;
            }
        }
        if (f != AccessFault.NONE) {
            return counters.refuse(f, stag, 0, 0);
        }
        e.state[idx] = INVALID;
        counters.invalidations++;
        TraceEvent t = trace.start(TraceKind.MR);
        if (t != null) {
            t.text("action", remote ? "remote_invalidate" : "local_invalidate").hex("stag", stag & 0xffff_ffffL)
                    .num("index", idx).num("pd", pdId).emit();
        }
        return MemoryRegions.OK;
    }
}
