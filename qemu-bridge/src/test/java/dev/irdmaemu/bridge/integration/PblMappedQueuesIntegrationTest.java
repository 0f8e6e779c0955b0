package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import dev.irdmaemu.model.trace.TraceSink;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Java driver's user-space-style queues on two model nodes: CQs and QPs whose rings are pinned page by page and
 * handed to the device through level-1 PBLs (verbs.c irdma_create_cq / irdma_setup_virt_qp: VIRTMAP, VQ, the first
 * PBLE index), node A's AEQ created virtually (hw.c irdma_create_virt_aeq), a connection made by the CM and
 * hundreds of Sends whose bytes are checked while every ring wraps across its pages; then everything is destroyed
 * and the PBLEs, pages and model objects are all back.
 */
class PblMappedQueuesIntegrationTest {
    private static final long LIMIT = 60_000_000_000L;
    private static final int PORT = 4791;
    private static final int BUF = 64 * 1024;
    private static final int MESSAGE_MAX = 3000;

    private final RecordingTraceSink errorsA = new RecordingTraceSink();
    private final ModelPair pair = new ModelPair(3, FrameTap.NONE, e -> {
        if (e.kind() == TraceKind.CQP_ERROR) {
            errorsA.accept(e);
        }
    }, TraceSink.NONE, d -> d.withVirtualAeq(), d -> { });

    private record Side(ModelNode node, ProtectionDomain pd, CompletionQueue cq, QueuePair qp, long buf,
                        MemoryRegion mr) {
        static Side on(ModelNode n) {
            n.verbs.userModeRings(true);
            ProtectionDomain pd = n.verbs.allocatePd();
            // 258 x 2 CQE slots: 16.1 KiB, five pages; SQ 1024 quanta (eight pages) and an RQ of two: VQ
            CompletionQueue cq = n.verbs.createCq(256);
            QueuePair qp = n.verbs.createQp(new QpInit(pd, cq, cq, 128, 128, 1, 1, 0, false));
            qp.modify(IbQpState.INIT);
            long buf = n.verbs.allocateBuffer(BUF);
            MemoryRegion mr = n.verbs.registerBuffer(pd, buf, BUF, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            return new Side(n, pd, cq, qp, buf, mr);
        }
    }

    @AfterEach
    void close() {
        pair.close();
    }

    private static byte[] pattern(int len, int seed) {
        byte[] d = new byte[len];
        for (int i = 0; i < len; i++) {
            d[i] = (byte) (i * 31 + seed * 7 + (i >> 8));
        }
        return d;
    }

    @Test
    void sendsOverPblMappedCqsAndQpsWrapEveryRingAndAVirtualAeqCarriesTheAes() {
        int pblesA = pair.a.verbs.pblesInUse();
        int pagesA = pair.a.ram.pagesInUse();
        int pagesB = pair.b.ram.pagesInUse();
        int modelCqsA = pair.a.device.cqs().liveCount();
        int modelQpsA = pair.a.device.qps().liveCount();
        // A's AEQ: (2 x committed QPs + committed CQs) x 16 bytes (hw.c irdma_create_aeq), single pages through a
        // level-1 PBL, one PBLE per page
        long aeqEntries = 2 * pair.a.driver.hmc().committedCount(HmcObjectType.QP)
                + pair.a.driver.hmc().committedCount(HmcObjectType.CQ);
        int aeqPages = (int) ((aeqEntries * 16 + 4095) / 4096);
        RingPages aeq = pair.a.device.aeq().ringPages();
        assertTrue(aeq.paged());
        assertTrue(aeqPages > 1, "the AEQ spans pages");
        assertEquals(aeqPages, aeq.pageCount());
        assertTrue(pair.a.driver.aeq().firstPbleIndex().isPresent());
        assertEquals(aeqPages, pblesA, "the virtual AEQ's PBLEs");
        assertFalse(pair.b.device.aeq().ringPages().paged());

        Side a = Side.on(pair.a);
        Side b = Side.on(pair.b);
        for (Side s : List.of(a, b)) {
            assertTrue(s.cq.virtuallyMapped());
            var modelCq = s.node.device.cqs().get(s.cq.id());
            assertTrue(modelCq.ringPages().paged());
            assertEquals(5, modelCq.ringPages().pageCount());
            assertEquals(s.cq.slotAddress(300), modelCq.ringPages().address(300 * 32L));
            assertTrue(s.qp.virtuallyMapped());
            var modelQp = s.node.device.qps().get(s.qp.id());
            assertTrue(modelQp.virtualMap());
            assertEquals(s.qp.sqDepth() * 32 / 4096, modelQp.sqRing().pageCount());
            assertTrue(modelQp.rqRing().pageCount() >= 1);
            assertEquals(s.qp.sqWqeAddress(200), modelQp.sqRing().address(200 * 32L));
        }
        assertTrue(a.cq.slotAddress(128) != a.cq.slotAddress(127) + 32, "the pinned pages are not contiguous");

        List<CmEvent> client = new ArrayList<>();
        pair.b.cm.listen(CmPair.B_V4.withPort(PORT), 8, e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                assertTrue(pair.b.cm.accept(e.node(), "b".getBytes(StandardCharsets.UTF_8), ev -> { }, b.qp.id()));
            }
        });
        CmNode node = pair.a.cm.connect(CmPair.A_V4.withPort(50000), CmPair.B_V4.withPort(PORT),
                ConnectParams.of("a".getBytes(StandardCharsets.UTF_8), 16, 16).withQp(a.qp.id()), client::add);
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(CmEventType.CONNECT_REPLY, client.get(0).type());
        assertTrue(pair.a.device.aeq().posted() > 0, "A's RTS AE came through the virtual AEQ");
        assertEquals(0, pair.a.device.aeq().lost());

        SendWorkRequest wr = new SendWorkRequest();
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        WorkCompletion wc = new WorkCompletion();
        int batch = 16;
        int messages = 0;
        for (int round = 0; round < 48; round++) { // 768 Sends: the CQs (516 slots), SQs and RQs wrap
            byte[][] sent = new byte[batch][];
            for (int i = 0; i < batch; i++) {
                int slot = i * (BUF / batch);
                assertEquals(PostStatus.OK, b.qp.postRecv(rr.clear().wrId(10_000 + messages + i)
                        .sge(b.buf + slot, BUF / batch, b.mr.lkey())));
                sent[i] = pattern(1 + (messages + i) * 97 % MESSAGE_MAX, messages + i);
                a.mr.write(a.buf + slot, sent[i], 0, sent[i].length);
                assertEquals(PostStatus.OK, a.qp.postSend(wr.clear().wrId(messages + i).opcode(WrOpcode.SEND)
                        .flags(SendWorkRequest.SIGNALED).sge(a.buf + slot, sent[i].length, a.mr.lkey())));
            }
            assertTrue(pair.runUntilIdle(LIMIT));
            for (int i = 0; i < batch; i++) {
                assertTrue(a.cq.poll(wc), "send completion " + (messages + i));
                assertEquals(WcStatus.SUCCESS, wc.status());
                assertEquals(WcOpcode.SEND, wc.opcode());
                assertEquals(messages + i, wc.wrId());
                assertTrue(b.cq.poll(wc), "receive completion " + (messages + i));
                assertEquals(WcStatus.SUCCESS, wc.status());
                assertEquals(10_000 + messages + i, wc.wrId());
                assertEquals(sent[i].length, wc.byteLen());
                byte[] got = new byte[sent[i].length];
                b.mr.read(b.buf + i * (BUF / batch), got, 0, got.length);
                assertArrayEquals(sent[i], got, "message " + (messages + i));
            }
            assertFalse(a.cq.poll(wc));
            messages += batch;
        }
        assertEquals(768, messages);

        pair.a.cm.disconnect(node, true);
        assertTrue(pair.runUntilIdle(2 * LIMIT));
        while (a.cq.poll(wc) || b.cq.poll(wc)) {
            // flushed receives, if any
        }
        for (Side s : List.of(a, b)) {
            s.qp.destroy();
            s.cq.destroy();
            s.node.verbs.deregister(s.mr);
            s.node.verbs.freeBuffer(s.buf, BUF);
            s.node.verbs.deallocatePd(s.pd);
        }
        // the abortive close's Flush WQEs may find nothing left: irdma's non-critical FLUSH_NO_WQE_PENDING
        assertEquals(List.of(), errorsA.of(TraceKind.CQP_ERROR).stream()
                .filter(r -> !"FLUSH_NO_WQE_PENDING".equals(r.get("result"))).toList(), "every op of A accepted");
        assertEquals(pblesA, pair.a.verbs.pblesInUse(), "the rings' PBLEs back, the AEQ's kept");
        assertEquals(0, pair.b.verbs.pblesInUse());
        assertEquals(pagesA, pair.a.ram.pagesInUse(), "every pinned page back");
        assertEquals(pagesB, pair.b.ram.pagesInUse());
        assertEquals(modelCqsA, pair.a.device.cqs().liveCount());
        assertEquals(modelQpsA, pair.a.device.qps().liveCount());
    }
}
