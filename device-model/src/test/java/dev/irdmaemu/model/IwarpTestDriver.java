package dev.irdmaemu.model;

import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagAccess;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.mr.MemoryRegionTable;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The driver side of the iWARP data-path tests: what irdma does for an offloaded QP, through MMIO and host memory
 * only, on top of {@link TestDriver}'s bring-up. The QP context as irdma_sc_qp_setctx writes it (gen2), SQ WQEs
 * posted as uk.c posts them (SQ head from 3 after the connection WQEs, polarity 1 first, NOP padding so no WQE
 * crosses an 8-quantum chunk, PFPE_WQEALLOC), RQ WQEs as irdma_uk_post_receive (no doorbell), completions polled
 * as irdma_uk_cq_poll_cmpl reads them (shadow-area head written back), AEs as irdma_sc_get_next_aeqe (PFPE_AEQALLOC
 * returns each entry). Memory is registered through the CQP into the function's own {@link MemoryRegionTable} as
 * verbs.c does it: Register MR with a level-1 page list in the HMC PBLE object or with the buffer's physical address
 * (irdma_hwreg_mr, irdma_reg_phys_mr), with STags as irdma_create_stag builds them.
 * Public so the tests in {@code model.iwarp} can use it. Left for the two classes not yet on the real driver
 * (iwarp.DoorbellPageTest, iwarp.PblMappedRingTest, through iwarp.IwarpPair); every other iWARP test runs on
 * {@link DriverNode} and the driver's verbs (iwarp.DriverPair).
 */
public final class IwarpTestDriver implements AutoCloseable {
    public static final int PD = 1;
    /** Driver IRD / ORD written into the context by default. */
    public static final int DEFAULT_IRD = 8;
    public static final int DEFAULT_ORD = 8;
    /** BAR0 offset of the user doorbell page (verbs.c irdma_mmap: BAR0 + ICRDMA_DB_ADDR_OFFSET). */
    public static final long USER_DB_PAGE = Gen2Register.DB_ADDR_OFFSET.offset();

    /**
     * The HMC objects the iWARP tests commit: {@link TestDriver#SMALL} with 32768 PBLEs, room for a 64 MiB region
     * on a two-level page list and the other buffers of a test (pble.c backs the object as regions need it; the
     * test driver backs it all at bring-up).
     */
    static final Map<HmcObjectType, Long> COUNTS = new EnumMap<>(TestDriver.SMALL);

    static {
        COUNTS.put(HmcObjectType.PBLE, 32768L);
    }

    final TestDriver d;
    public final long mac;
    public final int ip;
    private TestDriver.Puda ilq;
    private int aeHead;
    private boolean aePolarity = true;
    /** hw.c irdma_initialize_hw_rsrc reserves MR index 0. */
    private int nextStagIndex = 1;
    private PageListWriter pbles;
    private final StagFields stagf = new StagFields();

    public IwarpTestDriver(SimScheduler scheduler, long ramBytes, long mac, int ip) {
        this.d = new TestDriver(ramBytes, scheduler);
        this.mac = mac;
        this.ip = ip;
    }

    /** Attaches the port to {@code link}, then brings the function up as irdma's probe does. */
    public void attachAndBringUp(Link link, FaultProfile outbound) {
        d.dev.attach(link, mac, outbound);
        ilq = BringUpTest.bringUp(d, COUNTS);
    }

    /**
     * The TCP payload of the next segment the ILQ received (what the CM would read with
     * irdma_puda_get_tcpip_info), reposting its buffer; null when none.
     */
    public byte[] pollIlqPayload() {
        Cqe c = d.pollPuda(ilq);
        if (c == null) {
            return null;
        }
        int slot = c.wqeIndex() % ilq.rqSize;
        long buf = d.off(ilq.buffers[slot]);
        int tcpHeader = dev.irdmaemu.fw.queue.PudaLayout.tcpHeaderLength(d.store(), buf);
        int n = (int) dev.irdmaemu.fw.queue.PudaLayout.dataLength(c.payloadLength(), tcpHeader);
        byte[] data = new byte[n];
        d.store().read(buf + dev.irdmaemu.fw.queue.PudaLayout.TCP_OFFSET + tcpHeader, data, 0, n);
        d.repost(ilq, slot);
        return data;
    }

    public E810RdmaFunction dev() {
        return d.dev;
    }

    public BytesStore<?, ?> store() {
        return d.store();
    }

    public long off(long gpa) {
        return d.off(gpa);
    }

    public long alloc(long bytes) {
        return d.alloc(bytes);
    }

    public RecordingTraceSink traceSink() {
        return d.sink;
    }

    public void write(Gen2Register r, int v) {
        d.write(r, v);
    }

    // ------------------------------------------------------------------ memory registration (verbs.c)

    /** How a region's pages reach the device: the three forms of verbs.c irdma_hwreg_mr. */
    public enum PageList {
        /** No PBL: Register MR carries the buffer's address (irdma_reg_phys_mr; a one-page user region). */
        PHYSICAL,
        /** A level-1 PBL: one PBLE per 4 KiB page, from the first PM PBL index (pble.c get_lvl1_pble). */
        LEVEL_1,
        /** A two-level PBL: root PBLEs naming leaves of up to 512 page PBLEs (pble.c get_lvl2_pble). */
        LEVEL_2
    }

    /**
     * Registers {@code bytes} at {@code gpa} with {@code access} (IRDMA_ACCESS_FLAGS_* as {@link MemoryRegions}
     * names them) as irdma_reg_user_mr does: a one-page buffer by its address, a longer one through a level-1 PBL.
     * The test RAM is physically contiguous, which irdma_check_mr_contiguous would notice and register by the first
     * page; the tests keep the page list so the data path walks PBLEs. Answers the STag.
     */
    public int register(long gpa, long bytes, int access) {
        return register(gpa, bytes, access, pages(gpa, bytes) == 1 ? PageList.PHYSICAL : PageList.LEVEL_1);
    }

    /**
     * Register MR (non-shared) as verbs.c irdma_hwreg_mr fills it: VA-based with the buffer's address as VA (unless
     * {@code access} has ZERO_BASED), 4 KiB pages, the rights irdma_get_mr_access makes of {@code access},
     * REMACCENABLED for remote rights, the page list as {@code list} says. Fails the test when the device refuses
     * it.
     */
    public int register(long gpa, long bytes, int access, PageList list) {
        long firstPage = gpa & -PAGE;
        int n = pages(gpa, bytes);
        return switch (list) {
            case PHYSICAL -> registerMr(gpa, bytes, access, PbleLayout.CHUNK_NONE, 0, gpa);
            case LEVEL_1 -> registerMr(gpa, bytes, access, PbleLayout.CHUNK_LEVEL_1,
                    pbles().level1(PageListWriter.contiguous(firstPage, n)), 0);
            case LEVEL_2 -> registerMr(gpa, bytes, access, PbleLayout.CHUNK_LEVEL_2,
                    pbles().level2(PageListWriter.contiguous(firstPage, n)), 0);
        };
    }

    /** Register MR through the CQP with a new STag; fails the test when the device refuses it. */
    private int registerMr(long va, long bytes, int access, int chunk, long firstPble, long regAddress) {
        int stag = newStag();
        int rights = hardwareRights(access);
        StagFields f = stagf.clear();
        f.stagIndex = stag >>> 8;
        f.stagKey = stag & 0xff;
        f.pdId = PD;
        f.length = bytes;
        f.accessRights = rights;
        f.remoteAccess = StagAccess.remoteAccess(rights);
        f.vaBased = (access & MemoryRegions.ZERO_BASED) == 0;
        f.vaOrFbo = f.vaBased ? va : va & (PAGE - 1);
        f.mr = true;
        f.pblChunkSize = chunk;
        f.firstPmPblIndex = (int) firstPble;
        f.regAddress = regAddress;
        CqpDone c = cqp((o, v) -> CqpWqeWriter.registerMr(d.store(), o, f, v));
        if (c.error()) {
            throw new AssertionError("Register MR " + Integer.toHexString(stag) + " (chunk " + chunk + "): " + c);
        }
        return stag;
    }

    /** Allocates a buffer of {@code bytes} and registers it ({@link #register(long, long, int)}). */
    public Buffer buffer(long bytes, int access) {
        long gpa = d.alloc(bytes);
        return new Buffer(gpa, bytes, register(gpa, bytes, access));
    }

    /** A registered buffer: guest address (also its tagged offset: VA-based) and STag. */
    public record Buffer(long gpa, long length, int stag) {
    }

    private static final long PAGE = 4096;

    /** The PBLE object as committed at bring-up, written through the HMC backing pages (FPM base + 8 x index). */
    private PageListWriter pbles() {
        if (pbles == null) {
            long base = d.committedBase.get(HmcObjectType.PBLE);
            pbles = new PageListWriter(d.committedCount.get(HmcObjectType.PBLE), (index, value) ->
                    d.store().writeLong(d.off(d.hmcAddress(PbleLayout.fpmAddress(base, index))), value));
        }
        return pbles;
    }

    private static int pages(long gpa, long bytes) {
        return (int) Math.max(1, ((gpa & (PAGE - 1)) + bytes + PAGE - 1) / PAGE);
    }

    /**
     * verbs.c irdma_create_stag: the MR index in the STag's index field with a driver key in the bits above the index
     * bits ({@link MemoryRegionTable#indexBits()}), the consumer key below.
     */
    private int newStag() {
        int index = nextStagIndex++;
        int indexBits = d.dev.stags().indexBits();
        int driverKey = (index * 0x9e5 + 0x13) & ((1 << (24 - indexBits)) - 1);
        return driverKey << (8 + indexBits) | index << 8 | 0x5a;
    }

    /** irdma_get_mr_access: LOCALREAD always, remote write as IRDMA_ACCESS_FLAGS_REMOTEWRITE (with local write). */
    private static int hardwareRights(int access) {
        int r = access & StagAccess.RIGHTS_FIELD | StagAccess.LOCAL_READ;
        return (r & StagAccess.REMOTE_WRITE_ONLY) != 0 ? r | StagAccess.REMOTE_WRITE : r;
    }

    /** Fills a guest range with a seeded pseudo-random pattern. */
    public void fill(long gpa, long bytes, long seed) {
        long o = d.off(gpa);
        long x = seed;
        long i = 0;
        for (; i + 8 <= bytes; i += 8) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            d.store().writeLong(o + i, x ^ x >>> 29);
        }
        for (; i < bytes; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            d.store().writeByte(o + i, (byte) (x >>> 56));
        }
    }

    /** The {@code len} bytes of host memory at {@code gpa}. */
    public byte[] read(long gpa, int len) {
        byte[] b = new byte[len];
        d.store().read(d.off(gpa), b, 0, len);
        return b;
    }

    // ------------------------------------------------------------------ CQP ops

    /** A CCQ completion as irdma_sc_ccq_get_cqe_info reads it. */
    public record CqpDone(boolean error, int major, int minor, int wqeIndex) {
    }

    /**
     * Posts one CQP WQE, rings PFPE_CQPDB and runs the (shared) simulation until its completion is in the CCQ:
     * with offloaded connections running, the model never goes idle (TCP timers), so this does not wait for that.
     */
    public CqpDone cqp(TestDriver.WqeWriter writer) {
        long o = d.nextWqe();
        writer.write(o, d.polarity);
        d.ring();
        long limit = d.scheduler.now() + 1_000_000_000L;
        while (true) {
            TestDriver.Completion c = d.pollCcq();
            if (c != null) {
                return new CqpDone(c.error(), c.major(), c.minor(), c.wqeIndex());
            }
            if (!d.scheduler.runNext() || d.scheduler.now() > limit) {
                throw new AssertionError("no CQP completion");
            }
        }
    }

    /** Manage ARP entry (ctrl.c irdma_sc_add_arp_cache_entry). */
    public boolean addArp(int index, long macOfPeer) {
        return !cqp((o, v) -> CqpWqeWriter.addArpEntry(d.store(), o, index, 0, macOfPeer, true, v)).error();
    }

    /**
     * How this node maps the CQ and QP rings it creates from now on: 0 physically contiguous, 1 through a level-1
     * PBL, 2 CQs through a two-level PBL (LPBLSIZE 2) and QPs through a level-1 one (the QP op has no chunk size).
     * A mapped ring's pages are scattered: every other page of a block, in reverse order.
     */
    public int virtualRings;

    /** {@code n} non-contiguous, descending 4 KiB pages (a user buffer as ib_umem pins it, page by page). */
    public long[] scatteredPages(int n) {
        long block = d.alloc((2L * n) * PAGE);
        long[] p = new long[n];
        for (int i = 0; i < n; i++) {
            p[i] = block + (2L * (n - 1 - i)) * PAGE;
        }
        return p;
    }

    /** Guest address of byte {@code offset} of a ring at {@code base}, or on {@code pages} when mapped. */
    static long ringAt(long base, long[] pages, long offset) {
        return pages == null ? base + offset : pages[(int) (offset / PAGE)] + offset % PAGE;
    }

    /** Writes a page list as {@link #virtualRings} asks; answers its first PBLE index. */
    public long pageList(long[] pages, boolean twoLevels) {
        return twoLevels ? pbles().level2(pages) : pbles().level1(pages);
    }

    public Cq createCq(int id, int entries) {
        Cq cq = new Cq();
        cq.id = id;
        int ringPages = (int) (((long) entries * Cqe.SIZE + PAGE - 1) / PAGE);
        if (virtualRings > 0) {
            cq.pages = scatteredPages(ringPages);
        } else {
            cq.ring = d.alloc((long) entries * Cqe.SIZE);
        }
        cq.shadow = d.alloc(64);
        cq.size = entries;
        d.cqf.clear();
        d.cqf.cqId = id;
        d.cqf.cqSize = entries;
        d.cqf.cqAddress = cq.ring;
        if (cq.pages != null) {
            // verbs.c irdma_create_cq for a user CQ of several pages: VIRTMAP, chunk size, first PBLE index
            d.cqf.virtualMap = true;
            d.cqf.pblChunkSize = virtualRings == 2 ? 2 : 1;
            d.cqf.firstPmPblIndex = (int) pageList(cq.pages, virtualRings == 2);
            cq.firstPble = d.cqf.firstPmPblIndex;
        }
        d.cqf.shadowAreaAddress = cq.shadow;
        d.cqf.ceqId = 0;
        d.cqf.ceqIdValid = true;
        d.cqf.checkOverflow = true;
        d.cqf.shadowReadThreshold = 16;
        CqpDone c = cqp((o, v) -> CqpWqeWriter.createCq(d.store(), o, d.cqf, v));
        if (c.error()) {
            throw new AssertionError("Create CQ " + id + ": " + c);
        }
        return cq;
    }

    /** An established quad-hash entry steering the connection {@code (local, localPort, remote, remotePort)}. */
    public boolean qhash(int manage, int localPort, int remote, int remotePort, int qpn) {
        d.qhf.clear();
        d.qhf.ipv4 = true;
        d.qhf.destIp[0] = ip;
        d.qhf.destPort = localPort;
        d.qhf.entryType = CqpWqe.QHASH_TYPE_TCP_ESTABLISHED;
        d.qhf.srcIp[0] = remote;
        d.qhf.srcPort = remotePort;
        d.qhf.qpNumber = qpn;
        d.qhf.manage = manage;
        d.qhf.mac = mac;
        return !cqp((o, v) -> CqpWqeWriter.manageQhash(d.store(), o, d.qhf, v)).error();
    }

    /** As {@link #arm}, with the CQ id written to the user doorbell page, as libirdma rings it. */
    public void armThroughUserPage(Cq cq, boolean solicitedOnly) {
        armWord(cq, solicitedOnly);
        d.dev.write32(USER_DB_PAGE + dev.irdmaemu.fw.reg.Gen2Registers.DB_PAGE_CQ_ARM, cq.id);
    }

    private void armWord(Cq cq, boolean solicitedOnly) {
        long w = d.store().readLong(d.off(cq.shadow) + 32);
        int seq = (int) ((w & dev.irdmaemu.fw.reg.Gen2Registers.CQ_DBSA_ARM_SEQ_NUM) >>> 16) + 1;
        d.store().writeLong(d.off(cq.shadow) + 32,
                dev.irdmaemu.fw.reg.Gen2Registers.cqArmWord(seq & 3, 0, true, !solicitedOnly));
    }

    /** What the connection manager hands over: the TCP state both sides agree on, and QP options. */
    public static final class QpSpec {
        public int qpId;
        public Cq sendCq;
        public Cq recvCq;
        public int sqQuanta = 256;
        public int rqWqes = 64;
        /** RQ WQE size shift (uk.c rq_shift): 0 = 32 bytes (1 SGE), 1 = 64 (3), 2 = 128 (7), 3 = 256 (13). */
        public int rqShift = 2;
        public int localPort;
        public int remoteIp;
        public int remotePort;
        public long sndNxt;
        public long rcvNxt;
        public int mss = 1460;
        public int wscale = 7;
        public long window = 256 * 1024;
        public int arpIndex;
        public int ird = DEFAULT_IRD;
        public int ord = DEFAULT_ORD;
        public boolean crc = true;
        public boolean markers;
        public boolean remoteRead = true;
        public boolean writeAndResponse = true;
        public boolean fastReg = true;
        public boolean q2 = true;
        public int pd = PD;
        /** The Create QP shadow area address; 0: one is allocated. */
        public long shadowArea;

        /**
         * The spec of a connection's QP as the CM hands it over: one CQ for both queues, the ports and the peer's
         * address, the sequence numbers the handshake left, the ARP entry of the peer; the rest default.
         */
        public static QpSpec connection(int qpId, Cq cq, int localPort, int remoteIp, int remotePort, long sndNxt,
                                        long rcvNxt, int arpIndex) {
            QpSpec s = new QpSpec();
            s.qpId = qpId;
            s.sendCq = cq;
            s.recvCq = cq;
            s.localPort = localPort;
            s.remoteIp = remoteIp;
            s.remotePort = remotePort;
            s.sndNxt = sndNxt;
            s.rcvNxt = rcvNxt;
            s.arpIndex = arpIndex;
            return s;
        }
    }

    public final class Qp {
        public final QpSpec spec;
        public long context;
        public long sq;
        public long rq;
        public long q2;
        /** The SQ's and RQ's pages when PBL-mapped (then {@link #sq} / {@link #rq} are PBLE indexes), else null. */
        public long[] sqPages;
        public long[] rqPages;
        public long completionContext;
        public long shadowArea;
        public int sqHead = SqWqe.CONNECTION_WQES;
        public boolean sqPolarity = true;
        public int rqHead;
        public boolean rqPolarity;
        final SqWqe w = new SqWqe();
        final RqWqe r = new RqWqe();

        Qp(QpSpec spec) {
            this.spec = spec;
        }

        public int id() {
            return spec.qpId;
        }

        public IwarpTestDriver node() {
            return IwarpTestDriver.this;
        }

        public QpState state() {
            var qp = d.dev.qps().get(spec.qpId);
            return qp == null ? QpState.INVALID : qp.state();
        }

        public dev.irdmaemu.model.iwarp.IwarpQp engine() {
            return d.dev.iwarp().engine(spec.qpId);
        }
    }

    /** Creates an iWARP QP in IDLE with its rings, Q2 and context (TCP half written, applied at RTS). */
    public Qp createQp(QpSpec s) {
        Qp qp = new Qp(s);
        int rqWqeBytes = 32 << s.rqShift;
        if (virtualRings > 0) {
            // verbs.c irdma_handle_q_mem: one level-1 PBL, the SQ's pages then the RQ's; the context names the
            // SQ's first PBLE and the RQ's (irdma_setup_virt_qp)
            int sqPages = (int) (((long) s.sqQuanta * 32 + PAGE - 1) / PAGE);
            int rqPages = (int) (((long) s.rqWqes * rqWqeBytes + PAGE - 1) / PAGE);
            long[] all = scatteredPages(sqPages + rqPages);
            qp.sqPages = java.util.Arrays.copyOfRange(all, 0, sqPages);
            qp.rqPages = java.util.Arrays.copyOfRange(all, sqPages, sqPages + rqPages);
            qp.sq = pbles().level1(all);
            qp.rq = qp.sq + sqPages;
        } else {
            qp.sq = d.alloc((long) s.sqQuanta * 32);
            qp.rq = d.alloc((long) s.rqWqes * rqWqeBytes);
        }
        qp.q2 = s.q2 ? d.alloc(256) : 0;
        qp.completionContext = 0x0123_4567_0000_0000L | s.qpId;
        qp.context = d.alloc(QpContext.SIZE);
        writeContext(qp, true);
        d.qpf.clear();
        d.qpf.qpId = s.qpId;
        d.qpf.qpType = 1;
        d.qpf.hostContextAddress = qp.context;
        qp.shadowArea = s.shadowArea != 0 ? s.shadowArea : d.alloc(64);
        d.qpf.shadowAreaAddress = qp.shadowArea;
        d.qpf.cqNumValid = true;
        d.qpf.virtualMap = qp.sqPages != null;
        d.qpf.nextIwarpState = QpState.IDLE.code();
        CqpDone c = cqp((o, v) -> CqpWqeWriter.createQp(d.store(), o, d.qpf, v));
        if (c.error()) {
            throw new AssertionError("Create QP " + s.qpId + ": " + c);
        }
        return qp;
    }

    private static int log2(long v) {
        return 63 - Long.numberOfLeadingZeros(v);
    }

    /**
     * irdma_sc_qp_setctx for the QP (both halves; the TCP half as irdma_init_tcp_ctx fills it: RTTVAR
     * IRDMA_DEFAULT_RTT_VAR 6, SSTHRESH IRDMA_DEFAULT_SS_THRESH; rtomin 5 as irdma_iw_fill_and_set_qpctx_info).
     */
    public void writeContext(Qp qp, boolean tcpValid) {
        QpSpec s = qp.spec;
        int hwSq = log2(s.sqQuanta) - 2;
        int hwRq = log2((long) s.rqWqes << s.rqShift) - 2;
        var r = new QpResources(s.rqShift, false, false, false, false, QpResources.NO_PUSH_PAGE, qp.sq, qp.rq, hwRq,
                hwSq, qp.q2, 0, 0, 0, 2);
        var info = new QpHostContextInfo(qp.completionContext, s.sendCq.id, s.recvCq.id, 0, 0, false, tcpValid,
                true);
        var iw = new IwarpOffloadInfo(0, 0, 1, 1, 0, s.pd, s.ord, s.ird, false, false, !s.crc, false, s.markers,
                s.markers, s.writeAndResponse, true, s.fastReg, false, s.remoteRead, false, false, false, 0, 0, 0,
                mac, 5);
        var tcp = new TcpOffloadInfo(true, true, false, false, false, false, true, false, false, 0, 0, 64, 0,
                s.localPort, s.remotePort, 0, 0, 0, s.remoteIp, s.mss, 0, 0, s.arpIndex, 0, 5, s.wscale, s.wscale,
                0, 0, s.sndNxt, s.window, s.rcvNxt, s.window, s.sndNxt, s.sndNxt, 0, 6, 0x3fffffffL, 0, s.rcvNxt,
                s.sndNxt, s.window, 0, 0, 0, 0, ip);
        new QpContext().wrap(d.store(), d.off(qp.context), QpContext.SIZE).write(r, info, iw, tcp);
    }

    /** Modify QP as irdma_hw_modify_qp posts it (RTS: TCP context, ORD, ARP index and CQ numbers valid). */
    public CqpDone modifyQp(Qp qp, QpState next, Consumer<dev.irdmaemu.fw.cqp.QpOpFields> tweak) {
        d.qpf.clear();
        d.qpf.qpId = qp.spec.qpId;
        d.qpf.qpType = 1;
        d.qpf.hostContextAddress = qp.context;
        d.qpf.nextIwarpState = next.code();
        d.qpf.cqNumValid = true;
        d.qpf.arpIndexValid = true;
        if (next == QpState.RTS) {
            writeContext(qp, true);
            d.qpf.tcpContextValid = true;
            d.qpf.ordValid = true;
        }
        tweak.accept(d.qpf);
        return cqp((o, v) -> CqpWqeWriter.modifyQp(d.store(), o, d.qpf, v));
    }

    public boolean modify(Qp qp, QpState next) {
        return !modifyQp(qp, next, f -> { }).error();
    }

    /** irdma_sc_gen_ae. */
    public CqpDone generateAe(Qp qp, int aeCode, int source) {
        return cqp((o, v) -> CqpWqeWriter.generateAe(d.store(), o, qp.spec.qpId, aeCode, source, v));
    }

    /** Destroy CQ (irdma_sc_cq_destroy), whatever still uses it. */
    public boolean destroy(Cq cq) {
        d.cqf.clear();
        d.cqf.cqId = cq.id;
        return !cqp((o, v) -> CqpWqeWriter.destroyCq(d.store(), o, d.cqf, v)).error();
    }

    public boolean destroy(Qp qp) {
        return destroyQp(qp.spec.qpId);
    }

    /** Destroy QP {@code id} (irdma_sc_qp_destroy). */
    public boolean destroyQp(int id) {
        d.qpf.clear();
        d.qpf.qpId = id;
        d.qpf.qpType = 1;
        return !cqp((o, v) -> CqpWqeWriter.destroyQp(d.store(), o, d.qpf, v)).error();
    }

    // ------------------------------------------------------------------ connection WQEs (written before RTS)

    /** irdma_sc_send_lsmm + irdma_sc_gen_rts_ae at SQ indexes 0, 1, 2 (polarity 1). */
    public void writeLsmm(Qp qp, long gpa, int size, int stag) {
        sqWqe(qp, 0).writeLsmm(true, gpa, size, stag);
        sqWqe(qp, 1).writeRtsAeRequest(true, false);
        sqWqe(qp, 2).writeRtsAeRequest(true, true);
    }

    /** irdma_sc_send_rtt + irdma_sc_gen_rts_ae. */
    public void writeRtr(Qp qp, boolean read) {
        sqWqe(qp, 0).writeRtr(true, read);
        sqWqe(qp, 1).writeRtsAeRequest(true, false);
        sqWqe(qp, 2).writeRtsAeRequest(true, true);
    }

    private SqWqe sqWqe(Qp qp, int index) {
        return qp.w.wrap(d.store(), d.off(ringAt(qp.sq, qp.sqPages, index * 32L)), 32);
    }

    // ------------------------------------------------------------------ SQ / RQ posting (uk.c)

    /** Room for a WQE of {@code quanta} at the SQ head (irdma_qp_get_next_send_wqe): pads, answers its index. */
    public int reserve(Qp qp, int quanta) {
        int avail = 8 - qp.sqHead % 8;
        if (quanta > avail) {
            for (int i = 0; i < avail; i++) {
                // irdma_nop_1: a NOP with the current polarity, not signaled.
                sqWqe(qp, qp.sqHead).writeNop(qp.sqPolarity, false);
                qp.sqHead = (qp.sqHead + 1) % qp.spec.sqQuanta;
            }
        }
        int idx = qp.sqHead;
        if (idx == 0) {
            qp.sqPolarity = !qp.sqPolarity;
        }
        qp.sqHead = (qp.sqHead + quanta) % qp.spec.sqQuanta;
        return idx;
    }

    public SqWqe wqeAt(Qp qp, int index, int quanta) {
        return qp.w.wrap(d.store(), d.off(ringAt(qp.sq, qp.sqPages, index * 32L)), quanta * 32L);
    }

    /** uk.c irdma_uk_qp_post_wr: PFPE_WQEALLOC with the QP id. */
    public void ring(Qp qp) {
        d.write(Gen2Register.WQEALLOC, qp.spec.qpId);
    }

    /** libirdma's irdma_uk_qp_post_wr: the QP id written to the user doorbell page. */
    public void ringThroughUserPage(Qp qp) {
        d.dev.write32(USER_DB_PAGE + dev.irdmaemu.fw.reg.Gen2Registers.DB_PAGE_WQE_ALLOC, qp.spec.qpId);
    }

    public int postSend(Qp qp, SqOpcode op, SgeList sges, int flags, int invalidateStag) {
        int quanta = SqWqe.fragmentQuanta(sges.count());
        int idx = reserve(qp, quanta);
        wqeAt(qp, idx, quanta).writeSend(qp.sqPolarity, op, sges, flags, 0, invalidateStag);
        ring(qp);
        return idx;
    }

    public int postWrite(Qp qp, SgeList sges, int remoteStag, long remoteTo, int flags) {
        int quanta = SqWqe.fragmentQuanta(sges.count());
        int idx = reserve(qp, quanta);
        wqeAt(qp, idx, quanta).writeRdmaWrite(qp.sqPolarity, SqOpcode.RDMA_WRITE, sges, remoteStag, remoteTo, flags,
                0);
        ring(qp);
        return idx;
    }

    public int postNop(Qp qp, boolean signaled) {
        int idx = reserve(qp, 1);
        wqeAt(qp, idx, 1).writeNop(qp.sqPolarity, signaled);
        ring(qp);
        return idx;
    }

    /** irdma_uk_post_receive: the WQE at the RQ head; its quantum index (what the CQE's WQEIDX reports). */
    public int postRecv(Qp qp, SgeList sges) {
        int idx = qp.rqHead;
        if (idx == 0) {
            qp.rqPolarity = !qp.rqPolarity;
        }
        int mult = 1 << qp.spec.rqShift;
        qp.r.wrap(d.store(), d.off(ringAt(qp.rq, qp.rqPages, (long) idx * mult * 32)), 32L * mult)
                .write(qp.rqPolarity, sges);
        qp.rqHead = (qp.rqHead + 1) % qp.spec.rqWqes;
        return idx * mult;
    }

    // ------------------------------------------------------------------ completions and AEs

    public static final class Cq {
        public int id;
        long ring;
        /** The ring's pages when PBL-mapped ({@link #virtualRings}), else null. */
        long[] pages;
        /** The first PBLE index of a PBL-mapped ring. */
        public long firstPble = -1;
        long shadow;
        int size;
        int head;
        boolean polarity = true;
    }

    /** One CQE as irdma_uk_cq_poll_cmpl reads it. */
    public record Completion(int qpId, long context, int wqeIndex, int opType, boolean sq, boolean error, int major,
                             int minor, long bytes, boolean stagInvalidated, int invalidatedStag, boolean solicited) {
    }

    public Completion poll(Cq cq) {
        Cqe c = new Cqe().wrap(d.store(), d.off(ringAt(cq.ring, cq.pages, (long) cq.head * Cqe.SIZE)), Cqe.SIZE);
        if (c.valid() != cq.polarity) {
            return null;
        }
        Completion r = new Completion(c.qpId(), c.completionContext(), c.wqeIndex(), c.opType(), c.sq(), c.error(),
                c.majorError(), c.minorError(), c.payloadLength(), c.stagInvalidated(), c.invalidatedStag(),
                c.solicitedEvent());
        cq.head++;
        if (cq.head == cq.size) {
            cq.head = 0;
            cq.polarity = !cq.polarity;
        }
        d.store().writeLong(d.off(cq.shadow), cq.head);
        return r;
    }

    /** One AEQE as irdma_sc_get_next_aeqe reads it (gen2). */
    public record Ae(int code, int qpId, long context, int source, int iwarpState, int tcpState, int wqeIndex,
                     int q2Data, long time) {
    }

    /**
     * Replaces the AEQ by one of {@code elements} on scattered pages through a level-1 PBL (LPBLSIZE 1) or a
     * two-level one (2), as hw.c irdma_create_virt_aeq does when the coherent allocation fails. Answers the Create
     * AEQ completion; the driver's AEQ head starts over.
     */
    public CqpDone recreateAeqVirtual(int elements, int chunkCode) {
        d.eqf.clear();
        CqpDone gone = cqp((o, v) -> CqpWqeWriter.destroyAeq(d.store(), o, d.eqf, v));
        if (gone.error()) {
            throw new AssertionError("Destroy AEQ: " + gone);
        }
        return createAeqVirtual(elements, chunkCode);
    }

    /** Create AEQ with VMAP on fresh scattered pages (no AEQ may exist). */
    public CqpDone createAeqVirtual(int elements, int chunkCode) {
        long[] pages = scatteredPages((int) (((long) elements * Aeqe.SIZE + PAGE - 1) / PAGE));
        d.eqf.clear();
        d.eqf.elementCount = elements;
        d.eqf.virtualMap = true;
        d.eqf.pblChunkSize = chunkCode;
        d.eqf.firstPmPblIndex = (int) pageList(pages, chunkCode == 2);
        aeHead = 0;
        aePolarity = true;
        return cqp((o, v) -> CqpWqeWriter.createAeq(d.store(), o, d.eqf, v));
    }

    /**
     * Create CQ {@code id} of {@code entries} 32-byte CQEs as {@code tweak} leaves the fields (ring address, VIRTMAP,
     * chunk size, first PBLE index): the hostile-driver tests' raw op. Answers the completion.
     */
    public CqpDone tryCreateCq(int id, int entries, Consumer<dev.irdmaemu.fw.cqp.CqOpFields> tweak) {
        d.cqf.clear();
        d.cqf.cqId = id;
        d.cqf.cqSize = entries;
        d.cqf.shadowAreaAddress = d.alloc(64);
        d.cqf.ceqId = 0;
        d.cqf.ceqIdValid = true;
        tweak.accept(d.cqf);
        return cqp((o, v) -> CqpWqeWriter.createCq(d.store(), o, d.cqf, v));
    }

    /** Resize CQ {@code id} (ctrl.c irdma_sc_cq_resize) as {@code tweak} leaves the fields. */
    public CqpDone tryResizeCq(int id, int entries, Consumer<dev.irdmaemu.fw.cqp.CqOpFields> tweak) {
        d.cqf.clear();
        d.cqf.cqId = id;
        d.cqf.cqSize = entries;
        d.cqf.resize = true;
        tweak.accept(d.cqf);
        return cqp((o, v) -> CqpWqeWriter.modifyCq(d.store(), o, d.cqf, v));
    }

    /** Create QP with VQ whose context names {@code sqPble} and {@code rqPble} as the rings' first PBLE indexes. */
    public CqpDone tryCreateVirtualQp(QpSpec s, long sqPble, long rqPble) {
        Qp qp = new Qp(s);
        qp.sq = sqPble;
        qp.rq = rqPble;
        qp.q2 = d.alloc(256);
        qp.completionContext = 0x0123_4567_0000_0000L | s.qpId;
        qp.context = d.alloc(QpContext.SIZE);
        writeContext(qp, true);
        d.qpf.clear();
        d.qpf.qpId = s.qpId;
        d.qpf.qpType = 1;
        d.qpf.hostContextAddress = qp.context;
        d.qpf.shadowAreaAddress = d.alloc(64);
        d.qpf.cqNumValid = true;
        d.qpf.virtualMap = true;
        d.qpf.nextIwarpState = QpState.IDLE.code();
        return cqp((o, v) -> CqpWqeWriter.createQp(d.store(), o, d.qpf, v));
    }

    /** A page list in the PBLE object as {@link #pageList}, for the hostile tests. */
    public long committedPbles() {
        return d.committedCount.get(HmcObjectType.PBLE);
    }

    /** Overwrites PBLE {@code index} (a guest changing its page list after the device cached it). */
    public void writePble(long index, long value) {
        pbles().write(index, value);
    }

    public Ae pollAe() {
        // the AEQ's pages as the device resolved them (one buffer, or the PBL of a virtual AEQ)
        long at = d.dev.aeq().ringPages().address((long) aeHead * Aeqe.SIZE);
        Aeqe a = new Aeqe().wrap(d.store(), d.off(at), Aeqe.SIZE);
        if (a.valid() != aePolarity) {
            return null;
        }
        Ae r = new Ae(a.aeCode(), a.qpCqId(), a.completionContext(), a.source(), a.iwarpState(), a.tcpState(),
                a.wqeIndex(), a.q2DataWritten(), d.scheduler.now());
        aeHead++;
        if (aeHead == d.dev.aeq().size()) {
            aeHead = 0;
            aePolarity = !aePolarity;
        }
        d.write(Gen2Register.AEQALLOC, 1);
        return r;
    }

    public List<Ae> pollAes() {
        List<Ae> l = new ArrayList<>();
        for (Ae a = pollAe(); a != null; a = pollAe()) {
            l.add(a);
        }
        return l;
    }

    @Override
    public void close() {
        d.close();
    }

    /** The QHASH manage code for add. */
    public static final int QHASH_ADD = CqpWqe.QHASH_MANAGE_ADD;
    public static final int QHASH_MODIFY = CqpWqe.QHASH_MANAGE_MODIFY;
}
