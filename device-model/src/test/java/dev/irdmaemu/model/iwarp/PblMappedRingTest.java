package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.PbleResource;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.EqOpFields;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.model.DriverNode;
import dev.irdmaemu.model.LeakCheck;
import dev.irdmaemu.model.PageListWriter;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.cqp.CqpOperations;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import dev.irdmaemu.model.qp.QpState;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * CQ, QP and AEQ rings mapped through PBLs (VIRTMAP / VQ) end to end: the device resolves the scattered pages once
 * at create (verbs.c irdma_create_cq / irdma_setup_virt_qp, hw.c irdma_create_virt_aeq), every ring wraps across
 * its page boundaries with the data verified, the cached translation survives the guest rewriting its PBLEs, and
 * each bad page list is answered with a CQP error that leaves no object behind. The rings are the real driver's
 * where irdma makes them (user-space CQs and QPs through {@link dev.irdmaemu.driver.verbs.IrdmaVerbs#userModeRings},
 * the virtual AEQ through {@link IrdmaDriver#withVirtualAeq()}); what irdma never sends (a two-level CQ or AEQ, an
 * AEQ destroyed and re-created behind the driver, the hostile page lists) is posted raw on the driver's CQP with the
 * firmware-iface writers, its page lists in PBLEs taken from the driver's own pool (pble.c).
 */
class PblMappedRingTest {
    private static final long RAM = 32L << 20;
    /**
     * A queue's LPBLSIZE for a two-level PBL (ctrl.c irdma_sc_cq_create / irdma_sc_aeq_create write
     * pbl_chunk_size as is: 2), not the MR's chunk code for it ({@link PbleLayout#CHUNK_LEVEL_2}).
     */
    private static final int QUEUE_CHUNK_LEVEL_2 = 2;
    private DriverPair pair;

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    private DriverPair pair() {
        pair = new DriverPair(RAM);
        return pair;
    }

    private Completion next(DriverPair.Node n, CompletionQueue cq) {
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = n.poll(cq)) != null, 500_000_000L);
        return got[0];
    }

    // ------------------------------------------------------------------ raw helpers (what irdma never sends)

    /** Page lists in the node's PBLE object, as runs of the driver's own pool (pble.c irdma_prm_get_pbles). */
    private static PageListWriter pbles(DriverPair.Node n) {
        PbleResource pool = n.driver().hmc().pbles();
        return new PageListWriter(count -> {
            PbleResource.Allocation a = pool.allocate((int) count, false);
            if (a == null) {
                throw new AssertionError("no run of " + count + " PBLEs");
            }
            return a.first;
        }, (index, value) -> {
            if (!pool.write((int) index, value)) {
                throw new AssertionError("PBLE " + index + " is not backed");
            }
        });
    }

    private static long committedPbles(DriverPair.Node n) {
        return n.driver().hmc().committedCount(HmcObjectType.PBLE);
    }

    /** Create CQ {@code id} of {@code entries} on CEQ 0 as {@code tweak} leaves the fields (ring, VIRTMAP ...). */
    private static DriverNode.Completion tryCreateCq(DriverPair.Node n, int id, int entries, Consumer<CqOpFields> tweak) {
        CqOpFields f = new CqOpFields();
        f.cqId = id;
        f.cqSize = entries;
        f.shadowAreaAddress = n.alloc(64);
        f.ceqId = 0;
        f.ceqIdValid = true;
        tweak.accept(f);
        return n.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(n.store(), o, f, v));
    }

    /** Modify CQ with resize (ctrl.c irdma_sc_cq_resize) as {@code tweak} leaves the fields. */
    private static DriverNode.Completion tryResizeCq(DriverPair.Node n, int id, int entries,
                                                     Consumer<CqOpFields> tweak) {
        CqOpFields f = new CqOpFields();
        f.cqId = id;
        f.cqSize = entries;
        f.resize = true;
        tweak.accept(f);
        return n.op("MODIFY_CQ", (o, v) -> CqpWqeWriter.modifyCq(n.store(), o, f, v));
    }

    private static boolean destroyCq(DriverPair.Node n, int id) {
        CqOpFields f = new CqOpFields();
        f.cqId = id;
        return !n.op("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(n.store(), o, f, v)).error();
    }

    private static boolean destroyQp(DriverPair.Node n, int id) {
        QpOpFields f = new QpOpFields();
        f.qpId = id;
        f.qpType = 1;
        return !n.op("DESTROY_QP", (o, v) -> CqpWqeWriter.destroyQp(n.store(), o, f, v)).error();
    }

    /**
     * Re-creates the verbs' CQ {@code cq} (before any QP uses it) behind the driver, on the same pages and shadow
     * area but through a two-level PBL (LPBLSIZE 2), which verbs.c never builds for a CQ.
     */
    private static void remapTwoLevels(DriverPair.Node n, CompletionQueue cq) {
        int pages = cq.ringEntries() * 32 / RingPages.PAGE_SIZE;
        long[] list = new long[pages];
        for (int i = 0; i < pages; i++) {
            list[i] = cq.slotAddress(i * RingPages.PAGE_SIZE / 32);
        }
        long root = pbles(n).level2(list);
        assertTrue(destroyCq(n, cq.id()));
        DriverNode.Completion again = tryCreateCq(n, cq.id(), cq.ringEntries(), f -> {
            f.shadowAreaAddress = cq.shadowAreaAddress();
            f.ceqeMask = true;
            f.checkOverflow = true;
            f.shadowReadThreshold = 16;
            f.virtualMap = true;
            f.pblChunkSize = QUEUE_CHUNK_LEVEL_2;
            f.firstPmPblIndex = (int) root;
        });
        assertFalse(again.error(), again.toString());
    }

    /** Destroy AEQ behind the driver (irdma destroys its AEQ only at remove). */
    private static void destroyAeq(DriverPair.Node n) {
        EqOpFields f = new EqOpFields();
        DriverNode.Completion gone = n.op("DESTROY_AEQ", (o, v) -> CqpWqeWriter.destroyAeq(n.store(), o, f, v));
        assertFalse(gone.error(), "Destroy AEQ: " + gone);
    }

    /**
     * Create AEQ with VMAP of {@code elements} on fresh scattered pages, through a level-1 PBL ({@code chunkCode} 1)
     * or a two-level one (2), the LPBLSIZE field written as {@code chunkCode} says; no AEQ may exist. The driver
     * keeps reading its own (old) ring: the test polls this one ({@link TestAeq}).
     */
    private static DriverNode.Completion createAeqVirtual(DriverPair.Node n, int elements, int chunkCode) {
        long[] pages = n.scatteredPages((elements * Aeqe.SIZE + RingPages.PAGE_SIZE - 1) / RingPages.PAGE_SIZE);
        EqOpFields f = new EqOpFields();
        f.elementCount = elements;
        f.virtualMap = true;
        f.pblChunkSize = chunkCode;
        f.firstPmPblIndex = (int) (chunkCode == 2 ? pbles(n).level2(pages) : pbles(n).level1(pages));
        return n.op("CREATE_AEQ", (o, v) -> CqpWqeWriter.createAeq(n.store(), o, f, v));
    }

    /**
     * An AEQ the test made behind the driver, read as ctrl.c irdma_sc_get_next_aeqe reads one (gen2 AEQE, the valid
     * bit's polarity flipping at each wrap) at the pages the device resolved, each entry returned through
     * PFPE_AEQALLOC.
     */
    private static final class TestAeq {
        private final DriverPair.Node n;
        private int head;
        private boolean polarity = true;

        TestAeq(DriverPair.Node n) {
            this.n = n;
        }

        /** The next AEQE as (AE code, QP id), or null. */
        int[] poll() {
            long at = n.dev().aeq().ringPages().address((long) head * Aeqe.SIZE);
            Aeqe a = new Aeqe().wrap(n.store(), n.off(at), Aeqe.SIZE);
            if (a.valid() != polarity) {
                return null;
            }
            int[] r = {a.aeCode(), a.qpCqId()};
            if (++head == n.dev().aeq().size()) {
                head = 0;
                polarity = !polarity;
            }
            n.dev().write32(Gen2Register.AEQALLOC.offset(), 1);
            return r;
        }
    }

    /**
     * Create QP {@code qpId} with VQ whose context (irdma_sc_qp_setctx's layout through the fw.qp codec: a 256-quantum
     * SQ and 64 RQ WQEs of 128 bytes, both on CQ {@code cqId}) names {@code sqPble} and {@code rqPble} as the rings'
     * first PBLE indexes.
     */
    private static DriverNode.Completion tryCreateVirtualQp(DriverPair.Node n, int qpId, int cqId, long sqPble,
                                                            long rqPble) {
        long ctx = n.alloc(QpContext.SIZE);
        long q2 = n.alloc(256);
        int hwSq = 6; // log2(256 quanta) - 2
        int hwRq = 6; // log2(64 WQEs << 2) - 2
        var r = new QpResources(2, false, false, false, false, QpResources.NO_PUSH_PAGE, sqPble, rqPble, hwRq, hwSq,
                q2, 0, 0, n.driver().workScheduler().qsHandle(), IrdmaDriver.IEQ_QP);
        var info = new QpHostContextInfo(0x0123_4567_0000_0000L | qpId, cqId, cqId, 0, 0, false, true, true);
        var iw = new IwarpOffloadInfo.Builder().ddpVer(1).rdmapVer(1).pdId(n.pd.id()).ordSize(DriverPair.DEFAULT_ORD)
                .irdSize(DriverPair.DEFAULT_IRD).wrRdrespEn(true).bindEn(true).fastRegEn(true).rdEn(true).macAddr(n.mac)
                .rtomin(5).build();
        long window = 256 * 1024;
        var tcp = new TcpOffloadInfo.Builder().ipv4(n.ip, DriverPair.IP_B).ports(1000, 2000).ipHeader(64, 0, 0)
                .noNagle(true).windowScale(true, 7, 7).sndMss(1460).arpIdx(DriverPair.ARP_INDEX).tcpState(5)
                .sendSequence(1, 1, 1).sendWindow(window, 1, 1, window).receive(1, window).rtt(0, 6)
                .congestion(0, 0x3fffffffL).build();
        new QpContext().wrap(n.store(), n.off(ctx), QpContext.SIZE).write(r, info, iw, tcp);
        QpOpFields f = new QpOpFields();
        f.qpId = qpId;
        f.qpType = 1;
        f.hostContextAddress = ctx;
        f.shadowAreaAddress = n.alloc(64);
        f.cqNumValid = true;
        f.virtualMap = true;
        f.nextIwarpState = QpState.IDLE.code();
        return n.op("CREATE_QP", (o, v) -> CqpWqeWriter.createQp(n.store(), o, f, v));
    }

    private static void refused(DriverNode.Completion d, CqpFault expected) {
        assertTrue(d.error(), "accepted");
        assertEquals(expected.major(), d.major());
        assertEquals(expected.minor(), d.minor(), "minor " + Integer.toHexString(d.minor()));
    }

    // ------------------------------------------------------------------ PBL-mapped rings carrying traffic

    @Test
    void sendsOverPblMappedRingsWrapEveryRingAcrossItsPages() {
        DriverPair pair = pair();
        // verbs.c irdma_create_cq: (126 + 2) x 2 = 256 CQEs, 8 KiB: two pages, wrapped every 256 completions
        pair.cqEntries = 126;
        pair.a.verbs.userModeRings(true);
        pair.b.verbs.userModeRings(true);
        // SQ: 32 WRs of 4 quanta + 258 reserved = 512 quanta (4 pages); RQ: 32 WRs of 128 bytes + 1 = 64 WQEs (2)
        Consumer<DriverPair.Options> small = o -> {
            o.maxSendWr = 32;
            o.maxRecvWr = 32;
        };
        // B's CQ through a two-level PBL instead (LPBLSIZE 2), re-created behind the verbs
        DriverPair.Conn c = pair.connect(false, small,
                small.andThen(o -> o.cqCreated = cq -> remapTwoLevels(pair.b, cq)));
        var aCq = pair.a.dev().cqs().get(c.aCq.id());
        var bCq = pair.b.dev().cqs().get(c.bCq.id());
        assertTrue(c.aCq.virtuallyMapped());
        assertTrue(aCq.ringPages().paged());
        assertEquals(2, aCq.ringPages().pageCount());
        assertTrue(bCq.ringPages().paged());
        assertEquals(2, bCq.ringPages().pageCount());
        var aQp = pair.a.dev().qps().get(c.active.id());
        var bQp = pair.b.dev().qps().get(c.passive.id());
        assertTrue(c.active.virtuallyMapped());
        assertTrue(aQp.virtualMap());
        assertEquals(512, c.active.sqDepth());
        assertEquals(4, aQp.sqRing().pageCount()); // 512 quanta x 32 bytes
        assertEquals(2, bQp.rqRing().pageCount()); // 64 WQEs x 128 bytes
        // the device's view is the driver's scattered pages, in order
        assertEquals(c.active.sqWqeAddress(RingPages.PAGE_SIZE / 32), aQp.sqRing().page(1));
        int bSqPages = c.passive.sqDepth() * 32 / RingPages.PAGE_SIZE;
        assertEquals(pair.b.driver().hmc().pbles().read((int) c.passive.sqPbleIndex() + bSqPages),
                bQp.rqRing().page(0));
        // the guest rewrites A's CQ PBLEs after Create CQ: the device keeps what it resolved
        pair.a.driver().hmc().pbles().write(c.aCq.firstPbleIndex(), DriverNode.UNMAPPED);
        pair.a.driver().hmc().pbles().write(c.aCq.firstPbleIndex() + 1, DriverNode.UNMAPPED);

        Buffer src = pair.a.buffer(4096, Access.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(4096, Access.LOCAL_WRITE);
        int messages = 1100; // > 4 x 256 CQEs per side, > 2 x 512 SQ quanta, > 17 x 64 RQ WQEs
        for (int i = 0; i < messages; i++) {
            int len = 1 + (i * 37) % 3000;
            pair.a.fill(src.gpa(), len, 1000 + i);
            long rq = pair.b.postRecv(c.passive, dst.gpa(), 4096, dst.stag());
            pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .sge(src.gpa(), len, src.stag()));
            Completion rc = next(pair.b, c.bCq);
            assertFalse(rc.error(), "receive " + i);
            assertEquals(WcOpcode.RECV, rc.opcode());
            assertEquals(rq, rc.wrId());
            assertEquals(len, rc.bytes());
            assertArrayEquals(pair.a.read(src.gpa(), len), pair.b.read(dst.gpa(), len), "payload " + i);
            Completion sc = next(pair.a, c.aCq);
            assertFalse(sc.error(), "send " + i);
            assertTrue(sc.sq());
        }
        assertTrue(aCq.producedCount() >= messages);
        assertEquals(0, aCq.overflows());
        assertEquals(0, bCq.overflows());
    }

    @Test
    void theDriversVirtualAeqReceivesAesAcrossItsPagesAndWraps() {
        // hw.c irdma_create_virt_aeq: the driver's own AEQ on single pages through a level-1 PBL
        pair = new DriverPair(RAM, IrdmaDriver::withVirtualAeq);
        DriverPair.Conn c = pair.connect(false);
        var aeq = pair.a.dev().aeq();
        RingPages pages = aeq.ringPages();
        assertTrue(pages.paged());
        int size = aeq.size();
        assertEquals((size * Aeqe.SIZE + RingPages.PAGE_SIZE - 1) / RingPages.PAGE_SIZE, pages.pageCount());
        assertTrue(pages.pageCount() > 1);
        int first = pair.a.driver().aeq().firstPbleIndex().orElseThrow();
        assertEquals(pair.a.driver().hmc().pbles().read(first + 1), pages.page(1));
        pair.a.pollAes();
        // around the ring and on, each AE handled by the driver (an AE the verbs take no action on)
        int n = size + 100;
        int code = AeCode.LLP_DOUBT_REACHABILITY.code();
        for (int i = 0; i < n; i++) {
            assertFalse(pair.a.generateAe(c.active, code, AeSource.RSVD).error());
            int had = pair.a.allAes().size();
            pair.runUntil(() -> pair.a.allAes().size() > had, 10_000_000L);
            List<DriverPair.Ae> got = pair.a.pollAes();
            assertEquals(1, got.size(), "AE " + i);
            assertEquals(code, got.get(0).code());
            assertEquals(c.active.id(), got.get(0).qpId());
        }
        assertTrue(pair.a.pollAes().isEmpty());
        assertEquals(0, aeq.lost());
    }

    @Test
    void aTwoLevelAeqWorksToo() {
        DriverPair pair = pair();
        DriverPair.Conn c = pair.connect(false);
        destroyAeq(pair.a);
        assertFalse(createAeqVirtual(pair.a, 64, 2).error());
        TestAeq aeq = new TestAeq(pair.a);
        assertFalse(pair.a.generateAe(c.active, AeCode.LLP_TOO_MANY_RETRIES.code(), AeSource.RSVD).error());
        int[] ae = aeq.poll();
        assertNotNull(ae);
        assertEquals(AeCode.LLP_TOO_MANY_RETRIES.code(), ae[0]);
        assertEquals(c.active.id(), ae[1]);
    }

    @Test
    void aVirtualAeqReceivesAesAcrossItsPagesAndWraps() {
        DriverPair pair = pair();
        DriverPair.Conn c = pair.connect(false);
        // 300 AEQEs of 16 bytes: two pages, the second one partly used; LPBLSIZE 1 as irdma writes it
        destroyAeq(pair.a);
        DriverNode.Completion created = createAeqVirtual(pair.a, 300, 1);
        assertFalse(created.error(), created.toString());
        RingPages pages = pair.a.dev().aeq().ringPages();
        assertTrue(pages.paged());
        assertEquals(2, pages.pageCount());
        TestAeq aeq = new TestAeq(pair.a);
        int seen = 0;
        for (int i = 0; i < 700; i++) {
            assertFalse(pair.a.generateAe(c.active, AeCode.LLP_TOO_MANY_RETRIES.code(), AeSource.RSVD).error());
            int[] ae = aeq.poll();
            assertNotNull(ae, "AE " + i);
            assertEquals(AeCode.LLP_TOO_MANY_RETRIES.code(), ae[0]);
            assertEquals(c.active.id(), ae[1]);
            seen++;
        }
        assertNull(aeq.poll());
        assertEquals(700, seen);
        assertEquals(0, pair.a.dev().aeq().lost());
    }

    // ------------------------------------------------------------------ hostile page lists

    @Test
    void aVirtualAeqWithoutAPblLevelIsRefusedAndAGoodOneThenWorks() {
        DriverPair pair = pair();
        DriverPair.Conn c = pair.connect(false);
        destroyAeq(pair.a);
        refused(createAeqVirtual(pair.a, 300, 0), CqpFault.INVALID_FIELD);
        assertFalse(pair.a.dev().aeq().live());
        // no AEQ is left: create directly through a fresh list
        assertFalse(createAeqVirtual(pair.a, 300, 1).error());
        TestAeq aeq = new TestAeq(pair.a);
        assertFalse(pair.a.generateAe(c.active, AeCode.LLP_TOO_MANY_RETRIES.code(), AeSource.RSVD).error());
        assertEquals(AeCode.LLP_TOO_MANY_RETRIES.code(), aeq.poll()[0]);
    }

    @Test
    void anSqWqeCrossingAPageOfAMappedRingIsAnInvalidWqe() {
        DriverPair pair = pair();
        pair.a.verbs.userModeRings(true);
        DriverPair.Conn c = pair.connect(false);
        assertTrue(c.active.virtuallyMapped());
        DriverPair.Node a = pair.a;
        Buffer src = a.buffer(64, Access.LOCAL_WRITE);
        // NOPs (irdma_nop_1, first pass: valid bit 1) up to the last quantum of the SQ's first page, then a
        // 2-quantum WQE written across the boundary in ring order (uk.c never does this: it pads to the 8-quantum
        // chunk); the verbs do not know of these WQEs, written into their ring and rung as uk.c rings
        int last = RingPages.PAGE_SIZE / SqWqe.QUANTUM - 1;
        SqWqe w = new SqWqe();
        for (int i = c.active.sqHead(); i < last; i++) {
            w.wrap(a.store(), a.off(c.active.sqWqeAddress(i)), SqWqe.QUANTUM).writeNop(true, false);
        }
        a.driver().ringSqDoorbell(c.active.id());
        pair.run(10_000_000L);
        long scratch = a.alloc(2 * SqWqe.QUANTUM);
        w.wrap(a.store(), a.off(scratch), 2 * SqWqe.QUANTUM).writeSend(true, SqOpcode.RDMA_SEND,
                new SgeList().add(src.gpa(), 64, src.stag()).add(src.gpa(), 64, src.stag())
                        .add(src.gpa(), 64, src.stag()), SqWqe.SIGNALED, 0, 0);
        byte[] wqe = new byte[2 * SqWqe.QUANTUM];
        a.store().read(a.off(scratch), wqe, 0, wqe.length);
        a.store().write(a.off(c.active.sqWqeAddress(last + 1)), wqe, SqWqe.QUANTUM, SqWqe.QUANTUM);
        a.store().write(a.off(c.active.sqWqeAddress(last)), wqe, 0, SqWqe.QUANTUM);
        assertTrue(c.active.sqWqeAddress(last + 1) != c.active.sqWqeAddress(last) + SqWqe.QUANTUM,
                "the SQ's pages are not contiguous");
        a.driver().ringSqDoorbell(c.active.id());
        pair.runUntil(() -> a.allAes().stream().anyMatch(e -> e.qpId() == c.active.id()
                && e.code() == AeCode.WQE_INVALID_PARAMETER.code()), 100_000_000L);
    }

    @Test
    void badCqPageListsAreCqpErrorsAndCreateNothing() {
        DriverPair.Node a = pair().a;
        int cq = 40;
        long count = committedPbles(a);
        long[] good = a.scatteredPages(2);
        long first = pbles(a).level1(good);
        int before = a.dev().cqs().liveCount();
        LeakCheck.Held held = LeakCheck.snapshot(a.dev());
        // a first PBLE index at the committed count
        refused(tryCreateCq(a, cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) count;
        }), CqpFault.INDEX_OUT_OF_RANGE);
        // the ring's second page beyond the committed PBLEs (the PBL does not cover the ring)
        refused(tryCreateCq(a, cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) count - 1;
        }), CqpFault.INDEX_OUT_OF_RANGE);
        // VIRTMAP with chunk size 0: a level count the kernel never writes
        refused(tryCreateCq(a, cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 0;
            f.firstPmPblIndex = (int) first;
        }), CqpFault.INVALID_FIELD);
        // a PBLE naming a page outside guest memory
        long bad = pbles(a).level1(new long[] {good[0], DriverNode.UNMAPPED});
        refused(tryCreateCq(a, cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) bad;
        }), CqpFault.DMA_FAULT);
        // a two-level root naming a leaf beyond the committed PBLEs
        PageListWriter w = pbles(a);
        long root = w.level1(new long[] {good[0]});
        w.write(root, count + 5);
        refused(tryCreateCq(a, cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 2;
            f.firstPmPblIndex = (int) root;
        }), CqpFault.INDEX_OUT_OF_RANGE);
        assertEquals(before, a.dev().cqs().liveCount());
        // the same id with a good list: created, and destroyed cleanly
        DriverNode.Completion ok = tryCreateCq(a, cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) first;
        });
        assertFalse(ok.error(), ok.toString());
        assertEquals(good[1], a.dev().cqs().get(cq).ringPages().page(1));
        assertTrue(destroyCq(a, cq));
        assertEquals(before, a.dev().cqs().liveCount());
        LeakCheck.assertNoLeak(held, a.dev(), "refused and destroyed PBL-mapped CQs");
    }

    @Test
    void aCqResizedOntoANewPageListTakesItAndABadListLeavesTheOldRing() {
        DriverPair.Node a = pair().a;
        long[] small = a.scatteredPages(2);
        long smallList = pbles(a).level1(small);
        DriverNode.Completion ok = tryCreateCq(a, 42, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) smallList;
        });
        assertFalse(ok.error(), ok.toString());
        var cq = a.dev().cqs().get(42);
        // a resize whose list runs past the committed PBLEs: refused, the CQ keeps its ring
        refused(tryResizeCq(a, 42, 512, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) committedPbles(a) - 2;
        }), CqpFault.INDEX_OUT_OF_RANGE);
        assertEquals(256, cq.size());
        assertEquals(small[1], cq.ringPages().page(1));
        long[] big = a.scatteredPages(4);
        long bigList = pbles(a).level1(big);
        DriverNode.Completion resized = tryResizeCq(a, 42, 512, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) bigList;
        });
        assertFalse(resized.error(), resized.toString());
        assertEquals(512, cq.size());
        assertEquals(4, cq.ringPages().pageCount());
        assertEquals(big[3] + 100, cq.ringPages().address(3 * 4096 + 100));
        assertEquals(big[0], cq.slotAddress(0), "the producer starts over on the new ring");
    }

    @Test
    void pageListsBeyondTheModelsRingPageBudgetAreTableFullAndDestroyGivesThemBack() {
        DriverPair.Node a = pair().a;
        // a two-level PBL naming one page 32768 times (64 root entries, all the same leaf): the largest CQ
        // (2^21 - 1 CQEs of 32 bytes) from 576 PBLEs; 32 of them fill the model's budget exactly
        long page = a.scatteredPages(1)[0];
        long[] leafPages = new long[PbleLayout.PBLE_PER_PAGE];
        Arrays.fill(leafPages, page);
        long leaf = pbles(a).level1(leafPages);
        long[] roots = new long[64];
        Arrays.fill(roots, leaf);
        long root = pbles(a).level1(roots);
        int size = (1 << 21) - 1;
        IntFunction<DriverNode.Completion> create = id -> tryCreateCq(a, id, size, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 2;
            f.firstPmPblIndex = (int) root;
            f.avoidMemConflict = true;
        });
        LeakCheck.Held held = LeakCheck.snapshot(a.dev());
        for (int id = 50; id < 82; id++) {
            DriverNode.Completion d = create.apply(id);
            assertFalse(d.error(), "CQ " + id + ": " + d);
        }
        assertEquals(CqpOperations.MAX_MAPPED_RING_PAGES, a.dev().cqs().get(81).ringPages().pageCount() * 32L);
        refused(create.apply(82), CqpFault.TABLE_FULL);
        assertTrue(destroyCq(a, 50));
        assertFalse(create.apply(82).error(), "the destroyed CQ's pages are back in the budget");
        for (int id = 51; id < 83; id++) {
            assertTrue(destroyCq(a, id));
        }
        LeakCheck.assertNoLeak(held, a.dev(), "32 maximal PBL-mapped CQs");
    }

    @Test
    void badQpPageListsAreCqpErrorsAndCreateNothing() {
        DriverPair.Node a = pair().a;
        LeakCheck.Held held = LeakCheck.snapshot(a.dev());
        CompletionQueue cq = a.verbs.createCq(64);
        int qp = 9;
        long count = committedPbles(a);
        int before = a.dev().qps().liveCount();
        long[] pages = a.scatteredPages(4);
        long first = pbles(a).level1(pages);
        // SQ list at the end of the PBLE object: its second page's PBLE is beyond the committed count
        refused(tryCreateVirtualQp(a, qp, cq.id(), count - 1, first + 2), CqpFault.INDEX_OUT_OF_RANGE);
        // RQ index beyond the committed count (ctrl.c irdma_sc_qp_init refuses rq_pa >= the PBLE count)
        refused(tryCreateVirtualQp(a, qp, cq.id(), first, count), CqpFault.INDEX_OUT_OF_RANGE);
        // an RQ page outside guest memory
        long badRq = pbles(a).level1(new long[] {pages[2], DriverNode.UNMAPPED});
        refused(tryCreateVirtualQp(a, qp, cq.id(), first, badRq), CqpFault.DMA_FAULT);
        assertEquals(before, a.dev().qps().liveCount());
        assertNull(a.dev().qps().get(qp) != null && a.dev().qps().get(qp).live() ? "live" : null);
        // the good list: created with the pages in order
        DriverNode.Completion ok = tryCreateVirtualQp(a, qp, cq.id(), first, first + 2);
        assertFalse(ok.error(), ok.toString());
        var created = a.dev().qps().get(qp);
        assertEquals(pages[1], created.sqRing().page(1));
        assertEquals(pages[3], created.rqRing().page(1));
        assertEquals(before + 1, a.dev().qps().liveCount());
        assertTrue(destroyQp(a, qp));
        cq.destroy();
        LeakCheck.assertNoLeak(held, a.dev(), "refused and destroyed VQ QPs");
    }
}
