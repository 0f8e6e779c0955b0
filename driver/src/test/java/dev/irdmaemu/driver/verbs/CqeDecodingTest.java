package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Work completions decoded from CQE bytes as uk.c irdma_uk_cq_poll_cmpl and verbs.c irdma_process_cqe do: the
 * wr_id from the QP's SQ / RQ arrays, the byte count, the opcode, the status (flush codes mapped as
 * irdma_flush_err_to_ib_wc_status maps them), the invalidated rkey, the connection WQEs skipped, a flush parked on
 * its CQE until every outstanding WQE completed. Pure host memory: no device.
 */
class CqeDecodingTest {
    private static final int QP = 5;
    private static final long HANDLE = IrdmaVerbs.qpHandle(QP);
    private static final int CQ_SIZE = 16;

    private final BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(1 << 16);
    private final long sqBase = 0;
    private final long rqBase = 512L * SqWqe.QUANTUM;
    private final long ringBase = rqBase + 64L * SqWqe.QUANTUM;
    private final long shadow = ringBase + CQ_SIZE * Cqe.SIZE;
    private final QpQueues qp = new QpQueues(QP, HANDLE, mem, sqBase, 512, rqBase, 32, 2, 4, 3, 64);
    private final CqRing ring = new CqRing(9, mem, ringBase, CQ_SIZE, shadow);
    private final CqRing.QpLookup lookup = h -> h == HANDLE ? qp : null;
    private final WorkCompletion wc = new WorkCompletion();
    private int produced;
    private boolean polarity = true;

    CqeDecodingTest() {
        mem.zeroOut(0, mem.capacity());
    }

    /** Writes the device's next CQE: {@code sq} side, WQE index, op type, payload length. */
    private Cqe cqe(boolean sq, int wqeIndex, int op, long payload) {
        long at = ringBase + (long) (produced % CQ_SIZE) * Cqe.SIZE;
        Cqe c = new Cqe().wrap(mem, at, Cqe.SIZE).clear().completionContext(HANDLE).qpId(QP).wqeIndex(wqeIndex)
                .opType(op).sq(sq).payloadLength(payload);
        return c;
    }

    private void post(Cqe c) {
        c.valid(polarity);
        produced++;
        if (produced % CQ_SIZE == 0) {
            polarity = !polarity;
        }
    }

    private int send(long wrId, int len, boolean signaled) {
        long o = qp.nextSendWqe(1, len, wrId, signaled);
        int idx = (int) ((o - sqBase) / SqWqe.QUANTUM);
        mem.writeLong(o + SqWqe.OFF_HEADER, (long) SqOpcode.RDMA_SEND.code() << 32);
        return idx;
    }

    @Test
    void aSendCompletionTakesItsWrIdAndLengthFromTheSqArray() {
        int idx = send(0xabcL, 700, true);
        assertEquals(3, idx, "behind the connection WQEs");
        post(cqe(true, idx, SqOpcode.RDMA_SEND.code(), 0));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(0xabcL, wc.wrId());
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.SEND, wc.opcode());
        assertEquals(700, wc.byteLen(), "wr_len recorded at post, not the CQE's payload");
        assertEquals(QP, wc.qpNum());
        assertEquals(4, qp.sqTail, "tail past the completed WQE's quanta");
        assertEquals(CqRing.EMPTY, ring.poll(wc, lookup));
        assertEquals(1, mem.readLong(shadow), "the head reported in the shadow area once the ring is empty");
    }

    @Test
    void aReceiveCompletionTakesItsWrIdFromTheRqArrayAndReportsTheInvalidatedStag() {
        qp.nextRecvWqe(77);
        qp.nextRecvWqe(78);
        // RQ WQE index in quanta: the second WQE of 2 quanta is at 2
        post(cqe(false, 2, Cqe.OP_RECEIVE, 1234).stagInvalidated(true).invalidatedStag(0x1234_56ab));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(78, wc.wrId());
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(1234, wc.byteLen());
        assertTrue(wc.withInvalidate());
        assertEquals(0x1234_56ab, wc.invalidatedRkey());
        assertEquals(2, qp.rqTail);
    }

    @Test
    void completionsOfTheConnectionWqesAreSkipped() {
        // the LSMM / RTR, NOP and GEN_RTS_AE are not the consumer's: their CQEs are consumed silently
        post(cqe(true, 0, SqOpcode.RDMA_SEND.code(), 0));
        post(cqe(true, 2, SqOpcode.GEN_RTS_AE.code(), 0));
        assertEquals(CqRing.EMPTY, ring.poll(wc, lookup));
        assertEquals(2, ring.head, "both consumed");
        assertEquals(2, mem.readLong(shadow));
        assertFalse(qp.firstSqWq, "past the connection WQEs");
        int idx = send(9, 1, true);
        post(cqe(true, idx, SqOpcode.RDMA_SEND.code(), 0));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(9, wc.wrId());
    }

    @Test
    void anUnsignaledCompletionIsDroppedAndASignaledOneRetiresTheEarlierWqes() {
        int a = send(1, 10, false);
        int b = send(2, 20, true);
        post(cqe(true, a, SqOpcode.RDMA_SEND.code(), 0));
        assertEquals(CqRing.SKIPPED, ring.poll(wc, lookup));
        post(cqe(true, b, SqOpcode.RDMA_SEND.code(), 0));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(2, wc.wrId());
        assertFalse(qp.sqMoreWork());
    }

    @Test
    void aCqeForAnUnknownQpIsConsumedAndDropped() {
        post(cqe(true, 3, SqOpcode.RDMA_SEND.code(), 0).completionContext(0xdead));
        assertEquals(CqRing.SKIPPED, ring.poll(wc, lookup));
        assertEquals(1, ring.head);
        assertEquals(CqRing.EMPTY, ring.poll(wc, lookup));
    }

    @Test
    void aCqeWithAnRqIndexOutsideTheRingIsDropped() {
        qp.nextRecvWqe(1);
        post(cqe(false, 0x7ffe, Cqe.OP_RECEIVE, 1));
        assertEquals(CqRing.SKIPPED, ring.poll(wc, lookup));
        assertEquals(0, qp.rqTail, "nothing retired");
    }

    @Test
    void aFlushedSqCqeIsParkedUntilEveryOutstandingWqeCompleted() {
        send(11, 1, true);
        send(12, 2, false);
        send(13, 3, true);
        // the device flushes with the QP's flush code; the driver reports it on the first completion only
        post(cqe(true, 3, SqOpcode.RDMA_SEND.code(), 0).error(FlushCode.FLUSH_MAJOR_ERR, FlushCode.REM_ACCESS_ERR));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(11, wc.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status());
        assertEquals(FlushCode.FLUSH_MAJOR_ERR << 16 | FlushCode.REM_ACCESS_ERR, wc.vendorErr());
        assertEquals(0, ring.head, "parked");
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(12, wc.wrId(), "flushed WQEs complete even when unsignaled");
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(), "later completions carry FLUSH_GENERAL_ERR");
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(13, wc.wrId());
        assertEquals(1, ring.head, "the last one moves the head");
        assertTrue(qp.sqFlushComplete);
        assertEquals(CqRing.EMPTY, ring.poll(wc, lookup));
    }

    @Test
    void aFlushedRqCompletesEveryPostedReceiveInOrder() {
        qp.nextRecvWqe(21);
        qp.nextRecvWqe(22);
        post(cqe(false, 0, Cqe.OP_RECEIVE, 0).error(FlushCode.FLUSH_MAJOR_ERR, FlushCode.GENERAL_ERR));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(21, wc.wrId());
        assertEquals(WcOpcode.RECV, wc.opcode());
        assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(22, wc.wrId());
        assertTrue(qp.rqFlushComplete);
        assertEquals(CqRing.EMPTY, ring.poll(wc, lookup));
    }

    @Test
    void aFlushCqeWithNothingOutstandingIsConsumed() {
        post(cqe(false, 0, Cqe.OP_RECEIVE, 0).error(FlushCode.FLUSH_MAJOR_ERR, FlushCode.GENERAL_ERR));
        assertEquals(CqRing.EMPTY, ring.poll(wc, lookup));
        assertEquals(1, ring.head);
    }

    @Test
    void anErrorThatIsNoFlushIsAGeneralError() {
        int idx = send(31, 5, true);
        post(cqe(true, idx, SqOpcode.RDMA_SEND.code(), 0).error(0xffff, 0x8002));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(31, wc.wrId());
        assertEquals(WcStatus.GENERAL_ERR, wc.status());
        assertEquals(0xffff_8002, wc.vendorErr());
        assertEquals(0, wc.byteLen(), "no length on an error");
    }

    @Test
    void anUnknownSqOpTypeIsAGeneralError() {
        int idx = send(41, 5, true);
        post(cqe(true, idx, 0x3d, 0));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(WcStatus.GENERAL_ERR, wc.status());
        assertEquals(WcOpcode.UNKNOWN, wc.opcode());
    }

    @Test
    void anExtendedCqeWithImmediateDataIsAWriteWithImmediateAndTakesTwoSlots() {
        qp.nextRecvWqe(51);
        post(cqe(false, 0, Cqe.OP_RECEIVE_IMM, 0).extended(true));
        long ext = ringBase + (long) (produced % CQ_SIZE) * Cqe.SIZE;
        new CqeExtension().wrap(mem, ext, CqeExtension.SIZE).clear().immediateData(0x1122_3344L).valid(polarity);
        produced++;
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode());
        assertTrue(wc.withImm());
        assertEquals(0x1122_3344, wc.immData());
        assertEquals(2, ring.head);
    }

    @Test
    void theRingsPolarityFlipsOnWrap() {
        for (int i = 0; i < CQ_SIZE + 3; i++) {
            int idx = send(100 + i, 1, true);
            post(cqe(true, idx, SqOpcode.RDMA_WRITE.code(), 0));
            assertEquals(CqRing.POLLED, ring.poll(wc, lookup), "completion " + i);
            assertEquals(100 + i, wc.wrId());
            assertEquals(WcOpcode.RDMA_WRITE, wc.opcode());
        }
        assertFalse(ring.polarity, "one wrap");
        assertEquals(3, ring.head);
    }

    static Stream<Arguments> flushCodes() {
        return Stream.of(
                arguments(named("FLUSH_PROT_ERR", FlushCode.PROT_ERR), WcStatus.LOC_PROT_ERR),
                arguments(named("FLUSH_REM_ACCESS_ERR", FlushCode.REM_ACCESS_ERR), WcStatus.REM_ACCESS_ERR),
                arguments(named("FLUSH_LOC_QP_OP_ERR", FlushCode.LOC_QP_OP_ERR), WcStatus.LOC_QP_OP_ERR),
                arguments(named("FLUSH_REM_OP_ERR", FlushCode.REM_OP_ERR), WcStatus.REM_OP_ERR),
                arguments(named("FLUSH_LOC_LEN_ERR", FlushCode.LOC_LEN_ERR), WcStatus.LOC_LEN_ERR),
                arguments(named("FLUSH_GENERAL_ERR", FlushCode.GENERAL_ERR), WcStatus.WR_FLUSH_ERR),
                arguments(named("FLUSH_RETRY_EXC_ERR", FlushCode.RETRY_EXC_ERR), WcStatus.RETRY_EXC_ERR),
                arguments(named("FLUSH_MW_BIND_ERR", FlushCode.MW_BIND_ERR), WcStatus.MW_BIND_ERR),
                arguments(named("FLUSH_REM_INV_REQ_ERR", FlushCode.REM_INV_REQ_ERR), WcStatus.REM_INV_REQ_ERR),
                arguments(named("FLUSH_RNR_RETRY_EXC_ERR", FlushCode.RNR_RETRY_EXC_ERR), WcStatus.RNR_RETRY_EXC_ERR),
                arguments(named("FLUSH_FATAL_ERR", FlushCode.FATAL_ERR), WcStatus.FATAL_ERR),
                arguments(named("an undefined code", 0x77), WcStatus.FATAL_ERR));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("flushCodes")
    void aFlushedCompletionsStatusIsItsFlushCodeMapped(int minor, WcStatus status) {
        qp.nextRecvWqe(61);
        post(cqe(false, 0, Cqe.OP_RECEIVE, 0).error(FlushCode.FLUSH_MAJOR_ERR, minor));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(status, wc.status());
        assertEquals(61, wc.wrId());
    }

    static Stream<Arguments> sqOps() {
        return Stream.of(
                arguments(named("RDMA Write", SqOpcode.RDMA_WRITE), WcOpcode.RDMA_WRITE),
                arguments(named("RDMA Write with SE", SqOpcode.RDMA_WRITE_SOL), WcOpcode.RDMA_WRITE),
                arguments(named("RDMA Read", SqOpcode.RDMA_READ), WcOpcode.RDMA_READ),
                arguments(named("RDMA Read with local invalidate", SqOpcode.RDMA_READ_LOC_INV), WcOpcode.RDMA_READ),
                arguments(named("Send", SqOpcode.RDMA_SEND), WcOpcode.SEND),
                arguments(named("Send with Invalidate", SqOpcode.RDMA_SEND_INV), WcOpcode.SEND),
                arguments(named("Send with SE", SqOpcode.RDMA_SEND_SOL_EVENT), WcOpcode.SEND),
                arguments(named("Send with SE and Invalidate", SqOpcode.RDMA_SEND_SOL_EVENT_INV), WcOpcode.SEND),
                arguments(named("Fast Register", SqOpcode.FAST_REGISTER), WcOpcode.REG_MR),
                arguments(named("Local Invalidate", SqOpcode.LOCAL_INVALIDATE), WcOpcode.LOCAL_INV));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("sqOps")
    void anSqCompletionsOpcodeIsSetIbWcOpSqs(SqOpcode op, WcOpcode expected) {
        int idx = send(71, 8, true);
        post(cqe(true, idx, op.code(), 0));
        assertEquals(CqRing.POLLED, ring.poll(wc, lookup));
        assertEquals(expected, wc.opcode());
        assertEquals(WcStatus.SUCCESS, wc.status());
    }
}
