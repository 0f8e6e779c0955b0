package dev.irdmaemu.model.mr;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.trace.Trace;
import net.openhft.chronicle.bytes.BytesStore;


/**
 * The device's STag table and the checked translation of tagged offsets into host memory: the public face of
 * model.mr, whose work is split by concern: {@link StagEntries} (the table), {@link StagRegistration} (the CQP
 * STag ops), {@link FastRegistration} (Fast Register and invalidation), {@link StagAdmission} (the RFC 5040 access
 * checks), {@link RegionTranslation} (page-list walk and copy) and {@link StagCounters} (refusals and successes).
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
 * PBLE object at {@code base + 8 x index} ({@link HmcFunction#locate}).
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

    private final StagEntries entries;
    private final StagCounters counters;
    private final StagRegistration registration;
    private final StagAdmission admission;
    private final RegionTranslation translation;
    private final FastRegistration fastRegistration;

    /** A table of {@code capacity} entries (the HMC MR maximum the model answers to Query FPM Values). */
    public MemoryRegionTable(HostMemory memory, HmcFunction hmc, Trace trace, int capacity) {
        entries = new StagEntries(hmc, trace, capacity);
        counters = new StagCounters(trace);
        registration = new StagRegistration(memory, hmc, entries, counters);
        admission = new StagAdmission(hmc, entries);
        translation = new RegionTranslation(memory, hmc, entries, admission, counters);
        fastRegistration = new FastRegistration(trace, entries, counters, admission, registration, translation);
    }

    // ------------------------------------------------------------------ STag index

    /** The index bits of the STag index field: {@code max(order(committed MR count), 14)}, as irdma masks. */
    public int indexBits() {
        return entries.indexBits();
    }

    /** The table index of a 24-bit STag index field ({@code stag >>> 8}). */
    public int indexOf(int stagIndexField) {
        return entries.indexOf(stagIndexField);
    }

    public int capacity() {
        return entries.state.length;
    }

    /** An entry is allocated (valid or not) at {@code index}. */
    public boolean inUse(int index) {
        return entries.inUse(index);
    }

    /** The entry at {@code index} is a valid region (registered, or fast-registered and not invalidated). */
    public boolean registered(int index) {
        return inUse(index) && entries.state[index] == StagEntries.VALID;
    }

    public boolean window(int index) {
        return inUse(index) && entries.window[index];
    }

    @Override
    public int liveCount() {
        return entries.live;
    }

    // ------------------------------------------------------------------ CQP ops (StagRegistration)

    /**
     * Alloc STag (ctrl.c irdma_sc_alloc_stag for a region, irdma_sc_mw_alloc for a window when STAG_MR is clear):
     * the entry exists but is not valid until a Fast Register (regions) or a bind (windows). The caller has
     * checked that the MR object {@link #indexOf} the index field resolves in the HMC.
     */
    public RegistrationFault allocate(CqpWqe w) {
        return registration.allocate(w);
    }

    /** Register MR, non-shared (ctrl.c irdma_sc_mr_reg_non_shared): valid at once, after every check. */
    public RegistrationFault register(CqpWqe w) {
        return registration.register(w);
    }

    /** Deallocate STag (ctrl.c irdma_sc_dealloc_stag): the index field, MR flag and PD must match the entry. */
    public RegistrationFault deallocate(CqpWqe w) {
        return registration.deallocate(w);
    }

    // ------------------------------------------------------------------ SQ ops (FastRegistration)

    @Override
    public int fastRegister(SqWqe wqe, int pdId) {
        return fastRegistration.fastRegister(wqe, pdId);
    }

    @Override
    public int invalidate(int stag, int pdId, boolean remote) {
        return fastRegistration.invalidate(stag, pdId, remote);
    }

    // ------------------------------------------------------------------ the data path (RegionTranslation)

    @Override
    public int check(int stag, long taggedOffset, long len, int access, int pdId) {
        return translation.check(stag, taggedOffset, len, access, pdId);
    }

    @Override
    public int write(int stag, long taggedOffset, BytesStore<?, ?> src, long srcOffset, int len, int access,
                     int pdId) {
        return translation.write(stag, taggedOffset, src, srcOffset, len, access, pdId);
    }

    @Override
    public int read(int stag, long taggedOffset, BytesStore<?, ?> dst, long dstOffset, int len, int access,
                    int pdId) {
        return translation.read(stag, taggedOffset, dst, dstOffset, len, access, pdId);
    }

    /**
     * A privileged STag 0 write (the QP engine decides who is privileged): {@code len} bytes at guest-physical
     * {@code gpa}, split at host-memory region ends, all checked before the first byte is written. Answers
     * {@link #OK} or the DMA fault's code.
     */
    public int writePhysical(long gpa, BytesStore<?, ?> src, long srcOffset, int len) {
        return translation.writePhysical(gpa, src, srcOffset, len);
    }

    /** A privileged STag 0 read, as {@link #writePhysical}. */
    public int readPhysical(long gpa, BytesStore<?, ?> dst, long dstOffset, int len) {
        return translation.readPhysical(gpa, dst, dstOffset, len);
    }

    // ------------------------------------------------------------------ failures, counters (StagCounters)

    /** Refusals of data-path accesses, Fast Registers and invalidations for {@code f}. */
    public long failures(AccessFault f) {
        return counters.failures(f);
    }

    /** Refused CQP STag ops for {@code f}. */
    public long failures(RegistrationFault f) {
        return counters.failures(f);
    }

    /** All refused accesses, Fast Registers and invalidations. */
    public long accessFailures() {
        return counters.accessFailures();
    }

    public AccessFault lastAccessFault() {
        return counters.lastAccessFault();
    }

    public RegistrationFault lastRegistrationFault() {
        return counters.lastRegistrationFault();
    }

    /** Successful Register MR ops. */
    public long registrations() {
        return counters.registrations();
    }

    public long fastRegistrations() {
        return counters.fastRegistrations();
    }

    public long invalidations() {
        return counters.invalidations();
    }

    // ------------------------------------------------------------------ inspection (tests, summaries)

    /** The key the entry at {@code index} answers to, as a 32-bit STag; 0 when free. */
    public int stagAt(int index) {
        return inUse(index) ? entries.indexField[index] << 8 | entries.key[index] & 0xff : 0;
    }

    public int pdAt(int index) {
        return entries.pd[index];
    }

    public long lengthAt(int index) {
        return entries.length[index];
    }

    public int rightsAt(int index) {
        return entries.rights[index];
    }
}
