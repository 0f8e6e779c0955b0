package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
import dev.irdmaemu.driver.verbs.VerbsException;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QueuePair.Role;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The verbs' control path on the device model: PDs, CQs, QPs and memory regions are made and destroyed with the CQP
 * ops irdma issues, the model holds what they describe, and a bad argument gets the model's error completion (or
 * irdma's own -EINVAL before any op), never an exception from the device.
 */
class VerbsControlPathIntegrationTest {
    private static final long MAC = 0x02_00_00_00_00_0bL;

    private static ModelNode node(RecordingTraceSink sink) {
        SimScheduler s = new SimScheduler(11);
        return new ModelNode(s, new Link(s), new Trace(s).enableAll(sink), MAC,
                List.of(LocalAddress.untagged("192.0.2.1")), FaultProfile.NONE, d -> { });
    }

    @Test
    void cqsAndQpsAreCreatedOnTheModelAndGoneAfterDestroy() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            IrdmaVerbs v = n.verbs;
            int pages = n.ram.pagesInUse();
            ProtectionDomain pd = v.allocatePd();
            CompletionQueue cq = v.createCq(128);
            var modelCq = n.device.cqs().get(cq.id());
            assertNotNull(modelCq);
            assertTrue(modelCq.live());
            assertEquals(cq.ringEntries(), modelCq.size());
            assertEquals(cq.ringAddress(), modelCq.ringAddress());
            QueuePair qp = v.createQp(QpInit.of(pd, cq, 32, 2));
            var modelQp = n.device.qps().get(qp.id());
            assertNotNull(modelQp);
            assertEquals(Role.IWARP, modelQp.role());
            assertEquals(QpState.IDLE, modelQp.state());
            assertEquals(qp.sqWqeAddress(0), modelQp.sqAddress());
            assertEquals(qp.sqDepth(), modelQp.sqQuanta(), "the model reads the SQ size irdma encoded");
            assertEquals(cq.id(), modelQp.txCq());
            qp.modify(IbQpState.INIT);
            assertEquals(QpState.IDLE, modelQp.state());
            // receives can be posted before a connection exists
            ReceiveWorkRequest rwr = new ReceiveWorkRequest();
            long buf = v.allocateBuffer(4096);
            MemoryRegion mr = v.registerBuffer(pd, buf, 4096, Access.LOCAL_WRITE);
            assertTrue(n.device.stags().inUse(mr.lkey() >>> 8));
            assertEquals(pd.id(), n.device.stags().pdAt(mr.lkey() >>> 8));
            assertEquals(PostStatus.OK, qp.postRecv(rwr.clear().wrId(1).sge(buf, 4096, mr.lkey())));
            qp.destroy();
            assertNull(n.device.qps().get(qp.id()));
            cq.destroy();
            assertNull(n.device.cqs().get(cq.id()));
            v.deregister(mr);
            assertFalse(n.device.stags().inUse(mr.lkey() >>> 8));
            v.freeBuffer(buf, 4096);
            assertEquals(0, sink.of(TraceKind.CQP_ERROR).size(), "every op accepted");
            assertEquals(pages, n.ram.pagesInUse(), "every ring, context and buffer back");
        }
    }

    @Test
    void aFastRegisterStagIsAllocatedOnTheModel() {
        try (ModelNode n = node(new RecordingTraceSink())) {
            ProtectionDomain pd = n.verbs.allocatePd();
            MemoryRegion mr = n.verbs.allocateFastRegister(pd, 16, Access.REMOTE_READ);
            int idx = mr.lkey() >>> 8;
            assertTrue(n.device.stags().inUse(idx));
            assertFalse(n.device.stags().registered(idx), "allocated, not registered until the REG_MR WR");
            n.verbs.deregister(mr);
            assertFalse(n.device.stags().inUse(idx));
        }
    }

    @Test
    void aRegionOverUnmappedMemoryGetsTheModelsDmaFault() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            ProtectionDomain pd = n.verbs.allocatePd();
            long nowhere = 0x10_0000L;
            VerbsException e = assertThrows(VerbsException.class,
                    () -> n.verbs.registerPhysical(pd, nowhere, 4096, Access.LOCAL_WRITE, nowhere));
            assertEquals(VerbsException.Kind.DEVICE_ERROR, e.kind());
            assertEquals(CqpFault.DMA_FAULT.major(), e.cqpError().major());
            assertEquals(CqpFault.DMA_FAULT.minor(), e.cqpError().minor());
            assertEquals(1, sink.of(TraceKind.CQP_ERROR).size());
            assertEquals(0, n.verbs.mrsInUse(), "the STag index went back");
            assertEquals(0, n.device.stags().liveCount());
        }
    }

    @Test
    void aCqAboveTheDevicesMaximumIsRefusedBeforeTheCqp() {
        try (ModelNode n = node(new RecordingTraceSink())) {
            long ops = n.driver.cqp().opsPosted();
            VerbsException e = assertThrows(VerbsException.class, () -> n.verbs.createCq(IrdmaVerbs.MAX_CQE + 1));
            assertEquals(VerbsException.Kind.INVALID_ARGUMENT, e.kind());
            assertEquals(ops, n.driver.cqp().opsPosted(), "verbs.c irdma_create_cq checks max_cqe first");
            // as big as host memory cannot hold: -ENOMEM, still before the CQP
            VerbsException big = assertThrows(VerbsException.class, () -> n.verbs.createCq(IrdmaVerbs.MAX_CQE));
            assertEquals(VerbsException.Kind.NO_MEMORY, big.kind());
            assertEquals(ops, n.driver.cqp().opsPosted());
            assertEquals(0, n.verbs.cqsInUse());
        }
    }

    @Test
    void aQpOnADestroyedCqGetsTheModelsNoSuchObject() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            ProtectionDomain pd = n.verbs.allocatePd();
            CompletionQueue gone = n.verbs.createCq(16);
            gone.destroy();
            int pages = n.ram.pagesInUse();
            VerbsException e = assertThrows(VerbsException.class,
                    () -> n.verbs.createQp(QpInit.of(pd, gone, 8, 1)));
            assertEquals(VerbsException.Kind.DEVICE_ERROR, e.kind());
            assertEquals("CREATE_QP", e.cqpError().op());
            assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), e.cqpError().minor());
            assertEquals(0, n.verbs.qpsInUse());
            assertEquals(pages, n.ram.pagesInUse(), "the QP's rings and context freed");
            // the driver and the device go on: a good QP right after
            CompletionQueue cq = n.verbs.createCq(16);
            QueuePair qp = n.verbs.createQp(QpInit.of(pd, cq, 8, 1));
            assertNotNull(n.device.qps().get(qp.id()));
        }
    }

    @Test
    void aQpCannotBeMovedToRtsWithoutAConnectionAndAnErrorQpStaysUsableForDestroy() {
        try (ModelNode n = node(new RecordingTraceSink())) {
            ProtectionDomain pd = n.verbs.allocatePd();
            CompletionQueue cq = n.verbs.createCq(16);
            QueuePair qp = n.verbs.createQp(QpInit.of(pd, cq, 8, 1));
            assertThrows(VerbsException.class, () -> qp.modify(IbQpState.RTS));
            qp.modify(IbQpState.INIT);
            qp.modify(IbQpState.ERR);
            assertEquals(QpState.ERROR, n.device.qps().get(qp.id()).state());
            assertEquals(QueuePair.STATE_ERROR, qp.iwarpState());
            qp.destroy();
            assertNull(n.device.qps().get(qp.id()));
        }
    }
}
