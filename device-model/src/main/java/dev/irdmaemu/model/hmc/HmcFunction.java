package dev.irdmaemu.model.hmc;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.SdCheck;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.stream.IntStream;

/**
 * The Host Memory Cache of the PF's RDMA function: object counts and bases from Commit FPM Values, the segment
 * descriptor table from Update PE SDs, and the resolution object index -> host address through SD -> PD -> page
 * (hmc.c irdma_sc_create_hmc_obj / irdma_add_pd_table_entry build that tree on the driver's side). Resolved page
 * descriptors are cached per SD, as the device's PD cache; PFHMC_PDINV drops one cached entry, so a PD the driver
 * rewrites without invalidating keeps resolving to the old page, as on hardware.
 */
public final class HmcFunction {
    private static final HmcObjectType[] TYPES = HmcObjectType.values();

    private final HostMemory memory;
    private final Trace trace;
    private final long[] count = new long[TYPES.length];
    private final long[] base = new long[TYPES.length];
    private final long[] size = new long[TYPES.length];
    private boolean committed;

    private final boolean[] sdValid = new boolean[HmcLimits.MAX_PE_SDS];
    private final boolean[] sdDirect = new boolean[HmcLimits.MAX_PE_SDS];
    private final long[] sdAddress = new long[HmcLimits.MAX_PE_SDS];
    private final long[][] pdCache = new long[HmcLimits.MAX_PE_SDS][];
    private final long[] scratch = new long[1];
    private HmcFault lastFault = HmcFault.NONE;
    private long located;
    private long pdInvalidations;

    public HmcFunction(HostMemory memory, Trace trace) {
        this.memory = memory;
        this.trace = trace;
        for (HmcObjectType t : TYPES) {
            size[t.ordinal()] = HmcLimits.objectSize(t);
        }
    }

    // --- Query FPM Values (ctrl.c irdma_sc_query_fpm_val; parsed by irdma_sc_parse_fpm_query_buf)

    /** Writes the model's limits into the 200-byte query buffer at {@code gpa}; false when it is not mapped. */
    public boolean writeQueryBuffer(long gpa) {
        int r = memory.find(gpa, FpmQueryBuffer.SIZE);
        if (r < 0) {
            return false;
        }
        var s = memory.store(r);
        long off = memory.offset(r, gpa);
        FpmQueryBuffer.clear(s, off);
        FpmQueryBuffer.writeSdInfo(s, off, HmcLimits.FIRST_PE_SD_INDEX, HmcLimits.MAX_PE_SDS);
        for (HmcObjectType t : TYPES) {
            long sizeOrBlock = switch (t.queryEncoding()) {
                case COUNT_AND_LOG2_SIZE -> HmcLimits.sizeLog2(t);
                case FREE_LIST -> HmcLimits.blockSize(t);
                default -> 0;
            };
            FpmQueryBuffer.writeObject(s, off, t, HmcLimits.maxCount(t), sizeOrBlock);
        }
        FpmQueryBuffer.writeMisc(s, off, HmcLimits.MAX_CEQS, HmcLimits.HT_MULTIPLIER, HmcLimits.TIMER_BUCKET,
                HmcLimits.MAX_IRD);
        return true;
    }

    // --- Commit FPM Values (ctrl.c irdma_sc_commit_fpm_val; answer parsed by irdma_sc_parse_fpm_commit_buf)

    /** Outcome of a commit. */
    public enum CommitResult {
        OK, DMA_FAULT, COUNT_ABOVE_MAX, TOO_MANY_SDS
    }

    private final FpmCommitBuffer commitView = new FpmCommitBuffer();

    /**
     * Reads the requested counts from the commit buffer at {@code gpa}, lays the objects out in HMC space (in type
     * order, each base aligned to its object size, at least 512 bytes), and writes counts and bases back. Nothing
     * changes unless every count is within {@link HmcLimits} and the whole space fits in the SD budget.
     */
    public CommitResult commit(long gpa) {
        int r = memory.find(gpa, FpmCommitBuffer.SIZE);
        if (r < 0) {
            return CommitResult.DMA_FAULT;
        }
        var s = memory.store(r);
        long off = memory.offset(r, gpa);
        commitView.wrap(s, off);
        long[] newCount = new long[TYPES.length];
        long[] newBase = new long[TYPES.length];
        long cursor = 0;
        for (HmcObjectType t : TYPES) {
            int i = t.ordinal();
            long c = t == HmcObjectType.APBVT_ENTRY ? 1 : commitView.requestedCount(t);
            if (t.gen2Use() == HmcObjectType.Gen2Use.GEN3_ONLY) {
                c = 0;
            }
            if (c > HmcLimits.maxCount(t)) {
                trace("commit_reject", t, c, HmcLimits.maxCount(t));
                return CommitResult.COUNT_ABOVE_MAX;
            }
            long align = Math.max(FpmCommitBuffer.BASE_UNIT, Math.min(size[i], 4096));
            cursor = (cursor + align - 1) / align * align;
            newCount[i] = c;
            newBase[i] = cursor;
            // APBVT too: the driver backs its one 8 KiB object at the base we answer (hmc.c irdma_create_hmc_objs).
            cursor += c * size[i];
        }
        if (FpmCommitBuffer.sdCount(cursor) > HmcLimits.MAX_PE_SDS) {
            trace("commit_reject_sds", HmcObjectType.QP, FpmCommitBuffer.sdCount(cursor), HmcLimits.MAX_PE_SDS);
            return CommitResult.TOO_MANY_SDS;
        }
        for (HmcObjectType t : TYPES) {
            int i = t.ordinal();
            count[i] = newCount[i];
            base[i] = newBase[i];
            FpmCommitBuffer.writeCommitted(s, off, t, t == HmcObjectType.APBVT_ENTRY ? 0 : newCount[i], newBase[i]);
        }
        committed = true;
        return CommitResult.OK;
    }

    private void trace(String what, HmcObjectType t, long a, long b) {
        TraceEvent e = trace.start(TraceKind.HMC);
        if (e != null) {
            e.text("action", what).text("type", t.name()).num("value", a).num("limit", b).emit();
        }
    }

    // --- Update PE SDs (ctrl.c cqp_sds_wqe_fill; entries from hmc.c irdma_set_sd_entry / irdma_clr_sd_entry)

    /** Programs one SD from an update entry; answers the codec's check (ACCEPTED when programmed). */
    public SdCheck programSd(long command, long data) {
        SdCheck c = SegmentDescriptor.check(command, data);
        if (!c.accepted()) {
            return c;
        }
        int idx = SegmentDescriptor.sdIndex(command) - HmcLimits.FIRST_PE_SD_INDEX;
        if (idx < 0 || idx >= HmcLimits.MAX_PE_SDS) {
            return null;
        }
        boolean valid = SegmentDescriptor.valid(data);
        sdValid[idx] = valid;
        sdDirect[idx] = SegmentDescriptor.direct(data);
        sdAddress[idx] = valid ? SegmentDescriptor.address(data) : 0;
        if (valid && !sdDirect[idx]) {
            if (pdCache[idx] == null) {
                pdCache[idx] = new long[PageDescriptor.PDS_PER_SD];
            } else {
                java.util.Arrays.fill(pdCache[idx], 0);
            }
        }
        TraceEvent e = trace.start(TraceKind.HMC);
        if (e != null) {
            e.text("action", valid ? "sd_set" : "sd_clear").num("sd", idx).flag("direct", sdDirect[idx])
                    .hex("addr", sdAddress[idx]).emit();
        }
        return c;
    }

    /** PFHMC_PDINV: drop the cached PD {@code pdIndex} (relative, 9 bits) of SD {@code sdIndex}. */
    public void invalidatePd(int sdIndex, int pdIndex) {
        pdInvalidations++;
        int idx = sdIndex - HmcLimits.FIRST_PE_SD_INDEX;
        if (idx >= 0 && idx < HmcLimits.MAX_PE_SDS && pdCache[idx] != null && pdIndex >= 0
                && pdIndex < PageDescriptor.PDS_PER_SD) {
            pdCache[idx][pdIndex] = 0;
        }
        TraceEvent e = trace.start(TraceKind.HMC);
        if (e != null) {
            e.text("action", "pd_invalidate").num("sd", sdIndex).num("pd", pdIndex).emit();
        }
    }

    // --- resolution

    /**
     * Locates object {@code index} of type {@code t}: {@link HmcFault#NONE} with its host address in
     * {@link #located()}, or why it does not resolve (also {@link #lastFault()}, and counted in {@link #failures()}
     * and PFHMC_ERRORINFO). Allocates nothing: the data paths read PBLEs through it page by page.
     */
    public HmcFault locate(HmcObjectType t, long index) {
        int i = t.ordinal();
        if (!committed || count[i] == 0) {
            return fault(HmcFault.NOT_COMMITTED, t, index);
        }
        if (index < 0 || index >= count[i]) {
            return fault(HmcFault.INDEX_OUT_OF_RANGE, t, index);
        }
        long hmcOffset = base[i] + index * size[i];
        int sd = (int) (hmcOffset / SegmentDescriptor.DIRECT_BP_SIZE);
        if (sd >= HmcLimits.MAX_PE_SDS || !sdValid[sd]) {
            return fault(HmcFault.SD_INVALID, t, index);
        }
        long inSd = hmcOffset % SegmentDescriptor.DIRECT_BP_SIZE;
        long gpa;
        if (sdDirect[sd]) {
            gpa = sdAddress[sd] + inSd;
        } else {
            int pd = (int) (inSd / SegmentDescriptor.PAGED_BP_SIZE);
            long entry = pdCache[sd][pd];
            if (entry == 0) {
                if (!memory.readLong(sdAddress[sd] + (long) PageDescriptor.ENTRY_SIZE * pd, scratch, 0)) {
                    return fault(HmcFault.DMA_FAULT, t, index);
                }
                entry = scratch[0];
                if (!PageDescriptor.valid(entry)) {
                    return fault(HmcFault.PD_INVALID, t, index);
                }
                pdCache[sd][pd] = entry;
            }
            gpa = PageDescriptor.backingPage(entry) + inSd % SegmentDescriptor.PAGED_BP_SIZE;
        }
        if (!memory.contains(gpa, Math.min(size[i], 4096))) {
            return fault(HmcFault.DMA_FAULT, t, index);
        }
        lastFault = HmcFault.NONE;
        located = gpa;
        return HmcFault.NONE;
    }

    /** The host address of the object the last successful {@link #locate} found. */
    public long located() {
        return located;
    }

    /**
     * The host address of object {@code index} of type {@code t}, for tests and tools that know it resolves (the
     * model itself uses {@link #locate}, which answers why not). Throws IllegalStateException naming the
     * {@link HmcFault} when it does not resolve.
     */
    public long resolve(HmcObjectType t, long index) {
        HmcFault f = locate(t, index);
        if (f != HmcFault.NONE) {
            throw new IllegalStateException(t + " " + index + " does not resolve: " + f.describe());
        }
        return located;
    }

    private long failures;
    private int errorInfo;
    private int errorData;

    private HmcFault fault(HmcFault f, HmcObjectType t, long index) {
        failures++;
        // PFHMC_ERRORINFO / ERRORDATA: the driver only logs them (icrdma_if.c); the layout is the model's:
        // bit 31 valid, 23:16 the object type, 7:0 the fault; ERRORDATA the object index.
        errorInfo = 1 << 31 | (t.ordinal() & 0xff) << 16 | (f.ordinal() & 0xff);
        errorData = (int) index;
        lastFault = f;
        return f;
    }

    public int errorInfo() {
        return errorInfo;
    }

    public int errorData() {
        return errorData;
    }

    public void clearError() {
        errorInfo = 0;
        errorData = 0;
    }

    public long failures() {
        return failures;
    }

    public HmcFault lastFault() {
        return lastFault;
    }

    public boolean committed() {
        return committed;
    }

    public long count(HmcObjectType t) {
        return count[t.ordinal()];
    }

    public long base(HmcObjectType t) {
        return base[t.ordinal()];
    }

    public long objectSize(HmcObjectType t) {
        return size[t.ordinal()];
    }

    public boolean sdValid(int sdIndex) {
        int idx = sdIndex - HmcLimits.FIRST_PE_SD_INDEX;
        return idx >= 0 && idx < HmcLimits.MAX_PE_SDS && sdValid[idx];
    }

    /** Segment descriptors irdma has made valid (UPDATE_PE_SDS) and not cleared again. */
    public int validSds() {
        return (int) IntStream.range(0, sdValid.length).filter(i -> sdValid[i]).count();
    }

    public long pdInvalidations() {
        return pdInvalidations;
    }
}
