package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.IwarpTestDriver;
import dev.irdmaemu.model.LeakCheck;
import dev.irdmaemu.model.IwarpTestDriver.Buffer;
import dev.irdmaemu.model.IwarpTestDriver.Completion;
import dev.irdmaemu.model.IwarpTestDriver.CqpDone;
import dev.irdmaemu.model.IwarpTestDriver.QpSpec;
import dev.irdmaemu.model.cqp.CqpFault;
import dev.irdmaemu.model.cqp.CqpOperations;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.QueuePair;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * CQ, QP and AEQ rings mapped through PBLs (VIRTMAP / VQ) end to end: the device resolves the scattered pages once
 * at create (verbs.c irdma_create_cq / irdma_setup_virt_qp, hw.c irdma_create_virt_aeq), every ring wraps across
 * its page boundaries with the data verified, the cached translation survives the guest rewriting its PBLEs, and
 * each bad page list is answered with a CQP error that leaves no object behind.
 */
class PblMappedRingTest {
    private final IwarpPair pair = new IwarpPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private Completion next(IwarpTestDriver n, IwarpTestDriver.Cq cq) {
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = n.poll(cq)) != null, 500_000_000L);
        return got[0];
    }

    @Test
    void sendsOverPblMappedRingsWrapEveryRingAcrossItsPages() {
        pair.cqEntries = 256; // 8 KiB: two pages, wrapped every 256 CQEs
        pair.a.virtualRings = 1;
        pair.b.virtualRings = 2;
        IwarpPair.Conn c = pair.connect(5, 6, false);
        CompletionQueue aCq = pair.a.dev().cqs().get(c.aCq.id);
        CompletionQueue bCq = pair.b.dev().cqs().get(c.bCq.id);
        assertTrue(aCq.ringPages().paged());
        assertEquals(2, aCq.ringPages().pageCount());
        assertTrue(bCq.ringPages().paged());
        QueuePair aQp = pair.a.dev().qps().get(5);
        QueuePair bQp = pair.b.dev().qps().get(6);
        assertTrue(aQp.virtualMap());
        assertEquals(2, aQp.sqRing().pageCount()); // 256 quanta x 32 bytes
        assertEquals(2, bQp.rqRing().pageCount()); // 64 WQEs x 128 bytes
        // the device's view is the driver's scattered pages, in order
        assertEquals(c.active.sqPages[1], aQp.sqRing().page(1));
        assertEquals(c.passive.rqPages[0], bQp.rqRing().page(0));
        // the guest rewrites A's CQ PBLEs after Create CQ: the device keeps what it resolved
        pair.a.writePble(c.aCq.firstPble, 0x7_0000_0000L);
        pair.a.writePble(c.aCq.firstPble + 1, 0x7_0000_0000L);

        Buffer src = pair.a.buffer(4096, MemoryRegions.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(4096, MemoryRegions.LOCAL_WRITE);
        int messages = 600; // > 2 x 256 CQEs per side, > 2 x 256 SQ quanta, > 9 x 64 RQ WQEs
        for (int i = 0; i < messages; i++) {
            int len = 1 + (i * 37) % 3000;
            pair.a.fill(src.gpa(), len, 1000 + i);
            int rq = pair.b.postRecv(c.passive, new SgeList().add(dst.gpa(), 4096, dst.stag()));
            pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(src.gpa(), len, src.stag()),
                    SqWqe.SIGNALED, 0);
            Completion rc = next(pair.b, c.bCq);
            assertFalse(rc.error(), "receive " + i);
            assertEquals(Cqe.OP_RECEIVE, rc.opType());
            assertEquals(rq, rc.wqeIndex());
            assertEquals(len, rc.bytes());
            assertArrayEquals(pair.a.read(src.gpa(), len), pair.b.read(dst.gpa(), len), "payload " + i);
            Completion sc = next(pair.a, c.aCq);
            assertFalse(sc.error(), "send " + i);
            assertTrue(sc.sq());
        }
        assertTrue(aCq.producedCount() >= messages);
        assertEquals(0, aCq.overflows());
    }

    @Test
    void aVirtualAeqReceivesAesAcrossItsPagesAndWraps() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        pair.a.pollAes();
        // 300 AEQEs of 16 bytes: two pages, the second one partly used; LPBLSIZE 1 as irdma writes it
        CqpDone created = pair.a.recreateAeqVirtual(300, 1);
        assertFalse(created.error(), created.toString());
        RingPages pages = pair.a.dev().aeq().ringPages();
        assertTrue(pages.paged());
        assertEquals(2, pages.pageCount());
        int seen = 0;
        for (int i = 0; i < 700; i++) {
            assertFalse(pair.a.generateAe(c.active, AeCode.LLP_TOO_MANY_RETRIES.code(), AeSource.RSVD).error());
            IwarpTestDriver.Ae ae = pair.a.pollAe();
            assertNotNull(ae, "AE " + i);
            assertEquals(AeCode.LLP_TOO_MANY_RETRIES.code(), ae.code());
            assertEquals(5, ae.qpId());
            seen++;
        }
        assertNull(pair.a.pollAe());
        assertEquals(700, seen);
        assertEquals(0, pair.a.dev().aeq().lost());
    }

    @Test
    void aTwoLevelAeqWorksToo() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        pair.a.pollAes();
        assertFalse(pair.a.recreateAeqVirtual(64, 2).error());
        assertFalse(pair.a.generateAe(c.active, AeCode.LLP_TOO_MANY_RETRIES.code(), AeSource.RSVD).error());
        assertEquals(AeCode.LLP_TOO_MANY_RETRIES.code(), pair.a.pollAe().code());
    }

    // ------------------------------------------------------------------ hostile page lists

    @Test
    void aVirtualAeqWithoutAPblLevelIsRefusedAndAGoodOneThenWorks() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        pair.a.pollAes();
        refused(pair.a.recreateAeqVirtual(300, 0), CqpFault.INVALID_FIELD);
        assertFalse(pair.a.dev().aeq().live());
        // the AEQ is gone: the recreate's destroy step would fail, so create directly through a fresh list
        assertFalse(pair.a.createAeqVirtual(300, 1).error());
        assertFalse(pair.a.generateAe(c.active, AeCode.LLP_TOO_MANY_RETRIES.code(), AeSource.RSVD).error());
        assertEquals(AeCode.LLP_TOO_MANY_RETRIES.code(), pair.a.pollAe().code());
    }

    @Test
    void anSqWqeCrossingAPageOfAMappedRingIsAnInvalidWqe() {
        pair.a.virtualRings = 1;
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer src = pair.a.buffer(64, MemoryRegions.LOCAL_WRITE);
        // NOPs up to the last quantum of the SQ's first page, then a 2-quantum WQE written across the boundary
        // (uk.c never does this: it pads to the 8-quantum chunk)
        while (c.active.sqHead != 127) {
            pair.a.postNop(c.active, false);
        }
        pair.run(10_000_000L);
        int idx = c.active.sqHead;
        c.active.sqHead = idx + 2;
        pair.a.wqeAt(c.active, idx, 2).writeSend(c.active.sqPolarity, SqOpcode.RDMA_SEND,
                new SgeList().add(src.gpa(), 64, src.stag()).add(src.gpa(), 64, src.stag())
                        .add(src.gpa(), 64, src.stag()), SqWqe.SIGNALED, 0, 0);
        pair.a.ring(c.active);
        pair.runUntil(() -> c.aes(pair.a).stream().anyMatch(e -> e.qpId() == 5
                && e.code() == AeCode.WQE_INVALID_PARAMETER.code()), 100_000_000L);
    }

    private void refused(CqpDone d, CqpFault expected) {
        assertTrue(d.error(), "accepted");
        assertEquals(expected.major(), d.major());
        assertEquals(expected.minor(), d.minor(), "minor " + Integer.toHexString(d.minor()));
    }

    @Test
    void badCqPageListsAreCqpErrorsAndCreateNothing() {
        IwarpTestDriver a = pair.a;
        int cq = 40;
        long count = a.committedPbles();
        long[] good = a.scatteredPages(2);
        long first = a.pageList(good, false);
        int before = a.dev().cqs().liveCount();
        LeakCheck.Held held = LeakCheck.snapshot(a.dev());
        // a first PBLE index at the committed count
        refused(a.tryCreateCq(cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) count;
        }), CqpFault.INDEX_OUT_OF_RANGE);
        // the ring's second page beyond the committed PBLEs (the PBL does not cover the ring)
        refused(a.tryCreateCq(cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) count - 1;
        }), CqpFault.INDEX_OUT_OF_RANGE);
        // VIRTMAP with chunk size 0: a level count the kernel never writes
        refused(a.tryCreateCq(cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 0;
            f.firstPmPblIndex = (int) first;
        }), CqpFault.INVALID_FIELD);
        // a PBLE naming a page outside guest memory
        long[] unmapped = {good[0], 0x7_0000_0000L};
        long bad = a.pageList(unmapped, false);
        refused(a.tryCreateCq(cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) bad;
        }), CqpFault.DMA_FAULT);
        // a two-level root naming a leaf beyond the committed PBLEs
        long root = a.pageList(new long[] {good[0]}, false);
        a.writePble(root, count + 5);
        refused(a.tryCreateCq(cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 2;
            f.firstPmPblIndex = (int) root;
        }), CqpFault.INDEX_OUT_OF_RANGE);
        assertEquals(before, a.dev().cqs().liveCount());
        // the same id with a good list: created, and destroyed cleanly
        CqpDone ok = a.tryCreateCq(cq, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) first;
        });
        assertFalse(ok.error(), ok.toString());
        assertEquals(good[1], a.dev().cqs().get(cq).ringPages().page(1));
        IwarpTestDriver.Cq handle = new IwarpTestDriver.Cq();
        handle.id = cq;
        assertTrue(a.destroy(handle));
        assertEquals(before, a.dev().cqs().liveCount());
        LeakCheck.assertNoLeak(held, a.dev(), "refused and destroyed PBL-mapped CQs");
    }

    @Test
    void aCqResizedOntoANewPageListTakesItAndABadListLeavesTheOldRing() {
        IwarpTestDriver a = pair.a;
        long[] small = a.scatteredPages(2);
        CqpDone ok = a.tryCreateCq(42, 256, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) a.pageList(small, false);
        });
        assertFalse(ok.error(), ok.toString());
        CompletionQueue cq = a.dev().cqs().get(42);
        // a resize whose list runs past the committed PBLEs: refused, the CQ keeps its ring
        refused(a.tryResizeCq(42, 512, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) a.committedPbles() - 2;
        }), CqpFault.INDEX_OUT_OF_RANGE);
        assertEquals(256, cq.size());
        assertEquals(small[1], cq.ringPages().page(1));
        long[] big = a.scatteredPages(4);
        CqpDone resized = a.tryResizeCq(42, 512, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 1;
            f.firstPmPblIndex = (int) a.pageList(big, false);
        });
        assertFalse(resized.error(), resized.toString());
        assertEquals(512, cq.size());
        assertEquals(4, cq.ringPages().pageCount());
        assertEquals(big[3] + 100, cq.ringPages().address(3 * 4096 + 100));
        assertEquals(big[0], cq.slotAddress(0), "the producer starts over on the new ring");
    }

    @Test
    void pageListsBeyondTheModelsRingPageBudgetAreTableFullAndDestroyGivesThemBack() {
        IwarpTestDriver a = pair.a;
        // a two-level PBL naming one page 32768 times (64 root entries, all the same leaf): the largest CQ
        // (2^21 - 1 CQEs of 64 bytes) from three pages of PBLEs; 32 of them fill the model's budget exactly
        long page = a.scatteredPages(1)[0];
        long[] leafPages = new long[512];
        java.util.Arrays.fill(leafPages, page);
        long leaf = a.pageList(leafPages, false);
        long[] roots = new long[64];
        java.util.Arrays.fill(roots, leaf);
        long root = a.pageList(roots, false);
        int size = (1 << 21) - 1;
        java.util.function.IntFunction<CqpDone> create = id -> a.tryCreateCq(id, size, f -> {
            f.virtualMap = true;
            f.pblChunkSize = 2;
            f.firstPmPblIndex = (int) root;
            f.avoidMemConflict = true;
        });
        LeakCheck.Held held = LeakCheck.snapshot(a.dev());
        for (int id = 50; id < 82; id++) {
            CqpDone d = create.apply(id);
            assertFalse(d.error(), "CQ " + id + ": " + d);
        }
        assertEquals(CqpOperations.MAX_MAPPED_RING_PAGES, a.dev().cqs().get(81).ringPages().pageCount() * 32L);
        refused(create.apply(82), CqpFault.TABLE_FULL);
        IwarpTestDriver.Cq gone = new IwarpTestDriver.Cq();
        gone.id = 50;
        assertTrue(a.destroy(gone));
        assertFalse(create.apply(82).error(), "the destroyed CQ's pages are back in the budget");
        for (int id = 51; id < 83; id++) {
            IwarpTestDriver.Cq cq = new IwarpTestDriver.Cq();
            cq.id = id;
            assertTrue(a.destroy(cq));
        }
        LeakCheck.assertNoLeak(held, a.dev(), "32 maximal PBL-mapped CQs");
    }

    @Test
    void badQpPageListsAreCqpErrorsAndCreateNothing() {
        IwarpTestDriver a = pair.a;
        LeakCheck.Held held = LeakCheck.snapshot(a.dev());
        IwarpTestDriver.Cq cq = a.createCq(41, 64);
        QpSpec s = QpSpec.connection(9, cq, 1000, IwarpPair.IP_B, 2000, 1, 1, IwarpPair.ARP_INDEX);
        long count = a.committedPbles();
        int before = a.dev().qps().liveCount();
        long[] pages = a.scatteredPages(4);
        long first = a.pageList(pages, false);
        // SQ list at the end of the PBLE object: its second page's PBLE is beyond the committed count
        refused(a.tryCreateVirtualQp(s, count - 1, first + 2), CqpFault.INDEX_OUT_OF_RANGE);
        // RQ index beyond the committed count (ctrl.c irdma_sc_qp_init refuses rq_pa >= the PBLE count)
        refused(a.tryCreateVirtualQp(s, first, count), CqpFault.INDEX_OUT_OF_RANGE);
        // an RQ page outside guest memory
        long badRq = a.pageList(new long[] {pages[2], 0x7_0000_0000L}, false);
        refused(a.tryCreateVirtualQp(s, first, badRq), CqpFault.DMA_FAULT);
        assertEquals(before, a.dev().qps().liveCount());
        assertNull(a.dev().qps().get(9) != null && a.dev().qps().get(9).live() ? "live" : null);
        // the good list: created with the pages in order
        CqpDone ok = a.tryCreateVirtualQp(s, first, first + 2);
        assertFalse(ok.error(), ok.toString());
        QueuePair qp = a.dev().qps().get(9);
        assertEquals(pages[1], qp.sqRing().page(1));
        assertEquals(pages[3], qp.rqRing().page(1));
        assertEquals(before + 1, a.dev().qps().liveCount());
        assertTrue(a.destroyQp(9));
        assertTrue(a.destroy(cq));
        LeakCheck.assertNoLeak(held, a.dev(), "refused and destroyed VQ QPs");
    }
}
