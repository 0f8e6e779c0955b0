package dev.irdmaemu.model;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpCompletion;
import dev.irdmaemu.fw.cqp.CqpHostContext;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.EqOpFields;
import dev.irdmaemu.fw.cqp.QhashFields;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PageDescriptor;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A minimal driver for the tests: it touches the model only through {@link dev.irdmaemu.fw.bus.Mmio}, host memory
 * and the interrupt sink, and writes WQEs with the fw.cqp writers, in the order and with the values irdma uses
 * (hw.c irdma_create_cqp, ctrl.c irdma_sc_cqp_create, irdma_sc_cqp_get_next_send_wqe_idx, irdma_sc_ccq_get_cqe_info).
 * Not the real driver layer (the driver module, see DriverNode); just enough to drive every op.
 */
final class TestDriver implements AutoCloseable {
    static final long RAM_BASE = 0x4000_0000L;
    static final long RAM_SIZE = 64L << 20;
    /** An address no region maps. */
    static final long UNMAPPED = 0x7_0000_0000L;
    static final long CQP_COMPLETION_CONTEXT = 0x0000_5eed_c0de_0001L;

    final SimScheduler scheduler;
    final HostMemory memory = new HostMemory();
    final HostRam ram;
    final RecordingTraceSink sink = new RecordingTraceSink();
    final Trace trace;
    final List<Integer> interrupts = new ArrayList<>();
    final LatencyTable latency = new LatencyTable();
    final E810RdmaFunction dev;

    long cqpContext;
    long sqBase;
    int sqSize;
    int head;
    boolean polarity;
    int lastIndex;

    // CCQ (CQ 0) as the driver polls it.
    long ccqRing;
    long ccqShadow;
    int ccqSize;
    int ccqHead;
    boolean ccqPolarity = true;
    boolean ccqLive;

    final QpOpFields qpf = new QpOpFields();
    final CqOpFields cqf = new CqOpFields();
    final EqOpFields eqf = new EqOpFields();
    final QhashFields qhf = new QhashFields();
    final Map<HmcObjectType, Long> committedCount = new EnumMap<>(HmcObjectType.class);
    final Map<HmcObjectType, Long> committedBase = new EnumMap<>(HmcObjectType.class);

    TestDriver() {
        this(RAM_SIZE);
    }

    TestDriver(long ramSize) {
        this(ramSize, new SimScheduler(7));
    }

    /** A node on a shared scheduler (two nodes joined by a simulated link). */
    TestDriver(long ramSize, SimScheduler shared) {
        scheduler = shared;
        trace = new Trace(scheduler).enableAll(sink);
        dev = new E810RdmaFunction(scheduler, memory, interrupts::add, trace, latency);
        ram = new HostRam(memory, RAM_BASE, ramSize);
    }

    /**
     * Forgets the driver-side state of the last bring-up (CQP and CCQ ring positions, the HMC layout, the IEQ), as
     * irdma does when the function was reset under it: the next bring-up starts from scratch on the same device.
     */
    void afterFunctionReset() {
        head = 0;
        polarity = false;
        lastIndex = 0;
        ccqHead = 0;
        ccqPolarity = true;
        ccqLive = false;
        committedCount.clear();
        committedBase.clear();
        ieq = null;
        interrupts.clear();
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

    // --- CQP

    /** hw.c irdma_create_cqp + ctrl.c irdma_sc_cqp_init / irdma_sc_cqp_create. Answers PFPE_CCQPSTATUS. */
    int createCqp(int entries) {
        return createCqp(entries, f -> { });
    }

    int createCqp(int entries, java.util.function.Consumer<CqpHostContext.Fields> tweak) {
        sqSize = entries;
        sqBase = alloc((long) entries * CqpWqe.SIZE);
        cqpContext = alloc(CqpHostContext.SIZE);
        CqpHostContext.Fields f = new CqpHostContext.Fields();
        f.sqEntries = entries;
        f.sqBase = sqBase;
        f.hmcProfile = 1;
        f.protocolUsed = 1;
        f.hwMajorVersion = CqpHostContext.HW_MAJVER_GEN_2;
        f.completionContext = CQP_COMPLETION_CONTEXT;
        tweak.accept(f);
        CqpHostContext.write(store(), off(cqpContext), f);
        head = 0;
        polarity = false;
        write(Gen2Register.CQPTAIL, 0);
        write(Gen2Register.CQPDB, 0);
        write(Gen2Register.CCQPSTATUS, 0);
        write(Gen2Register.CCQPHIGH, (int) (cqpContext >>> 32));
        write(Gen2Register.CCQPLOW, (int) cqpContext);
        run();
        return reg(Gen2Register.CCQPSTATUS);
    }

    /** The next WQE slot (irdma_sc_cqp_get_next_send_wqe_idx: the polarity flips when the index is 0). */
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

    /** Posts one WQE written by {@code writer} (given the store offset and polarity), rings and runs. */
    void post(WqeWriter writer) {
        long o = nextWqe();
        writer.write(o, polarity);
        ring();
        run();
    }

    @FunctionalInterface
    interface WqeWriter {
        void write(long offset, boolean valid);
    }

    /** One completion as the driver sees it: from the CCQ when it exists, else from the registers. */
    record Completion(int wqeIndex, boolean error, int major, int minor, long opRet, long context) {
    }

    Completion completion() {
        if (!ccqLive) {
            return new Completion(lastIndex, cqpOpError(), Gen2Registers.cqpErrMajor(reg(Gen2Register.CQPERRCODES)),
                    Gen2Registers.cqpErrMinor(reg(Gen2Register.CQPERRCODES)), 0, 0);
        }
        Completion c = pollCcq();
        if (c == null) {
            throw new AssertionError("no CCQ completion");
        }
        return c;
    }

    Completion pollCcq() {
        long gpa = ccqRing + (long) ccqHead * CqpCompletion.SIZE;
        CqpCompletion c = new CqpCompletion().wrap(store(), off(gpa));
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

    /** Query + commit {@link #SMALL}, back it with paged SDs, create the CCQ of {@code ccqEntries}. */
    void bringUpHmcAndCcq(int ccqEntries) {
        if (queryAndCommit(SMALL).error() || backHmcPaged().error() || createCcq(ccqEntries).error()) {
            throw new AssertionError("HMC / CCQ bring-up failed");
        }
    }

    // --- ops

    Completion nop() {
        post((o, v) -> CqpWqeWriter.nop(store(), o, v));
        return completion();
    }

    Completion queryFpm(long buffer) {
        post((o, v) -> CqpWqeWriter.queryFpm(store(), o, 0, buffer, v));
        return completion();
    }

    Completion commitFpm(long buffer) {
        post((o, v) -> CqpWqeWriter.commitFpm(store(), o, 0, buffer, false, v));
        return completion();
    }

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

    /** Query FPM, then commit {@code counts}; records the committed counts and bases. Answers the commit. */
    Completion queryAndCommit(Map<HmcObjectType, Long> counts) {
        long q = alloc(FpmQueryBuffer.SIZE);
        Completion c = queryFpm(q);
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

    /** The HMC bytes the commit needs (irdma_sc_parse_fpm_commit_buf's computation). */
    long hmcBytes() {
        long max = 0;
        for (HmcObjectType t : HmcObjectType.values()) {
            long cnt = committedCount.getOrDefault(t, 0L);
            if (cnt == 0) {
                continue;
            }
            max = Math.max(max, committedBase.get(t) + cnt * dev.hmc().objectSize(t));
        }
        return max;
    }

    final List<Long> sdPdPages = new ArrayList<>();
    /** The backing page of each 4 KiB of HMC space, by HMC page number (hmc.c irdma_add_pd_table_entry). */
    final List<Long> hmcPages = new ArrayList<>();

    /** The guest-physical address behind HMC (FPM) address {@code fpm}, through the pages {@link #backHmcPaged} set. */
    long hmcAddress(long fpm) {
        return hmcPages.get((int) (fpm / 4096)) + fpm % 4096;
    }

    /** Backs every SD the commit needs with a paged SD (hmc.c irdma_add_sd_table_entry / _pd_table_entry). */
    Completion backHmcPaged() {
        long bytes = hmcBytes();
        int sds = (int) FpmCommitBuffer.sdCount(bytes);
        long[] cmds = new long[sds];
        long[] data = new long[sds];
        for (int sd = 0; sd < sds; sd++) {
            long pdPage = alloc(4096);
            long inThisSd = Math.min(SegmentDescriptor.DIRECT_BP_SIZE, bytes - sd * SegmentDescriptor.DIRECT_BP_SIZE);
            int pds = (int) ((inThisSd + 4095) / 4096);
            for (int pd = 0; pd < pds; pd++) {
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

    /** Create CQ {@code id} with {@code entries} 32-byte CQEs; answers the completion. Ring and shadow in fields. */
    long lastCqRing;
    long lastCqShadow;

    Completion createCq(int id, int entries, int ceq, boolean ceqValid) {
        lastCqRing = alloc((long) entries * Cqe.SIZE);
        lastCqShadow = alloc(64);
        cqf.clear();
        cqf.cqId = id;
        cqf.cqSize = entries;
        cqf.cqAddress = lastCqRing;
        cqf.shadowAreaAddress = lastCqShadow;
        cqf.ceqId = ceq;
        cqf.ceqIdValid = ceqValid;
        cqf.checkOverflow = true;
        cqf.shadowReadThreshold = 16;
        post((o, v) -> CqpWqeWriter.createCq(store(), o, cqf, v));
        return completion();
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

    /** hw.c irdma_create_ccq: CQ 0, CEQ 0 valid; its own completion is polled from it. */
    Completion createCcq(int entries) {
        lastCqRing = alloc((long) entries * Cqe.SIZE);
        lastCqShadow = alloc(64);
        ccqRing = lastCqRing;
        ccqShadow = lastCqShadow;
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

    /** ctrl.c irdma_sc_ccq_arm: arm word in shadow quadword 4, then PFPE_CQARM with the CQ id. */
    void armCq(int cqId, long shadow) {
        long w = store().readLong(off(shadow) + 32);
        int seq = (int) ((w & Gen2Registers.CQ_DBSA_ARM_SEQ_NUM) >>> 16) + 1;
        store().writeLong(off(shadow) + 32, Gen2Registers.cqArmWord(seq & 3, 0, false, true));
        write(Gen2Register.CQARM, cqId);
    }

    long lastEqRing;

    Completion createCeq(int id, int elements) {
        lastEqRing = alloc((long) elements * Ceqe.SIZE);
        eqf.clear();
        eqf.ceqId = id;
        eqf.elementCount = elements;
        eqf.address = lastEqRing;
        post((o, v) -> CqpWqeWriter.createCeq(store(), o, eqf, v));
        return completion();
    }

    Completion createAeq(int elements) {
        lastEqRing = alloc((long) elements * Aeqe.SIZE);
        eqf.clear();
        eqf.elementCount = elements;
        eqf.address = lastEqRing;
        post((o, v) -> CqpWqeWriter.createAeq(store(), o, eqf, v));
        return completion();
    }

    /** Writes a QP host context with {@code fill} and posts Create QP. */
    long lastQpContext;

    Completion createQp(int id, int type, int nextState, boolean tcpValid, LongConsumer fill) {
        lastQpContext = alloc(QpContext.SIZE);
        fill.accept(lastQpContext);
        qpf.clear();
        qpf.qpId = id;
        qpf.qpType = type;
        qpf.hostContextAddress = lastQpContext;
        qpf.shadowAreaAddress = alloc(64);
        qpf.tcpContextValid = tcpValid;
        qpf.cqNumValid = true;
        qpf.nextIwarpState = nextState;
        post((o, v) -> CqpWqeWriter.createQp(store(), o, qpf, v));
        return completion();
    }

    Completion modifyQp(int id, int type, int nextState, boolean tcpValid, long hostContext) {
        qpf.clear();
        qpf.qpId = id;
        qpf.qpType = type;
        qpf.hostContextAddress = hostContext;
        qpf.tcpContextValid = tcpValid;
        qpf.nextIwarpState = nextState;
        post((o, v) -> CqpWqeWriter.modifyQp(store(), o, qpf, v));
        return completion();
    }

    Completion destroyQp(int id, int type) {
        return destroyQp(id, type, false);
    }

    /** Destroy QP; {@code removeHash}: IRDMA_CQPSQ_QP_REMOVEHASHENTRY, which irdma always sets. */
    Completion destroyQp(int id, int type, boolean removeHash) {
        qpf.clear();
        qpf.qpId = id;
        qpf.qpType = type;
        qpf.removeHashEntry = removeHash;
        post((o, v) -> CqpWqeWriter.destroyQp(store(), o, qpf, v));
        return completion();
    }

    Completion destroyCq(int id) {
        cqf.clear();
        cqf.cqId = id;
        post((o, v) -> CqpWqeWriter.destroyCq(store(), o, cqf, v));
        return completion();
    }

    Completion apbvt(int port, boolean add) {
        post((o, v) -> CqpWqeWriter.manageApbvt(store(), o, port, add, v));
        return completion();
    }

    /** An IPv4 qhash entry: listen when {@code remote} is 0, else established. */
    Completion qhashV4(int manage, int local, int localPort, int remote, int remotePort, int vlan, int qpn) {
        qhf.clear();
        qhf.ipv4 = true;
        qhf.destIp[0] = local;
        qhf.destPort = localPort;
        qhf.entryType = remote == 0 ? CqpWqe.QHASH_TYPE_TCP_SYN : CqpWqe.QHASH_TYPE_TCP_ESTABLISHED;
        if (remote != 0) {
            qhf.srcIp[0] = remote;
            qhf.srcPort = remotePort;
        }
        qhf.vlanValid = vlan >= 0;
        qhf.vlanId = Math.max(vlan, 0);
        qhf.qpNumber = qpn;
        qhf.manage = manage;
        qhf.mac = 0x02_00_00_00_00_01L;
        post((o, v) -> CqpWqeWriter.manageQhash(store(), o, qhf, v));
        return completion();
    }

    /** An offloaded iWARP connection as irdma_init_tcp_ctx / irdma_sc_qp_setctx describe it (IPv4). */
    record Conn(int local, int localPort, int remote, int remotePort, long sndNxt, long rcvNxt, int vlan) {
    }

    /** Writes an iWARP QP context (irdma_sc_qp_setctx layout) at {@code ctx}; {@code conn} null: no TCP half. */
    void writeIwarpContext(long ctx, int txCq, int rxCq, Conn conn) {
        writeIwarpContext(ctx, txCq, rxCq, conn, 2);
    }

    /** The same with {@code ieqQp} as the exception LAN queue (IRDMAQPC_EXCEPTION_LAN_QUEUE). */
    void writeIwarpContext(long ctx, int txCq, int rxCq, Conn conn, int ieqQp) {
        long ring = alloc(4096);
        var r = new QpResources(0, false, false, false, false,
                QpResources.NO_PUSH_PAGE, ring, ring + 2048, 2, 2, 0, 0, 0, 0, ieqQp);
        var info = new QpHostContextInfo(0xC0DE_0000L + txCq, txCq, rxCq, 0, 0, false,
                conn != null, true);
        var iw = new IwarpOffloadInfo(0, 0, 1, 1, 0, 1, 32, 32, false, false, false, false,
                false, false, true, true, true, false, true, false, false, false, 0, 0, 0, 0x02_00_00_00_00_01L, 0);
        TcpOffloadInfo tcp = conn == null ? null : new TcpOffloadInfo(true,
                true, conn.vlan() >= 0, false, false, false, true, false, false, 0, 0, 64, 0, conn.localPort(),
                conn.remotePort(), 0, 0, 0, conn.remote(), 1460, 0, Math.max(conn.vlan(), 0), 0, 0, 5, 7, 7, 0, 0,
                conn.sndNxt(), 65535, conn.rcvNxt(), 65535, conn.sndNxt(), conn.sndNxt(), 0, 0, 0x7fff_ffffL, 14600,
                conn.rcvNxt(), conn.sndNxt(), 65535, 8, 0, 0, 0, conn.local());
        new QpContext().wrap(store(), off(ctx), QpContext.SIZE).write(r, info, iw, tcp);
    }

    /** An IPv6 qhash entry (addresses as IpAddress hi/lo; words most significant first, cm.c order). */
    Completion qhashV6(int manage, long lHi, long lLo, int localPort, long rHi, long rLo, int remotePort,
                       boolean established, int vlan, int qpn) {
        qhf.clear();
        qhf.ipv4 = false;
        words(qhf.destIp, lHi, lLo);
        qhf.destPort = localPort;
        qhf.entryType = established ? CqpWqe.QHASH_TYPE_TCP_ESTABLISHED : CqpWqe.QHASH_TYPE_TCP_SYN;
        if (established) {
            words(qhf.srcIp, rHi, rLo);
            qhf.srcPort = remotePort;
        }
        qhf.vlanValid = vlan >= 0;
        qhf.vlanId = Math.max(vlan, 0);
        qhf.qpNumber = qpn;
        qhf.manage = manage;
        post((o, v) -> CqpWqeWriter.manageQhash(store(), o, qhf, v));
        return completion();
    }

    private static void words(int[] w, long hi, long lo) {
        w[0] = (int) (hi >>> 32);
        w[1] = (int) hi;
        w[2] = (int) (lo >>> 32);
        w[3] = (int) lo;
    }

    /**
     * CREATE_ADDR_HANDLE (uda.c irdma_sc_access_ah) as cm.c irdma_cm_create_ah fills it: own MAC {@code mac}, TTL
     * {@code hopLimit}, the VLAN TCI {@code vlanTag} inserted when {@code insertVlan}, ARP index {@code arp}.
     */
    Completion createAh(int index, long mac, int tos, int vlanTag, boolean insertVlan, int arp, int flowLabel,
                        int hopLimit, boolean ipv4, boolean loopback, int[] dest, int[] src) {
        post((o, v) -> CqpWqeWriter.addressHandle(store(), o, CqpOpcode.CREATE_ADDR_HANDLE,
                index, mac, 0, tos, vlanTag, insertVlan, arp, flowLabel, hopLimit, ipv4, loopback, dest, src, v));
        return completion();
    }

    /**
     * An IPv4 AH for ILQ sends as cm.c sets one up: ARP entry {@code arp} = {@code dstMac} (MANAGE_ARP), then
     * CREATE_ADDR_HANDLE {@code index} from {@code ownMac} / {@code srcIp} to {@code dstIp}, TTL 64, no VLAN.
     */
    void ilqAh(int index, long ownMac, int srcIp, long dstMac, int dstIp, int arp) {
        post((o, v) -> CqpWqeWriter.addArpEntry(store(), o, arp, 0, dstMac, true, v));
        if (completion().error()) {
            throw new IllegalStateException("MANAGE_ARP refused");
        }
        if (createAh(index, ownMac, 0, 0, false, arp, 0, 64, true, false, new int[] {dstIp}, new int[] {srcIp})
                .error()) {
            throw new IllegalStateException("CREATE_ADDR_HANDLE refused");
        }
    }

    /**
     * Copies the TCP segment of the untagged IPv4 frame {@code len} bytes at {@code frame} 0 into fresh host memory
     * (what cm.c irdma_form_ah_cm_frame leaves in an ILQ buffer); answers its address.
     */
    long tcpSegmentOf(BytesStore<?, ?> frame, int len) {
        long buf = alloc(2048);
        int at = EthernetFrame.HEADER_LENGTH
                + Ipv4Header.MIN_HEADER_LENGTH;
        store().write(off(buf), frame, at, len - at);
        return buf;
    }

    /** Reposts RQ slot {@code i} of a PUDA QP (irdma_puda_post_recvbuf with initial false). */
    void repost(Puda p, int i) {
        new RqWqe().wrap(store(), off(p.rq + i * 32L), 32).writePuda(p.buffers[i], p.bufSize, false);
    }

    /**
     * Posts a gen2 PUDA send (irdma_puda_send) of {@code len} bytes already in {@code buf}, which begin at the TCP
     * header of {@code tcpHeaderBytes}, through address handle {@code ahId}, and rings WQEALLOC.
     */
    int pudaSend(Puda p, long buf, int len, int tcpHeaderBytes, int ahId) {
        int idx = p.sqHead;
        new SqWqe().wrap(store(), off(p.sq + idx * 32L), 32)
                .writePudaSend(p.sqPolarity, buf, len, tcpHeaderBytes, ahId);
        p.sqHead++;
        if (p.sqHead == p.sqSize) {
            p.sqHead = 0;
            p.sqPolarity = !p.sqPolarity;
        }
        write(Gen2Register.WQEALLOC, p.qpId);
        return idx;
    }

    // --- PUDA QP set-up (puda.c irdma_puda_qp_create / irdma_puda_qp_setctx)

    static final class Puda {
        int qpId;
        int cqId;
        long sq;
        long rq;
        int sqSize;
        int rqSize;
        long cqRing;
        long cqShadow;
        int cqSize;
        int cqHead;
        boolean cqPolarity = true;
        long[] buffers;
        int bufSize;
        boolean[] rqPolarity;
        int sqHead;
        boolean sqPolarity = true;
    }

    /** ILQ (QP 1 / CQ 1) or IEQ (QP 2 / CQ 2) with {@code rqSize} posted buffers of {@code bufSize} bytes. */
    /** The IEQ the bring-up created (QP 2), or null. */
    Puda ieq;

    Puda createPuda(int qpId, int sqSize, int rqSize, int bufSize, boolean postBuffers) {
        Puda p = new Puda();
        p.qpId = qpId;
        p.cqId = qpId;
        p.sqSize = sqSize;
        p.rqSize = rqSize;
        p.cqSize = 2 * (sqSize + rqSize);
        p.bufSize = bufSize;
        Completion c = createCq(p.cqId, p.cqSize, 0, true);
        if (c.error()) {
            throw new AssertionError("PUDA CQ: " + c);
        }
        p.cqRing = lastCqRing;
        p.cqShadow = lastCqShadow;
        long qpMem = alloc((long) (sqSize + rqSize) * 32);
        p.sq = qpMem;
        p.rq = qpMem + (long) sqSize * 32;
        p.buffers = new long[rqSize];
        p.rqPolarity = new boolean[rqSize];
        for (int i = 0; i < rqSize; i++) {
            p.buffers[i] = alloc(bufSize);
            if (postBuffers) {
                new RqWqe().wrap(store(), off(p.rq + i * 32L), 32).writePuda(p.buffers[i], bufSize, true);
            }
        }
        c = createQp(qpId, 2, 2, false, ctx -> {
            long o = off(ctx);
            store().writeLong(o + 8, p.sq);
            store().writeLong(o + 16, p.rq);
            int rqEnc = Integer.numberOfTrailingZeros(rqSize) - 2;
            int sqEnc = Integer.numberOfTrailingZeros(sqSize) - 2;
            store().writeLong(o + 24, (long) rqEnc << 8 | (long) sqEnc << 12);
            store().writeLong(o + 48, (long) bufSize << 16);
            store().writeLong(o + 136, (long) p.cqId | (long) p.cqId << 32);
            store().writeLong(o + 168, 0xD00D_0000L + qpId);
        });
        if (c.error()) {
            throw new AssertionError("PUDA QP: " + c);
        }
        return p;
    }

    /** Polls one CQE of a PUDA CQ as irdma_puda_poll_info does (the extension in the next slot). */
    Cqe pollPuda(Puda p) {
        Cqe cqe = new Cqe().wrap(store(), off(p.cqRing + (long) p.cqHead * 32), 32);
        if (cqe.valid() != p.cqPolarity) {
            return null;
        }
        int slots = cqe.extended() ? 2 : 1;
        for (int i = 0; i < slots; i++) {
            p.cqHead++;
            if (p.cqHead == p.cqSize) {
                p.cqHead = 0;
                p.cqPolarity = !p.cqPolarity;
            }
        }
        store().writeLong(off(p.cqShadow), p.cqHead);
        return cqe;
    }

    /**
     * The hand-written probe IwarpTestDriver (branch tdrviw) still runs, through BringUpTest.bringUp: CQP, HMC with
     * {@code counts}, CCQ, CEQ 0, AEQ, ILQ and IEQ, the CM's listen on 20000. Goes with this class at the merge.
     */
    static Puda probe(TestDriver d, Map<HmcObjectType, Long> counts) {
        if (!Gen2Registers.ccqpDone(d.createCqp(2048)) || d.queryAndCommit(counts).error()
                || d.backHmcPaged().error() || d.createCcq(64).error()) {
            throw new AssertionError("CQP / HMC / CCQ bring-up failed");
        }
        d.write(Gen2Register.GLINT_CEQCTL, 0, Gen2Registers.ceqCtl(true, 1));
        d.write(Gen2Register.GLINT_DYN_CTL, 1, Gen2Registers.dynCtlEnable(0));
        d.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(true, 0));
        d.write(Gen2Register.GLINT_DYN_CTL, 0, Gen2Registers.dynCtlEnable(0));
        if (d.createCeq(0, 64).error() || d.createAeq(64).error()) {
            throw new AssertionError("EQ bring-up failed");
        }
        Puda ilq = d.createPuda(1, 16, 16, 1024, true);
        d.ieq = d.createPuda(2, 16, 16, 1024, true);
        if (d.apbvt(20000, true).error()
                || d.qhashV4(CqpWqe.QHASH_MANAGE_ADD, BringUpTest.LOCAL, 20000, 0, 0, -1, 1).error()) {
            throw new AssertionError("listen failed");
        }
        return ilq;
    }

    @Override
    public void close() {
        ram.close();
    }
}
