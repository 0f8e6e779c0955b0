package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.StagAccess;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * post_send / post_recv as verbs.c irdma_post_send / irdma_post_recv and uk.c write them: the WQE fields, the
 * NOP padding at a chunk boundary, the polarity flip on wrap, PFPE_WQEALLOC per post, the errors irdma answers,
 * and no allocation on the post and poll paths.
 */
class PostPathTest {
    private final Rig r = new Rig();
    private final ProtectionDomain pd = r.verbs.allocatePd();
    private final CompletionQueue cq = r.verbs.createCq(256);
    private final QueuePair qp = r.verbs.createQp(new QpInit(pd, cq, cq, 64, 64, 7, 4, 64, false));
    private final long buf = r.verbs.allocateBuffer(4 * 4096);
    private final MemoryRegion mr = r.verbs.registerBuffer(pd, buf, 4 * 4096, Access.LOCAL_WRITE
            | Access.REMOTE_WRITE | Access.REMOTE_READ);
    private final SendWorkRequest wr = new SendWorkRequest();
    private final SqWqe wqe = new SqWqe();

    @AfterEach
    void close() {
        r.close();
    }

    private SqWqe sqAt(int index) {
        return wqe.wrap(r.driver.store(), r.driver.offsetOf(qp.sqWqeAddress(index)), 8L * SqWqe.QUANTUM);
    }

    @Test
    void aSendWithTwoSgesIsTwoQuantaWithThePadSlotAndRingsTheDoorbell() {
        int bells = r.device.sqDoorbells;
        assertEquals(PostStatus.OK, qp.postSend(wr.clear().wrId(7).opcode(WrOpcode.SEND)
                .flags(SendWorkRequest.SIGNALED | SendWorkRequest.FENCE | SendWorkRequest.SOLICITED)
                .sge(buf, 100, mr.lkey()).sge(buf + 200, 50, mr.lkey())));
        SqWqe w = sqAt(3);
        assertTrue(w.validate(true).accepted(), w.validate(true).describe());
        assertEquals(SqOpcode.RDMA_SEND_SOL_EVENT, w.sqOpcode());
        assertTrue(w.signaled());
        assertTrue(w.readFence(), "IB_SEND_FENCE is a read fence");
        assertFalse(w.localFence());
        assertEquals(2, w.additionalFragmentCount(), "2 SGEs + the gen2 pad slot");
        assertEquals(buf, w.fragmentAddress(0));
        assertEquals(100, w.fragmentLength(0));
        assertEquals(mr.lkey(), w.fragmentStag(0));
        assertEquals(buf + 200, w.fragmentAddress(1));
        assertEquals(150, w.totalLength());
        assertEquals(5, qp.queues.sqHead, "two quanta");
        assertEquals(7, qp.queues.sqWrid[3]);
        assertEquals(150, qp.queues.sqWrLen[3]);
        assertEquals(bells + 1, r.device.sqDoorbells);
        assertEquals(qp.id(), r.device.lastSqDoorbell, "PFPE_WQEALLOC carries the QP id");
    }

    @Test
    void withoutPostSqTheWqeIsWrittenAndTheHeadMovesButNoDoorbellRings() {
        int bells = r.device.sqDoorbells;
        assertEquals(3, qp.sqHead(), "behind the connection WQEs");
        assertEquals(PostStatus.OK, qp.postSend(wr.clear().wrId(11).opcode(WrOpcode.RDMA_WRITE)
                .flags(SendWorkRequest.SIGNALED).sge(buf, 64, mr.lkey()).remote(0x7000_0000L, 0x42), false));
        assertEquals(PostStatus.OK, qp.postSend(wr.clear().wrId(12).opcode(WrOpcode.SEND)
                .sge(buf, 8, mr.lkey()), false));
        assertEquals(SqOpcode.RDMA_WRITE, sqAt(3).sqOpcode());
        assertEquals(SqOpcode.RDMA_SEND, sqAt(4).sqOpcode());
        assertEquals(5, qp.sqHead());
        assertEquals(11, qp.queues.sqWrid[3]);
        assertEquals(bells, r.device.sqDoorbells, "uk.c post_sq false: the caller rings");
        // the next post with post_sq rings once for all three
        qp.postSend(wr.clear().wrId(13).opcode(WrOpcode.SEND).sge(buf, 8, mr.lkey()));
        assertEquals(bells + 1, r.device.sqDoorbells);
        assertEquals(6, qp.sqHead());
    }

    @Test
    void sendWithInvalidateWriteAndReadCarryTheirRemoteFields() {
        qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND_WITH_INV).invalidate(0xabcdef01).sge(buf, 8, mr.lkey()));
        assertEquals(SqOpcode.RDMA_SEND_INV, sqAt(3).sqOpcode());
        assertEquals(0xabcdef01, sqAt(3).remoteStag());
        qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.RDMA_WRITE).sge(buf, 64, mr.lkey()).remote(0x7000_0040L, 0x55));
        assertEquals(SqOpcode.RDMA_WRITE, sqAt(4).sqOpcode());
        assertEquals(0x7000_0040L, sqAt(4).remoteTaggedOffset());
        assertEquals(0x55, sqAt(4).remoteStag());
        qp.postSend(wr.clear().wrId(3).opcode(WrOpcode.RDMA_READ).sge(buf, 32, mr.lkey()).remote(0x8000, 0x66));
        assertEquals(SqOpcode.RDMA_READ, sqAt(5).sqOpcode());
        assertEquals(0x66, sqAt(5).remoteStag());
        qp.postSend(wr.clear().wrId(4).opcode(WrOpcode.RDMA_READ_WITH_INV).sge(buf, 32, mr.lkey()).remote(0x8000, 1));
        assertEquals(SqOpcode.RDMA_READ_LOC_INV, sqAt(6).sqOpcode());
        qp.postSend(wr.clear().wrId(5).opcode(WrOpcode.LOCAL_INV).invalidate(0x1234_5678));
        SqWqe li = sqAt(7);
        assertEquals(SqOpcode.LOCAL_INVALIDATE, li.sqOpcode());
        assertTrue(li.localFence(), "verbs.c: IB_WR_LOCAL_INV fences locally");
        assertEquals(0x1234_5678, li.fragmentStag(0));
        assertFalse(li.fragmentValid(0), "uk.c sets the target STag with valid bit 0");
    }

    @Test
    void inlineDataIsGatheredFromTheSgesRegions() {
        byte[] data = new byte[40];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7);
        }
        mr.write(buf + 100, data, 0, 25);
        mr.write(buf + 4096 + 10, data, 25, 15);
        assertEquals(PostStatus.OK, qp.postSend(wr.clear().wrId(9).opcode(WrOpcode.SEND)
                .flags(SendWorkRequest.INLINE).sge(buf + 100, 25, mr.lkey()).sge(buf + 4096 + 10, 15, mr.lkey())));
        SqWqe w = sqAt(3);
        assertTrue(w.inline());
        assertEquals(40, w.inlineLength());
        for (int i = 0; i < 40; i++) {
            assertEquals(data[i] & 0xff, w.inlineByte(i), "inline byte " + i);
        }
        assertEquals(3 + SqWqe.inlineQuanta(40), qp.queues.sqHead);
        assertEquals(PostStatus.INVALID, qp.postSend(wr.clear().opcode(WrOpcode.SEND)
                .flags(SendWorkRequest.INLINE).sge(buf, 65, mr.lkey())), "beyond max_inline_data");
        assertEquals(PostStatus.INVALID, qp.postSend(wr.clear().opcode(WrOpcode.SEND)
                .flags(SendWorkRequest.INLINE).sge(buf, 8, 0x7777)), "an lkey that names no region");
    }

    @Test
    void aWqeThatWouldStraddleAChunkIsPrecededByNops() {
        for (int i = 0; i < 3; i++) {
            qp.postSend(wr.clear().wrId(i).opcode(WrOpcode.SEND).sge(buf, 1, mr.lkey()));
        }
        assertEquals(6, qp.queues.sqHead);
        // 7 SGEs: 4 quanta, 2 left in the 8-quantum chunk: two NOPs, the WQE at 8
        wr.clear().wrId(99).opcode(WrOpcode.SEND);
        for (int i = 0; i < 7; i++) {
            wr.sge(buf + i * 8, 8, mr.lkey());
        }
        assertEquals(PostStatus.OK, qp.postSend(wr));
        assertEquals(SqOpcode.NOP, sqAt(6).sqOpcode());
        assertEquals(SqOpcode.NOP, sqAt(7).sqOpcode());
        assertFalse(sqAt(6).signaled());
        assertTrue(sqAt(7).valid());
        assertEquals(SqOpcode.RDMA_SEND, sqAt(8).sqOpcode());
        assertEquals(99, qp.queues.sqWrid[8]);
        assertEquals(12, qp.queues.sqHead);
    }

    @Test
    void thePolarityFlipsWhenTheSqWraps() {
        qp.queues.sqHead = qp.queues.sqSize - 1;
        qp.queues.sqTail = qp.queues.sqSize - 1;
        qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND).sge(buf, 1, mr.lkey()));
        assertTrue(sqAt(qp.queues.sqSize - 1).valid());
        qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.SEND).sge(buf, 1, mr.lkey()));
        assertFalse(qp.queues.swqePolarity, "head wrapped to 0");
        assertFalse(sqAt(0).valid(), "posted with valid bit 0");
        assertTrue(sqAt(0).validate(false).accepted());
    }

    @Test
    void aFullSqAnswersQueueFullAndTooManySgesAreInvalid() {
        int posted = 0;
        PostStatus s;
        while ((s = qp.postSend(wr.clear().wrId(posted).opcode(WrOpcode.SEND).sge(buf, 1, mr.lkey())))
                == PostStatus.OK) {
            posted++;
        }
        assertEquals(PostStatus.QUEUE_FULL, s);
        assertTrue(posted >= qp.maxSendWr(), posted + " posted, max_send_wr " + qp.maxSendWr());
        assertEquals(qp.sqDepth() - QpQueues.SQ_RESERVED, posted, "IRDMA_SQ_RING_FREE_QUANTA keeps 257 quanta");
        wr.clear().opcode(WrOpcode.RDMA_WRITE);
        for (int i = 0; i < 8; i++) {
            wr.sge(buf, 1, mr.lkey());
        }
        assertEquals(PostStatus.INVALID, qp.postSend(wr), "8 SGEs on a QP made for 7");
        assertEquals(PostStatus.INVALID, qp.postSend(wr.clear().opcode(WrOpcode.RDMA_READ)
                .flags(SendWorkRequest.INLINE).sge(buf, 1, mr.lkey())));
    }

    @Test
    void aReceiveIsWrittenAtTheRqWithoutADoorbell() {
        int bells = r.device.sqDoorbells;
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        assertEquals(PostStatus.OK, qp.postRecv(rr.clear().wrId(41).sge(buf, 4096, mr.lkey())
                .sge(buf + 4096, 4096, mr.lkey())));
        RqWqe w = new RqWqe().wrap(r.driver.store(), r.driver.offsetOf(qp.sqWqeAddress(qp.sqDepth())), 128);
        assertTrue(w.validate(true, 128).accepted(), "the first WQE flips the RQ polarity to 1");
        assertEquals(2, w.additionalFragmentCount(), "2 SGEs + pad");
        assertEquals(8192, w.totalLength());
        assertEquals(41, qp.queues.rqWrid[0]);
        assertEquals(bells, r.device.sqDoorbells);
        int posted = 1;
        while (qp.postRecv(rr.clear().wrId(posted).sge(buf, 8, mr.lkey())) == PostStatus.OK) {
            posted++;
        }
        assertEquals(qp.rqSize() - 1, posted, "IRDMA_RING_FULL_ERR: one slot stays free");
        assertEquals(PostStatus.INVALID, qp.postRecv(rr.clear().sge(buf, 1, 1).sge(buf, 1, 1).sge(buf, 1, 1)
                .sge(buf, 1, 1).sge(buf, 1, 1)), "5 SGEs on an RQ made for 4");
    }

    @Test
    void aFastRegisterWorkRequestIsWrittenAsIrdmaScMrFastRegisterDoes() {
        MemoryRegion fr = r.verbs.allocateFastRegister(pd, 4, 0);
        long target = r.verbs.allocateBuffer(3 * 4096);
        fr.map(target + 64, 2 * 4096);
        int newKey = fr.lkey() & ~0xff | 0x5a;
        assertEquals(PostStatus.OK, qp.postSend(wr.clear().wrId(3).opcode(WrOpcode.REG_MR)
                .flags(SendWorkRequest.SIGNALED).register(fr, newKey, Access.REMOTE_WRITE | Access.LOCAL_WRITE)));
        SqWqe w = sqAt(3);
        assertEquals(SqOpcode.FAST_REGISTER, w.sqOpcode());
        assertEquals(0x5a, w.stagKey());
        assertEquals(newKey >>> 8, w.stagIndex());
        assertEquals(PbleLayout.CHUNK_LEVEL_1, w.pblChunkSize(), "more than one page: a PBL");
        assertEquals(0, w.hostPageSizeCode());
        assertEquals(StagAccess.LOCAL_READ | StagAccess.LOCAL_WRITE | StagAccess.REMOTE_WRITE_ONLY, w.stagRights());
        assertTrue(w.vaBased());
        assertEquals(target + 64, w.qword(0), "the VA");
        assertEquals(target, w.pblAddress(), "reg_addr_pa: the first PBLE's page");
        assertEquals(fr.firstPbleIndex(), w.firstPmPblIndex());
        assertEquals(2 * 4096, w.stagLength());
        assertTrue(w.localFence());
        assertTrue(w.signaled());
        assertEquals(newKey, fr.rkey(), "the region answers to the new key");
        assertEquals(PostStatus.INVALID, qp.postSend(wr.clear().opcode(WrOpcode.REG_MR).register(mr, 1, 0)),
                "only a fast-register region");
    }

    @Test
    void aDestroyedQpTakesNoWork() {
        qp.destroy();
        assertEquals(PostStatus.INVALID, qp.postSend(wr.clear().opcode(WrOpcode.SEND).sge(buf, 1, mr.lkey())));
        assertEquals(PostStatus.INVALID, qp.postRecv(new ReceiveWorkRequest().sge(buf, 1, mr.lkey())));
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void postingAndPollingAllocateNothing() {
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        WorkCompletion wc = new WorkCompletion();
        Cqe cqe = new Cqe();
        BytesStore<?, ?> store = r.driver.store();
        long ring = r.driver.offsetOf(cq.ringAddress());
        int[] produced = {0};
        Runnable round = () -> {
            // post one send and one receive, then complete both as the device would and poll them back
            qp.postSend(wr.clear().wrId(produced[0]).opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                    .sge(buf, 64, mr.lkey()).remote(0x1000, 0x22));
            int sqIdx = (qp.queues.sqHead - 1 + qp.queues.sqSize) % qp.queues.sqSize;
            qp.postRecv(rr.clear().wrId(produced[0]).sge(buf, 4096, mr.lkey()));
            int rqIdx = (qp.queues.rqHead - 1 + qp.queues.rqSize) % qp.queues.rqSize;
            for (int k = 0; k < 2; k++) {
                int slot = produced[0] % cq.ringEntries();
                boolean pol = (produced[0] / cq.ringEntries() & 1) == 0;
                cqe.wrap(store, ring + (long) slot * Cqe.SIZE, Cqe.SIZE).clear()
                        .completionContext(IrdmaVerbs.qpHandle(qp.id())).qpId(qp.id())
                        .sq(k == 0).wqeIndex(k == 0 ? sqIdx : rqIdx * qp.queues.rqMultiplier)
                        .opType(k == 0 ? SqOpcode.RDMA_WRITE.code() : Cqe.OP_RECEIVE).payloadLength(10).valid(pol);
                produced[0]++;
            }
            if (!cq.poll(wc) || !cq.poll(wc)) {
                throw new AssertionError("a completion missing at round " + produced[0]);
            }
        };
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        long before = allocated();
        for (int i = 0; i < 50_000; i++) {
            round.run();
        }
        long bytes = allocated() - before;
        assertTrue(bytes < 4096, bytes + " bytes for 50000 rounds of post send + post recv + two polls");
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(WcStatus.SUCCESS, wc.status());
    }
}
