package dev.irdmaemu.model.mr;

import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_READ;
import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_WRITE;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_READ;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_WRITE;
import static dev.irdmaemu.model.mr.StagEntries.FREE;
import static dev.irdmaemu.model.mr.StagEntries.NO_KEY;
import static dev.irdmaemu.model.mr.StagEntries.REMOTE_RIGHTS;
import static dev.irdmaemu.model.mr.StagEntries.VALID;

import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.hmc.HmcFunction;

/**
 * The access checks of a tagged access, in the order RFC 5040 (§7, §8) and the E810's AE list imply: the STag
 * (not 0, index below the committed MR count, allocated, index field and key), valid, PD, rights, tagged offset
 * wrap, bounds; and the STag lookup an invalidation makes. Remembers the last admitted STag so a stream of FPDUs
 * into one buffer re-checks only its offset and length. Allocation-free: the answer is an {@link AccessFault}, the
 * admitted entry and region offset are read with {@link #entry()} and {@link #regionOffset()}.
 */
final class StagAdmission {
    private static final int ACCESS_RIGHTS = LOCAL_READ | LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE;

    private final HmcFunction hmc;
    private final StagEntries e;
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

    // the admitted entry and the region offset of the access's first byte, of the last call that admitted
    private int hitIndex;
    private long hitOffset;

    StagAdmission(HmcFunction hmc, StagEntries entries) {
        this.hmc = hmc;
        this.e = entries;
    }

    /** The table index of the entry the last successful {@link #lookup} or {@link #admit} found. */
    int entry() {
        return hitIndex;
    }

    /** The region offset of the first byte the last successful {@link #admit} admitted (0 for a zero length). */
    long regionOffset() {
        return hitOffset;
    }

    /** STag 0, index range, allocation and key (index field and 8-bit key); sets {@link #entry()}. */
    AccessFault lookup(int stag) {
        if (stag == 0) {
            return AccessFault.STAG_ZERO;
        }
        int field = stag >>> 8;
        int idx = e.indexOf(field);
        if (idx >= e.usableEntries()) {
            return AccessFault.BAD_STAG_INDEX;
        }
        if (e.state[idx] == FREE) {
            return AccessFault.UNALLOCATED_STAG;
        }
        if (e.indexField[idx] != field || e.key[idx] != NO_KEY && e.key[idx] != (stag & 0xff)) {
            return AccessFault.BAD_STAG_KEY;
        }
        hitIndex = idx;
        return AccessFault.NONE;
    }

    /**
     * The checks in the order RFC 5040 (§7, §8) and the E810 AE list imply: STag (index, allocated, key), valid,
     * PD, rights, tagged offset wrap, bounds. Sets {@link #entry()} and {@link #regionOffset()} (the region offset of the
     * first byte) when admitted.
     */
    AccessFault admit(int stag, long to, long len, int access, int pdId) {
        int need = access & ACCESS_RIGHTS;
        long mrCount = hmc.count(HmcObjectType.MR);
        if (stag != admittedStag || pdId != admittedPd || need != admittedRights
                || e.generation != admittedGeneration || mrCount != admittedMrCount) {
            AccessFault f = lookup(stag);
            if (f != AccessFault.NONE) {
                return f;
            }
            int idx = hitIndex;
            if (e.state[idx] != VALID) {
                return AccessFault.INVALID_STAG;
            }
            if (e.pd[idx] != pdId) {
                return AccessFault.BAD_PD;
            }
            if ((e.rights[idx] & need) != need || (need & REMOTE_RIGHTS) != 0 && !e.remoteEnabled[idx]) {
                return AccessFault.RIGHTS_VIOLATION;
            }
            admittedStag = stag;
            admittedPd = pdId;
            admittedRights = need;
            admittedGeneration = e.generation;
            admittedMrCount = mrCount;
            admittedIndex = idx;
            admittedVaBased = e.vaBased[idx];
            admittedAllMemory = e.allMemory[idx];
            admittedVa = e.va[idx];
            admittedLength = e.length[idx];
            admittedFbo = e.fbo[idx];
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
}
