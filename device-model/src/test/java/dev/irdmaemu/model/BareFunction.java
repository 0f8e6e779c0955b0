package dev.irdmaemu.model;

import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpCompletion;
import dev.irdmaemu.fw.cqp.CqpHostContext;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.EqOpFields;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The RDMA function with no driver bound, for the tests that bring it up by hand in ways irdma never would: a CQP
 * host context with hostile fields, register pokes, ops answered through PFPE_CQPTAIL before any CCQ exists, a
 * commit of the test's own object counts backed by paged SDs, a CCQ of the test's size that the test polls (or lets
 * overflow). Every context and WQE is written with the firmware-iface writers. Nothing past the CCQ lives here: a
 * test that needs EQs, PUDA QPs, address handles or qhash entries runs on the real driver ({@link DriverNode}).
 */
final class BareFunction implements AutoCloseable {
    static final long RAM_BASE = DriverNode.RAM_BASE;
    static final long RAM_SIZE = DriverNode.RAM_SIZE;
    static final long UNMAPPED = DriverNode.UNMAPPED;
    static final long CQP_COMPLETION_CONTEXT = 0x0000_5eed_c0de_0001L;

    final SimScheduler scheduler = new SimScheduler(7);
    final HostMemory memory = new HostMemory();
    final HostRam ram;
    final RecordingTraceSink sink = new RecordingTraceSink();
    final Trace trace = new Trace(scheduler).enableAll(sink);
    final E810RdmaFunction dev;

    // the CQP SQ as the test posts on it (ctrl.c irdma_sc_cqp_get_next_send_wqe_idx)
    long sqBase;
    int sqSize;
    int head;
    boolean polarity;
    int lastIndex;
    // the CCQ (CQ 0) as the test polls it (ctrl.c irdma_sc_ccq_get_cqe_info)
    long ccqRing;
    long ccqShadow;
    int ccqSize;
    int ccqHead;
    boolean ccqPolarity = true;
    boolean ccqLive;

    final CqOpFields cqf = new CqOpFields();
    final EqOpFields eqf = new EqOpFields();
    final Map<HmcObjectType, Long> committedCount = new EnumMap<>(HmcObjectType.class);
    final Map<HmcObjectType, Long> committedBase = new EnumMap<>(HmcObjectType.class);
    /** The PD page of each SD {@link #backHmcPaged} set, by SD index. */
    final List<Long> sdPdPages = new ArrayList<>();
    /** The backing page of each 4 KiB of HMC space, by HMC page number (hmc.c irdma_add_pd_table_entry). */
    private final List<Long> hmcPages = new ArrayList<>();

    /** Small object counts for a commit of the test's own (irdma_cfg_fpm_val would choose others). */
    static final Map<HmcObjectType, Long> SMALL = new EnumMap<>(HmcObjectType.class);

    static {
        SMALL.put(HmcObjectType.QP, 64L);
        SMALL.put(HmcObjectType.CQ, 128L);
        SMALL.put(HmcObjectType.HTE, 1024L);
        SMALL.put(HmcObjectType.ARP, 32L);
        SMALL.put(HmcObjectType.MR, 256L);
        SMALL.put(HmcObjectType.XF, 64L);
        SMALL.put(HmcObjectType.XFFL, 1L);
        SMALL.put(HmcObjectType.Q1, 128L);
        SMALL.put(HmcObjectType.Q1FL, 2L);
        SMALL.put(HmcObjectType.TIMER, 32L);
        SMALL.put(HmcObjectType.FSIMC, 16L);
        SMALL.put(HmcObjectType.FSIAV, 16L);
        SMALL.put(HmcObjectType.PBLE, 1024L);
        SMALL.put(HmcObjectType.RRF, 64L);
        SMALL.put(HmcObjectType.RRFFL, 1L);
        SMALL.put(HmcObjectType.HDR, 64L);
        SMALL.put(HmcObjectType.MD, 64L);
        SMALL.put(HmcObjectType.OOISC, 16L);
        SMALL.put(HmcObjectType.OOISCFFL, 1L);
    }

    BareFunction() {
        this(RAM_SIZE);
    }

    BareFunction(long ramSize) {
        // nothing answers the vectors: no test here gets as far as an EQ of its own
        dev = new E810RdmaFunction(scheduler, memory, InterruptSink.NONE, trace, new LatencyTable());
        ram = new HostRam(memory, RAM_BASE, ramSize);
    }

    BytesStore<?, ?> store() {
        return ram.store();
    }

    long off(long gpa) {
        return ram.offsetOf(gpa);
    }

    long alloc(long bytes) {
        return ram.allocate(bytes);
    }

    int reg(Gen2Register r) {
        return dev.read32(r.offset());
    }

    void write(Gen2Register r, int v) {
        dev.write32(r.offset(), v);
    }

    void write(Gen2Register r, int index, int v) {
        dev.write32(r.at(index), v);
    }

    /** Runs the model until it is idle (bounded: a livelock fails the test instead of hanging it). */
    void run() {
        if (!scheduler.runUntilIdle(scheduler.now() + 10_000_000_000L)) {
            throw new AssertionError("model did not go idle");
        }
    }

    // --- the CQP

    /** hw.c irdma_create_cqp / ctrl.c irdma_sc_cqp_create with the gen2 host context. Answers PFPE_CCQPSTATUS. */
    int createCqp(int entries) {
        return createCqp(entries, f -> { });
    }

    /** The same with the host context's fields changed by {@code tweak} before it is written. */
    int createCqp(int entries, Consumer<CqpHostContext.Fields> tweak) {
        sqSize = entries;
        sqBase = alloc((long) entries * CqpWqe.SIZE);
        long context = alloc(CqpHostContext.SIZE);
        CqpHostContext.Fields f = new CqpHostContext.Fields();
        f.sqEntries = entries;
        f.sqBase = sqBase;
        f.hmcProfile = 1;
        f.protocolUsed = 1;
        f.hwMajorVersion = CqpHostContext.HW_MAJVER_GEN_2;
        f.completionContext = CQP_COMPLETION_CONTEXT;
        tweak.accept(f);
        CqpHostContext.write(store(), off(context), f);
        head = 0;
        polarity = false;
        write(Gen2Register.CQPTAIL, 0);
        write(Gen2Register.CQPDB, 0);
        write(Gen2Register.CCQPSTATUS, 0);
        write(Gen2Register.CCQPHIGH, (int) (context >>> 32));
        write(Gen2Register.CCQPLOW, (int) context);
        run();
        return reg(Gen2Register.CCQPSTATUS);
    }

    /** The next WQE slot's store offset (the polarity flips when the index wraps to 0). */
    long nextWqe() {
        lastIndex = head;
        if (head == 0) {
            polarity = !polarity;
        }
        head = (head + 1) % sqSize;
        return off(sqBase + (long) lastIndex * CqpWqe.SIZE);
    }

    void ring() {
        write(Gen2Register.CQPDB, head);
    }

    int cqpTail() {
        return Gen2Registers.cqpTailIndex(reg(Gen2Register.CQPTAIL));
    }

    boolean cqpOpError() {
        return Gen2Registers.cqpTailError(reg(Gen2Register.CQPTAIL));
    }

    /** Posts one WQE written by {@code writer} (store offset, valid bit), rings and runs. */
    void post(WqeWriter writer) {
        writer.write(nextWqe(), polarity);
        ring();
        run();
    }

    @FunctionalInterface
    interface WqeWriter {
        void write(long offset, boolean valid);
    }

    /** One completion as the test sees it: from the CCQ once it exists, else from the registers. */
    record Completion(int wqeIndex, boolean error, int major, int minor, long opRet, long context) {
    }

    Completion completion() {
        if (!ccqLive) {
            int codes = reg(Gen2Register.CQPERRCODES);
            return new Completion(lastIndex, cqpOpError(), Gen2Registers.cqpErrMajor(codes),
                    Gen2Registers.cqpErrMinor(codes), 0, 0);
        }
        Completion c = pollCcq();
        if (c == null) {
            throw new AssertionError("no CCQ completion");
        }
        return c;
    }

    /** The CCQ CQE at the head, or null when the device has not written one. */
    Completion pollCcq() {
        CqpCompletion c = new CqpCompletion().wrap(store(), off(ccqRing + (long) ccqHead * CqpCompletion.SIZE));
        if (c.valid() != ccqPolarity) {
            return null;
        }
        Completion r = new Completion(c.wqeIndex(), c.error(), c.majorCode(), c.minorCode(), c.opReturnValue(),
                c.completionContext());
        ccqHead++;
        if (ccqHead == ccqSize) {
            ccqHead = 0;
            ccqPolarity = !ccqPolarity;
        }
        store().writeLong(off(ccqShadow), ccqHead);
        return r;
    }

    Completion nop() {
        post((o, v) -> CqpWqeWriter.nop(store(), o, v));
        return completion();
    }

    // --- the HMC

    /** Query + commit {@link #SMALL}, back it with paged SDs, create the CCQ of {@code ccqEntries}. */
    void bringUpHmcAndCcq(int ccqEntries) {
        if (queryAndCommit(SMALL).error() || backHmcPaged().error() || createCcq(ccqEntries).error()) {
            throw new AssertionError("HMC / CCQ bring-up failed");
        }
    }

    Completion queryFpm(long buffer) {
        post((o, v) -> CqpWqeWriter.queryFpm(store(), o, 0, buffer, v));
        return completion();
    }

    Completion commitFpm(long buffer) {
        post((o, v) -> CqpWqeWriter.commitFpm(store(), o, 0, buffer, false, v));
        return completion();
    }

    /** Query FPM, then commit {@code counts}; records the committed counts and bases. Answers the commit. */
    Completion queryAndCommit(Map<HmcObjectType, Long> counts) {
        Completion c = queryFpm(alloc(FpmQueryBuffer.SIZE));
        if (c.error()) {
            return c;
        }
        long b = alloc(FpmCommitBuffer.SIZE);
        for (HmcObjectType t : HmcObjectType.values()) {
            FpmCommitBuffer.writeRequest(store(), off(b), t, counts.getOrDefault(t, 0L));
        }
        c = commitFpm(b);
        FpmCommitBuffer cb = new FpmCommitBuffer().wrap(store(), off(b));
        for (HmcObjectType t : HmcObjectType.values()) {
            committedCount.put(t, cb.committedCount(t));
            committedBase.put(t, cb.base(t));
        }
        return c;
    }

    /** The guest-physical address behind HMC (FPM) address {@code fpm}, through the pages {@link #backHmcPaged} set. */
    long hmcAddress(long fpm) {
        return hmcPages.get((int) (fpm / 4096)) + fpm % 4096;
    }

    /** Backs every SD the commit needs with a paged SD (hmc.c irdma_add_sd_table_entry / _pd_table_entry). */
    Completion backHmcPaged() {
        long bytes = 0;
        for (HmcObjectType t : HmcObjectType.values()) {
            long cnt = committedCount.getOrDefault(t, 0L);
            if (cnt != 0) {
                bytes = Math.max(bytes, committedBase.get(t) + cnt * dev.hmc().objectSize(t));
            }
        }
        int sds = (int) FpmCommitBuffer.sdCount(bytes);
        long[] cmds = new long[sds];
        long[] data = new long[sds];
        for (int sd = 0; sd < sds; sd++) {
            long pdPage = alloc(4096);
            long inThisSd = Math.min(SegmentDescriptor.DIRECT_BP_SIZE, bytes - sd * SegmentDescriptor.DIRECT_BP_SIZE);
            for (int pd = 0; pd < (int) ((inThisSd + 4095) / 4096); pd++) {
                long page = alloc(4096);
                PageDescriptor.write(store(), off(pdPage), pd, PageDescriptor.encode(page));
                hmcPages.add(page);
            }
            sdPdPages.add(pdPage);
            cmds[sd] = SegmentDescriptor.command(sd);
            data[sd] = SegmentDescriptor.setData(pdPage, false);
        }
        return updateSds(cmds, data, sds);
    }

    Completion updateSds(long[] cmds, long[] data, int count) {
        long sdBuf = alloc(4096);
        post((o, v) -> CqpWqeWriter.updatePeSds(store(), o, 0, cmds, data, count, sdBuf, store(), off(sdBuf), v));
        return completion();
    }

    // --- the CCQ, and the AEQ its overflow reports to

    /** hw.c irdma_create_ccq: CQ 0 on CEQ 0; its own completion is the first one polled from it. */
    Completion createCcq(int entries) {
        ccqRing = alloc((long) entries * Cqe.SIZE);
        ccqShadow = alloc(64);
        ccqSize = entries;
        ccqHead = 0;
        ccqPolarity = true;
        cqf.clear();
        cqf.cqId = 0;
        cqf.cqSize = entries;
        cqf.cqAddress = ccqRing;
        cqf.shadowAreaAddress = ccqShadow;
        cqf.ceqId = 0;
        cqf.ceqIdValid = true;
        cqf.checkOverflow = true;
        cqf.shadowReadThreshold = 16;
        post((o, v) -> CqpWqeWriter.createCq(store(), o, cqf, v));
        ccqLive = true;
        Completion c = pollCcq();
        if (c == null) {
            ccqLive = false;
            return completion();
        }
        return c;
    }

    /** A Create CQ 0 the device must refuse (no SD backs it): answered through the registers. */
    void createCcqWithoutHmc() {
        cqf.clear();
        cqf.cqId = 0;
        cqf.cqSize = 8;
        cqf.cqAddress = alloc(256);
        cqf.shadowAreaAddress = alloc(64);
        post((o, v) -> CqpWqeWriter.createCq(store(), o, cqf, v));
        if (!cqpOpError()) {
            throw new AssertionError("Create CQ without HMC backing succeeded");
        }
    }

    Completion createAeq(int elements) {
        eqf.clear();
        eqf.elementCount = elements;
        eqf.address = alloc((long) elements * Aeqe.SIZE);
        post((o, v) -> CqpWqeWriter.createAeq(store(), o, eqf, v));
        return completion();
    }

    @Override
    public void close() {
        ram.close();
    }
}
