package dev.irdmaemu.driver;

import static dev.irdmaemu.driver.IrdmaDriver.HMC_FN_ID;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.reg.Gen2Register;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The function's HMC as hw.c irdma_hmc_setup makes it: Query FPM values, the sizing of ctrl.c irdma_cfg_fpm_val
 * ({@link FpmSizing}), Commit FPM values, the objects' backing (irdma_create_hmc_objs, {@link HmcBacking}) and Static
 * HMC pages allocated; then the PBLE object's first chunk and the PBLE resource over it (pble.c irdma_hmc_init_pble),
 * which grows a chunk at a time (add_pble_prm). Callers reach it as {@link IrdmaDriver#hmc()}: what Commit FPM
 * placed, the SDs backing it and the PBLE resource over the PBLE object.
 */
public final class HmcSetup {
    private static final Logger LOG = LoggerFactory.getLogger(IrdmaDriver.class);

    private final IrdmaHw hw;
    private final CqpChannel cqp;
    private final Map<HmcObjectType, Long> committedCount = new EnumMap<>(HmcObjectType.class);
    private final Map<HmcObjectType, Long> committedBase = new EnumMap<>(HmcObjectType.class);
    // hmc_info->sd_table and the PBLE object's backed chunk
    private HmcBacking hmc;
    private FpmSizing sizing;
    private long pbleBacked;
    private PbleResource pbles;

    HmcSetup(IrdmaHw hw, CqpChannel cqp) {
        this.hw = hw;
        this.cqp = cqp;
    }

    /**
     * hw.c irdma_hmc_setup: Query FPM values, size as ctrl.c irdma_cfg_fpm_val does, Commit FPM values, then
     * irdma_create_hmc_objs: direct SDs for every object but PBLE and Static HMC pages allocated.
     */
    void setup() {
        long q = hw.allocate(FpmQueryBuffer.SIZE);
        cqp.op("QUERY_FPM_VAL", (o, v) -> CqpWqeWriter.queryFpm(hw.store, o, HMC_FN_ID, q, v));
        FpmQueryBuffer query = new FpmQueryBuffer().wrap(hw.store, hw.off(q));
        sizing = FpmSizing.gen2(query);
        if (!sizing.ok()) {
            LOG.warn("HMC sizing refused the Query FPM answer: {} ({})", sizing.outcome(), sizing.check().describe());
            throw new CqpException(CqpException.Kind.BAD_FPM, "QUERY_FPM_VAL", 0, 0);
        }
        long b = hw.allocate(FpmCommitBuffer.SIZE);
        long[] sizes = new long[HmcObjectType.values().length];
        for (HmcObjectType t : HmcObjectType.values()) {
            FpmCommitBuffer.writeRequest(hw.store, hw.off(b), t, sizing.commitCount(t));
            sizes[t.ordinal()] = sizing.objectSize(t);
        }
        cqp.op("COMMIT_FPM_VAL", (o, v) -> CqpWqeWriter.commitFpm(hw.store, o, HMC_FN_ID, b, false, v));
        FpmCommitBuffer cb = new FpmCommitBuffer().wrap(hw.store, hw.off(b));
        for (HmcObjectType t : HmcObjectType.values()) {
            committedCount.put(t, cb.committedCount(t));
            committedBase.put(t, cb.base(t));
        }
        createObjects(cb, sizes);
        // hw.c irdma_create_hmc_objs: once every object type has its SDs, tell the device the pages are there
        cqp.op("SHMC_PAGES_ALLOCATED", (o, v) -> CqpWqeWriter.staticHmcPagesAllocated(hw.store, o, HMC_FN_ID, v));
        LOG.debug("HMC: {}, {} direct SDs, {} bytes", sizing, hmc.directSds(), hmc.bytesAllocated());
    }

    /** hw.c irdma_create_hmc_objs: the SD table over what Commit FPM placed, every object but PBLE backed. */
    private void createObjects(FpmCommitBuffer cb, long[] sizes) {
        int sdCount = HmcBacking.sdCountOf(cb, sizes);
        if (sdCount > sizing.maxSds()) {
            // not a kernel check (irdma backs whatever sd_cnt the commit answer implies): this driver backs no more
            // SDs than the query offered, so a device answer cannot make it allocate without bound
            LOG.warn("Commit FPM placed the objects over {} SDs, max_pe_sds is {}", sdCount, sizing.maxSds());
            throw new CqpException(CqpException.Kind.BAD_FPM, "COMMIT_FPM_VAL", 0, 0);
        }
        hmc = new HmcBacking(cqp, hw.ram, sdCount, v -> hw.write(Gen2Register.PFHMC_PDINV, v));
        for (HmcObjectType t : HmcObjectType.values()) {
            hmc.recordObject(t, cb.base(t), cb.committedCount(t), sizes[t.ordinal()]);
        }
        for (HmcObjectType t : HmcBacking.CREATE_ORDER) {
            if (t != HmcObjectType.PBLE) {
                hmc.createObject(t, cb.base(t), cb.committedCount(t), sizes[t.ordinal()]);
            }
        }
    }

    /** pble.c irdma_hmc_init_pble: back the PBLE object's first chunk. */
    void initPble() {
        pbleBacked = hmc.initPble(committedBase(HmcObjectType.PBLE), committedCount(HmcObjectType.PBLE));
    }

    /**
     * pble.c irdma_hmc_init_pble, which hw.c irdma_ctrl_init_hw runs after CEQ 0 and before the AEQ: the PBLE
     * resource over the committed PBLE object (its backing is already in place).
     */
    void initPbles() {
        pbles = new PbleResource(hw.store, fpm -> {
            long pa = hostAddress(fpm);
            return pa < 0 ? -1 : hw.off(pa);
        }, committedBase(HmcObjectType.PBLE), pbleBacked, this::addPbleChunk);
    }

    /**
     * pble.c add_pble_prm, asked for by the PBLE pool when a request finds no room: the next chunk backed. Answers
     * the pool's {@link PbleResource.ChunkSource} contract: the new end, or -1 when no chunk could be added.
     */
    private long addPbleChunk() {
        if (!(hmc.addPbleChunk() instanceof PbleChunk.Backed chunk)) {
            return -1;
        }
        if (chunk.end() > pbleBacked) {
            pbleBacked = chunk.end();
        }
        return chunk.end();
    }

    /** hw.c irdma_del_hmc_objects, when there are objects. */
    void deleteObjects(boolean reset) {
        if (hmc != null) {
            hmc.deleteObjects(reset);
        }
    }

    /** The FPM base address of an HMC object type as Commit FPM placed it. */
    public long committedBase(HmcObjectType t) {
        return committedBase.getOrDefault(t, 0L);
    }

    /** The count of an HMC object type Commit FPM committed. */
    public long committedCount(HmcObjectType t) {
        return committedCount.getOrDefault(t, 0L);
    }

    /**
     * The guest-physical address backing FPM address {@code fpmAddress} (the page the PD entry names, plus the
     * offset in it); empty outside the HMC space the driver backed.
     */
    public OptionalLong address(long fpmAddress) {
        long pa = hostAddress(fpmAddress);
        return pa < 0 ? OptionalLong.empty() : OptionalLong.of(pa);
    }

    /** The host address behind an FPM address, or -1 outside what is backed. */
    private long hostAddress(long fpmAddress) {
        return hmc == null ? -1 : hmc.hostAddress(fpmAddress);
    }

    /**
     * PBLE indexes (from the PBLE object's base) that the chunks pble.c backed cover (the first one at bring-up, more
     * as the PBLE pool grows on demand): the verbs allocate PBLEs below this.
     */
    public long pbleBackedCount() {
        return pbleBacked;
    }

    /** The function's PBLE resource (rf-&gt;pble_rsrc), once brought up: the verbs register memory through it. */
    public PbleResource pbles() {
        return pbles;
    }

    /** The HMC sizing this driver committed (the port of irdma_cfg_fpm_val), null before bring-up. */
    public FpmSizing fpmSizing() {
        return sizing;
    }

    /** SD {@code sd} of the HMC (hmc_info->sd_table) is a direct one (a 2 MiB page); false before bring-up. */
    public boolean sdDirect(int sd) {
        return hmc != null && hmc.sdDirect(sd);
    }

    /** SD {@code sd} is valid (the device was told of it); false before bring-up. */
    public boolean sdValid(int sd) {
        return hmc != null && hmc.sdValid(sd);
    }

    /** The host address a valid SD names (2 MiB page or PD page); empty if not valid. */
    public OptionalLong sdAddress(int sd) {
        return sdValid(sd) ? OptionalLong.of(hmc.sdAddress(sd)) : OptionalLong.empty();
    }

    /** Host memory the HMC backing took (direct SDs, PBLE chunk, PD pages, the CQP's SD buffer). */
    public long bytesAllocated() {
        return hmc == null ? 0 : hmc.bytesAllocated();
    }
}
