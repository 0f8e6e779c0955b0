package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.queue.Aeqe;
import org.junit.jupiter.api.Test;

/**
 * CQs, QPs and the AEQ the way irdma maps a user-space consumer's rings (verbs.c irdma_reg_user_mr_type_cq / _qp,
 * irdma_handle_q_mem, irdma_setup_virt_qp) and a virtual AEQ (hw.c irdma_create_virt_aeq), checked on the CQP WQEs,
 * the QP context and the PBLEs the driver hands the device.
 */
class UserModeRingsTest {

    @Test
    void aCqOfSeveralPinnedPagesIsCreatedWithVirtmapAndALevelOnePblOfItsPages() {
        try (Rig r = new Rig()) {
            r.verbs.userModeRings(true);
            CompletionQueue cq = r.verbs.createCq(256);
            assertTrue(cq.virtuallyMapped());
            CqpWqe w = r.device.last(CqpOpcode.CREATE_CQ).wqe();
            assertTrue(w.cqVirtualMap());
            assertEquals(PbleLayout.CHUNK_LEVEL_1, w.pblChunkSize(), "verbs.c: info.pbl_chunk_size = 1");
            assertEquals(cq.firstPbleIndex(), w.cqFirstPmPblIndex());
            assertEquals(0, w.cqAddress(), "ctrl.c writes 0 for the PA when virtual_map");
            assertEquals(516, w.cqSize());
            // five pages, in ring order in the PBL, not contiguous
            int pages = (516 * 32 + 4095) / 4096;
            assertEquals(pages, r.verbs.pblesInUse());
            for (int i = 0; i < pages; i++) {
                assertEquals(cq.slotAddress(i * 128), r.verbs.pble(cq.firstPbleIndex() + i), "PBLE " + i);
            }
            assertNotEquals(cq.slotAddress(127) + 32, cq.slotAddress(128));
            cq.destroy();
            CqpWqe d = r.device.last(CqpOpcode.DESTROY_CQ).wqe();
            assertTrue(d.cqVirtualMap(), "irdma_sc_cq_destroy writes the create's VIRTMAP and PBLE index");
            assertEquals(w.cqFirstPmPblIndex(), d.cqFirstPmPblIndex());
            assertEquals(0, r.verbs.pblesInUse(), "the PBLEs back");
        }
    }

    @Test
    void aOnePageUserCqGetsItsPageAddress() {
        try (Rig r = new Rig()) {
            r.verbs.userModeRings(true);
            CompletionQueue cq = r.verbs.createCq(30); // 64 slots, 2 KiB
            assertFalse(cq.virtuallyMapped());
            CqpWqe w = r.device.last(CqpOpcode.CREATE_CQ).wqe();
            assertFalse(w.cqVirtualMap());
            assertEquals(cq.ringAddress(), w.cqAddress());
            assertEquals(0, r.verbs.pblesInUse());
        }
    }

    @Test
    void aQpWhoseRingsSpanMoreThanTwoPagesIsCreatedWithVqAndTheContextNamesPbleIndexes() {
        try (Rig r = new Rig()) {
            r.verbs.userModeRings(true);
            ProtectionDomain pd = r.verbs.allocatePd();
            CompletionQueue cq = r.verbs.createCq(30);
            QueuePair qp = r.verbs.createQp(new QpInit(pd, cq, cq, 128, 128, 1, 1, 0, false));
            assertTrue(qp.virtuallyMapped());
            CqpWqe w = r.device.last(CqpOpcode.CREATE_QP).wqe();
            assertTrue(w.qpVirtualMap(), "IRDMA_CQPSQ_QP_VQ");
            QpContext c = new QpContext().wrap(r.driver.store(), r.driver.offsetOf(qp.hostContextAddress()),
                    QpContext.SIZE);
            int sqPages = qp.sqDepth() * 32 / 4096;
            assertEquals(qp.sqPbleIndex(), c.sqPbleIndex());
            assertEquals(qp.sqPbleIndex() + sqPages, c.rqPbleIndex(), "irdma_handle_q_mem: the RQ's after the SQ's");
            // every SQ page in the PBL in order; the RQ's first page next
            for (int i = 0; i < sqPages; i++) {
                assertEquals(qp.sqWqeAddress(i * 128), r.verbs.pble((int) qp.sqPbleIndex() + i), "SQ page " + i);
            }
            assertTrue(c.validate(false).accepted());
            // a Modify QP carries VQ too (ctrl.c irdma_sc_qp_modify)
            qp.modify(IbQpState.INIT);
            int before = r.verbs.pblesInUse();
            assertTrue(before > sqPages);
            qp.destroy();
            assertEquals(0, r.verbs.pblesInUse(), "the QP's PBLEs back");
        }
    }

    @Test
    void aForcedVirtualAeqIsCreatedWithVmapOnALevelOnePblOfSinglePages() {
        try (Rig r = new Rig(d -> d.withVirtualAeq())) {
            ScriptedDevice.Op op = r.bringUpOps.stream().filter(o -> o.opcode() == CqpOpcode.CREATE_AEQ)
                    .findFirst().orElseThrow();
            CqpWqe w = op.wqe();
            assertTrue(w.eqVirtualMap(), "hw.c irdma_create_aeq: info.virtual_map = true");
            assertEquals(PbleLayout.CHUNK_LEVEL_1, w.pblChunkSize(), "info.pbl_chunk_size = 1");
            int first = r.driver.aeq().firstPbleIndex().orElseThrow();
            assertEquals(first, w.eqFirstPmPblIndex());
            assertEquals(0, w.eqAddress());
            assertTrue(first >= r.verbs.pbles().firstUsable(), "from the function's PBLE resource");
            int pages = (w.eqElementCount() * Aeqe.SIZE + 4095) / 4096;
            assertEquals(pages, r.verbs.pblesInUse(), "the AEQ's PBLEs are held by the driver");
            for (int i = 0; i < pages; i++) {
                long page = r.verbs.pble(first + i);
                assertTrue(page != 0 && page % 4096 == 0, "PBLE " + i);
            }
            // the verbs allocate around them
            r.verbs.userModeRings(true);
            CompletionQueue cq = r.verbs.createCq(256);
            assertTrue(cq.firstPbleIndex() >= first + pages || cq.firstPbleIndex() + 5 <= first);
        }
    }
}
