package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.PbleResource;
import dev.irdmaemu.fw.cqp.CqpErrorCode;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.StagAccess;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.qp.QpContext;
import org.junit.jupiter.api.Test;

/**
 * The verbs' control path against what verbs.c / ctrl.c / uk.c do, checked on the CQP WQEs and host-memory
 * structures the driver hands the device (a {@link ScriptedDevice} that completes every op).
 */
class VerbsControlPathTest {

    @Test
    void protectionDomainsStartAfterTheThreeIrdmaReservesAndAreReused() {
        try (Rig r = new Rig()) {
            ProtectionDomain a = r.verbs.allocatePd();
            ProtectionDomain b = r.verbs.allocatePd();
            assertEquals(3, a.id(), "hw.c irdma_initialize_hw_rsrc reserves PDs 0, 1 and 2");
            assertEquals(4, b.id());
            r.verbs.deallocatePd(a);
            // irdma_alloc_rsrc is next-fit: the freed id comes back only after a wrap
            assertEquals(5, r.verbs.allocatePd().id());
            assertTrue(r.device.ops.isEmpty(), "PDs are driver bookkeeping, no CQP op");
        }
    }

    @Test
    void createCqWritesTheRingSizeAndFlagsIrdmaUses() {
        try (Rig r = new Rig()) {
            CompletionQueue cq = r.verbs.createCq(100);
            assertEquals(3, cq.id(), "CQs 0..2 are the CCQ, ILQ and IEQ CQs");
            assertEquals(100, cq.capacity());
            ScriptedDevice.Op op = r.device.last(CqpOpcode.CREATE_CQ);
            CqpWqe w = op.wqe();
            // verbs.c irdma_create_cq, gen2 with 32-byte CQEs: (100 + 2) * 2 entries
            assertEquals(204, w.cqSize());
            assertEquals(3, w.cqId());
            assertEquals(cq.ringAddress(), w.cqAddress());
            assertEquals(cq.shadowAreaAddress(), w.cqShadowAreaAddress());
            assertTrue(w.cqCeqIdValid());
            assertEquals(0, w.cqCeqId());
            assertTrue(w.cqCheckOverflow(), "cq_create.check_overflow = true");
            assertTrue(w.cqCeqeMask(), "info.ceqe_mask = 1");
            assertEquals(102, w.cqShadowReadThreshold(), "min(size / 2, IRDMA_MAX_CQ_READ_THRESH)");
            assertFalse(w.cqVirtualMap());
            assertEquals(0, cq.ringAddress() % 256);
        }
    }

    @Test
    void aCqRingThatWouldBeExactlyOnePageGetsTwoMoreEntries() {
        try (Rig r = new Rig()) {
            // (62 + 2) * 2 = 128 entries * 32 bytes = 4096: irdma adds 2
            r.verbs.createCq(62);
            assertEquals(130, r.device.last(CqpOpcode.CREATE_CQ).wqe().cqSize());
        }
    }

    @Test
    void aCqAboveMaxCqeIsRefusedByTheDriverWithoutACqpOp() {
        try (Rig r = new Rig()) {
            long before = r.driver.cqp().opsPosted();
            VerbsException e = assertThrows(VerbsException.class, () -> r.verbs.createCq(IrdmaVerbs.MAX_CQE + 1));
            assertEquals(VerbsException.Kind.INVALID_ARGUMENT, e.kind());
            assertEquals(-22, e.kind().errno());
            assertThrows(VerbsException.class, () -> r.verbs.createCq(0));
            assertEquals(before, r.driver.cqp().opsPosted());
            assertEquals(0, r.verbs.cqsInUse());
        }
    }

    @Test
    void aRefusedCreateCqReturnsItsIdAndMemory() {
        try (Rig r = new Rig()) {
            int pages = r.ram.pagesInUse();
            r.device.fail(CqpOpcode.CREATE_CQ, 1, CqpErrorCode.MAJ_ERROR, 0x8002);
            VerbsException e = assertThrows(VerbsException.class, () -> r.verbs.createCq(16));
            // utils.c irdma_wait_event: 0xffff/0x8002 is -EBUSY, not -EIO
            assertEquals(VerbsException.Kind.BUSY, e.kind());
            assertEquals(CqpException.Kind.BUSY, e.cqpError().kind());
            assertEquals(0x8002, e.cqpError().minor());
            assertEquals(pages, r.ram.pagesInUse(), "ring and shadow area freed");
            assertEquals(0, r.verbs.cqsInUse(), "the id came back");
            // next-fit (irdma_alloc_rsrc): the following CQ takes the next id
            assertEquals(4, r.verbs.createCq(16).id());
        }
    }

    @Test
    void createQpSizesTheRingsAsUkCDoesAndWritesTheIwarpHalfOfTheContext() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            CompletionQueue scq = r.verbs.createCq(64);
            CompletionQueue rcq = r.verbs.createCq(64);
            QueuePair qp = r.verbs.createQp(new QpInit(pd, scq, rcq, 32, 16, 2, 3, 64, false));
            assertEquals(3, qp.id());
            assertEquals(IbQpState.RESET, qp.state());
            // SQ: shift for 2 + 1 (immediate) SGEs and 64 inline bytes = 2; (32 << 2) + 258 -> 512 quanta
            assertEquals(512, qp.sqDepth());
            assertEquals((512 - 258) >> 2, qp.maxSendWr());
            // RQ: 3 SGEs -> 64-byte WQEs; (16 << 1) + 1 -> 64 quanta, 32 WQEs
            assertEquals(32, qp.rqSize());
            assertEquals((64 - 1) >> 1, qp.maxRecvWr());
            ScriptedDevice.Op op = r.device.last(CqpOpcode.CREATE_QP);
            CqpWqe w = op.wqe();
            assertEquals(qp.id(), w.qpId());
            assertEquals(1, w.qpType(), "IRDMA_QP_TYPE_IWARP");
            assertEquals(1, w.qpNextIwarpState(), "created IDLE");
            assertTrue(w.qpMacValid());
            assertTrue(w.qpCqNumValid());
            assertFalse(w.qpTcpContextValid());
            assertEquals(qp.hostContextAddress(), w.qpHostContextAddress());
            assertEquals(qp.q2Address() + 256, qp.hostContextAddress(), "context after the 256-byte Q2");
            QpContext c = new QpContext().wrap(r.driver.store(), r.driver.offsetOf(qp.hostContextAddress()),
                    QpContext.SIZE);
            assertTrue(c.validate(false).accepted(), c.validate(false).describe());
            assertEquals(qp.sqWqeAddress(0), c.sqAddress());
            assertEquals(qp.sqWqeAddress(512), c.rqAddress(), "RQ right after the SQ");
            assertEquals(7, c.sqSize(), "log2(512 / 4)");
            assertEquals(4, c.rqSize(), "log2(64 / 4)");
            assertEquals(1, c.rqWqeSize(), "rq_wqe_size = rq_shift");
            assertEquals(qp.q2Address(), c.q2Address());
            assertEquals(scq.id(), c.txCqNum());
            assertEquals(rcq.id(), c.rxCqNum());
            assertEquals(IrdmaVerbs.qpHandle(qp.id()), c.qpComplCtx());
            assertEquals(Rig.MAC, c.macAddress());
            assertTrue(c.iwarpMode());
            assertTrue(c.privEnabled(), "kernel QP: privileged");
            assertTrue(c.fastRegEnabled());
            assertTrue(c.rdOk());
            assertTrue(c.wrRdRespOk());
            assertTrue(c.ecnEnabled());
            assertTrue(c.ibRdEnabled());
            assertEquals(5, c.rtoMin());
            assertEquals(IrdmaDriver.IEQ_QP, c.exceptionLanQueue());
            assertEquals(0, c.pdId(), "the PD goes in with the connection (irdma_cm_init_tsa_conn)");
        }
    }

    @Test
    void theSqStartsBehindTheThreeConnectionWqesWithPolarityOne() {
        try (Rig r = new Rig()) {
            QueuePair qp = qp(r);
            assertEquals(3, qp.queues.sqHead);
            assertEquals(3, qp.queues.sqTail);
            assertTrue(qp.queues.swqePolarity, "uk.c irdma_uk_qp_init: swqe_polarity = 1 with first_sq_wq");
            assertFalse(qp.queues.rwqePolarity);
        }
    }

    @Test
    void qpAttributesBeyondTheDeviceAreRefusedBeforeAnyOp() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            CompletionQueue cq = r.verbs.createCq(16);
            long before = r.driver.cqp().opsPosted();
            assertThrows(VerbsException.class, () -> r.verbs.createQp(new QpInit(pd, cq, cq, 8, 8, 14, 1, 0,
                    false)));
            assertThrows(VerbsException.class, () -> r.verbs.createQp(new QpInit(pd, cq, cq, 8, 8, 1, 1, 102,
                    false)));
            assertThrows(VerbsException.class, () -> r.verbs.createQp(new QpInit(pd, cq, cq, 40000, 8, 1, 1, 0,
                    false)));
            // 8192 WRs of 256-byte WQEs need 65536 quanta: beyond IRDMA_QP_SW_MAX_WQ_QUANTA
            assertThrows(VerbsException.class, () -> r.verbs.createQp(new QpInit(pd, cq, cq, 8192, 8, 7, 1, 0,
                    false)));
            assertEquals(before, r.driver.cqp().opsPosted());
        }
    }

    @Test
    void aCqWithQpsCannotBeDestroyedAndAQpsResourcesGoBackWithIt() {
        try (Rig r = new Rig()) {
            int pages = r.ram.pagesInUse();
            ProtectionDomain pd = r.verbs.allocatePd();
            CompletionQueue cq = r.verbs.createCq(16);
            QueuePair qp = r.verbs.createQp(QpInit.of(pd, cq, 8, 1));
            VerbsException busy = assertThrows(VerbsException.class, cq::destroy);
            assertEquals(VerbsException.Kind.BUSY, busy.kind());
            qp.modify(IbQpState.INIT);
            assertEquals(1, r.device.last(CqpOpcode.MODIFY_QP).wqe().qpNextIwarpState(), "INIT: IDLE");
            qp.destroy();
            CqpWqe d = r.device.last(CqpOpcode.DESTROY_QP).wqe();
            assertEquals(qp.id(), d.qpId());
            assertTrue(d.qpRemoveHashEntry(), "irdma_cqp_qp_destroy_cmd: remove_hash_idx");
            // before the destroy, irdma_destroy_qp moved the QP to ERROR
            ScriptedDevice.Op toErr = r.device.last(CqpOpcode.MODIFY_QP);
            assertEquals(6, toErr.wqe().qpNextIwarpState());
            assertTrue(qp.isDestroyed());
            assertNull(r.verbs.qp(qp.id()));
            cq.destroy();
            assertEquals(cq.id(), r.device.last(CqpOpcode.DESTROY_CQ).wqe().cqId());
            assertEquals(pages, r.ram.pagesInUse(), "rings, Q2 + context, CQ ring and shadow freed");
            assertEquals(0, r.verbs.qpsInUse());
            assertEquals(0, r.verbs.cqsInUse());
        }
    }

    @Test
    void aPhysicalRegionIsRegisteredByItsAddressWithoutPbl() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            long buf = r.verbs.allocateBuffer(8192);
            MemoryRegion mr = r.verbs.registerPhysical(pd, buf, 5000, Access.LOCAL_WRITE, buf);
            CqpWqe w = r.device.last(CqpOpcode.REG_MR).wqe();
            assertEquals(mr.lkey() >>> 8, w.stagIndex());
            assertEquals(mr.lkey() & 0xff, w.stagKey());
            assertEquals(pd.id(), w.stagPdId());
            assertEquals(5000, w.stagLength());
            assertEquals(0, w.pblChunkSize());
            assertEquals(buf, w.stagRegAddress());
            assertEquals(buf, w.stagVaOrFbo(), "VA-based: the VA in quadword 0");
            assertTrue(w.stagVaBased());
            assertEquals(StagAccess.LOCAL_READ | StagAccess.LOCAL_WRITE, w.stagAccessRights());
            assertFalse(w.stagRemoteAccess());
            assertEquals(0, w.stagPageSize(), "4 KiB");
            assertTrue(w.stagMr());
            assertEquals(0, mr.pbleLevel());
            assertEquals(mr, r.verbs.regionOf(mr.rkey()));
            assertNotEquals(0, mr.lkey() >>> 8, "MR index 0 is reserved");
        }
    }

    @Test
    void aContiguousBufferTakesPblesThenGivesThemBackAndRegistersByItsFirstPage() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            long buf = r.verbs.allocateBuffer(4 * 4096);
            MemoryRegion mr = r.verbs.registerBuffer(pd, buf + 100, 3 * 4096, Access.REMOTE_WRITE
                    | Access.REMOTE_READ | Access.LOCAL_WRITE);
            assertEquals(4, mr.pageCount());
            assertEquals(0, mr.pbleLevel(), "irdma_check_mr_contiguous: contiguous, no PBL");
            assertEquals(0, r.verbs.pblesInUse());
            CqpWqe w = r.device.last(CqpOpcode.REG_MR).wqe();
            assertEquals(buf, w.stagRegAddress(), "reg_addr_pa = the first page");
            assertEquals(buf + 100, w.stagVaOrFbo());
            assertTrue(w.stagRemoteAccess());
            assertEquals(StagAccess.LOCAL_READ | StagAccess.LOCAL_WRITE | StagAccess.REMOTE_READ_ONLY
                    | StagAccess.REMOTE_WRITE_ONLY, w.stagAccessRights());
        }
    }

    @Test
    void scatteredPagesAreDescribedByALevelOnePbl() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            long[] pages = Pages.scattered(r, 5);
            long iova = 0x7f00_0000_0000L;
            MemoryRegion mr = r.verbs.registerPages(pd, iova, pages, 5 * 4096, Access.LOCAL_WRITE);
            assertEquals(1, mr.pbleLevel());
            CqpWqe w = r.device.last(CqpOpcode.REG_MR).wqe();
            assertEquals(PbleLayout.CHUNK_LEVEL_1, w.pblChunkSize());
            assertEquals(mr.firstPbleIndex(), w.stagFirstPmPblIndex());
            assertEquals(0, w.stagRegAddress(), "no address with a PBL");
            assertEquals(iova, w.stagVaOrFbo());
            for (int i = 0; i < 5; i++) {
                assertEquals(pages[i], r.verbs.pble(mr.firstPbleIndex() + i), "PBLE " + i);
            }
            assertTrue(mr.firstPbleIndex() >= r.verbs.pbles().firstUsable(), "pble.c starts on a 4 KiB boundary");
            assertEquals(5, r.verbs.pblesInUse());
            r.verbs.deregister(mr);
            CqpWqe d = r.device.last(CqpOpcode.DEALLOC_STAG).wqe();
            assertEquals(mr.lkey() >>> 8, d.stagIndex());
            assertEquals(pd.id(), d.stagPdId());
            assertTrue(d.stagMr());
            assertEquals(0, r.verbs.pblesInUse());
            assertNull(r.verbs.regionOf(mr.lkey()));
        }
    }

    @Test
    void aBigRegionFallsBackToLevelTwoWhenNoRunIsFree() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            PbleResource p = r.verbs.pbles();
            int first = p.firstUsable();
            // fragment the pool: free runs of 600 between single taken PBLEs, none as long as 1100
            for (int at = first + 600; at < p.capacity(); at += 601) {
                p.reserve(at, at + 1);
            }
            long[] pages = Pages.scattered(r, 1100);
            MemoryRegion mr = r.verbs.registerPages(pd, 0x1000_0000L, pages, 1100L * 4096, Access.LOCAL_WRITE);
            assertEquals(2, mr.pbleLevel());
            CqpWqe w = r.device.last(CqpOpcode.REG_MR).wqe();
            assertEquals(PbleLayout.CHUNK_LEVEL_2, w.pblChunkSize(), "irdma_hwreg_mr: chunk_size 3 for level 2");
            int root = w.stagFirstPmPblIndex();
            assertEquals(mr.firstPbleIndex(), root);
            // the root holds the leaves' first indexes: 512, 512 and 76 pages
            int[] sizes = {512, 512, 76};
            int page = 0;
            for (int leaf = 0; leaf < 3; leaf++) {
                long leafIndex = r.verbs.pble(root + leaf);
                for (int i = 0; i < sizes[leaf]; i++, page++) {
                    assertEquals(pages[page], r.verbs.pble((int) leafIndex + i), "page " + page);
                }
            }
            assertEquals(1, r.verbs.pbleLevel2Allocations());
            r.verbs.deregister(mr);
            assertEquals(reservedCount(p, first), p.inUse(), "leaves and root back");
        }
    }

    private static int reservedCount(PbleResource p, int first) {
        int n = 0;
        for (int at = first + 600; at < p.capacity(); at += 601) {
            n++;
        }
        return n;
    }

    @Test
    void aFastRegisterRegionAllocatesItsStagAndALevelOnePbl() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            MemoryRegion mr = r.verbs.allocateFastRegister(pd, 8, Access.REMOTE_WRITE);
            CqpWqe w = r.device.last(CqpOpcode.ALLOC_STAG).wqe();
            assertEquals(mr.lkey() >>> 8, w.stagIndex());
            assertEquals(pd.id(), w.stagPdId());
            assertEquals(8L * 4096, w.stagLength(), "max_num_sg * PAGE_SIZE");
            assertTrue(w.stagRemoteAccess());
            assertTrue(w.stagMr());
            assertEquals(0, w.pblChunkSize());
            assertEquals(8, r.verbs.pblesInUse());
            long buf = r.verbs.allocateBuffer(3 * 4096);
            assertEquals(3, mr.map(buf + 16, 2 * 4096));
            assertEquals(buf + 16, mr.address());
            for (int i = 0; i < 3; i++) {
                assertEquals(buf + i * 4096L, r.verbs.pble(mr.firstPbleIndex() + i));
            }
            assertThrows(VerbsException.class, () -> mr.map(buf, 9 * 4096L));
        }
    }

    @Test
    void aRefusedRegistrationReturnsTheStagIndexAndThePbles() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            r.device.fail(CqpOpcode.REG_MR, 1, CqpErrorCode.MAJ_ERROR, 0x11);
            long[] pages = Pages.scattered(r, 3);
            VerbsException e = assertThrows(VerbsException.class,
                    () -> r.verbs.registerPages(pd, 0x5000, pages, 3 * 4096, 0));
            assertEquals(VerbsException.Kind.DEVICE_ERROR, e.kind());
            assertEquals(0, r.verbs.pblesInUse());
            assertEquals(0, r.verbs.mrsInUse());
            assertNotNull(r.verbs.registerPages(pd, 0x5000, pages, 3 * 4096, 0));
        }
    }

    @Test
    void registeringMoreBytesThanThePagesHoldIsInvalid() {
        try (Rig r = new Rig()) {
            ProtectionDomain pd = r.verbs.allocatePd();
            long[] pages = Pages.scattered(r, 2);
            VerbsException e = assertThrows(VerbsException.class,
                    () -> r.verbs.registerPages(pd, 0x10, pages, 2 * 4096, 0));
            assertEquals(VerbsException.Kind.INVALID_ARGUMENT, e.kind());
        }
    }

    static QueuePair qp(Rig r) {
        ProtectionDomain pd = r.verbs.allocatePd();
        CompletionQueue cq = r.verbs.createCq(64);
        return r.verbs.createQp(QpInit.of(pd, cq, 16, 2));
    }
}
