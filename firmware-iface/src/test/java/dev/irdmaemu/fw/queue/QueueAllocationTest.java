package dev.irdmaemu.fw.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ILQ receive and transmit descriptor paths allocate nothing: the model writing a PUDA CQE with its
 * extension, the driver reading it; the driver posting PUDA receive and send WQEs, the model validating and
 * reading them; AEQE and CEQE written and read. Same method as FrameAllocationTest (HotSpot's per-thread
 * allocation counter, least of three rounds after warm-up, the counter's own cost subtracted), with a
 * sensitivity check that the harness sees 16 bytes a call.
 */
class QueueAllocationTest {
    private static final int CALLS = 10_000;

    private BytesStore<?, Void> ring;
    private final Cqe cqe = new Cqe();
    private final CqeExtension ext = new CqeExtension();
    private final SqWqe sq = new SqWqe();
    private final RqWqe rq = new RqWqe();
    private final Aeqe aeqe = new Aeqe();
    private final Ceqe ceqe = new Ceqe();
    private final SgeList sges = new SgeList();
    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long sink;
    private boolean polarity;
    private Object escape;

    @BeforeEach
    void ring() {
        ring = BytesStore.nativeStoreWithFixedCapacity(1024);
        ring.zeroOut(0, 1024);
    }

    @AfterEach
    void release() {
        ring.releaseLast();
    }

    private void ilqRound() {
        polarity = !polarity;
        cqe.wrap(ring, 0, 32).clear().payloadLength(1500).completionContext(0x1234).qpId(1).wqeIndex(7)
            .extended(true).ipv4(true).opType(Cqe.OP_RECEIVE).valid(polarity);
        ext.wrap(ring, 32, 32).clear().vlan(100).sourceMac(0x02_00_00_00_00_02L).valid(polarity);
        if (!cqe.wrap(ring, 0, 32).validate(polarity).accepted() || !ext.wrap(ring, 32, 32).validate(polarity)
            .accepted()) {
            throw new AssertionError("CQE rejected");
        }
        sink += cqe.payloadLength() + cqe.qpId() + cqe.wqeIndex() + (cqe.ipv4() ? 1 : 0) + ext.vlan()
            + ext.sourceMacByte(5);
        rq.wrap(ring, 64, 32).writePuda(0x9000, 2048, true);
        if (!rq.validate(true, 32).accepted()) {
            throw new AssertionError("RQ WQE rejected");
        }
        sink += rq.fragmentAddress(0) + rq.fragmentLength(0);
        sq.wrap(ring, 128, 256).writePudaSend(polarity, 0x5000, 74, 20, 0);
        if (!sq.validate(polarity).accepted()) {
            throw new AssertionError("SQ WQE rejected");
        }
        sink += sq.fragmentLength(0) + sq.l4LengthWords() + sq.quanta();
        sges.clear().add(0x1000, 64, 1).add(0x2000, 64, 2);
        sq.writeSend(polarity, SqOpcode.RDMA_SEND, sges, SqWqe.SIGNALED, 0, 0);
        sink += sq.validate(polarity).ordinal() + sq.totalLength();
        sink += sq.wrap(ring, 128, 20).validate(polarity).ordinal() + sq.failedAt();
        aeqe.wrap(ring, 512, 16).write(0x77, 3, AeCode.LLP_CONNECTION_RESET.code(), 0, 6, 1, 0, 0, false, polarity);
        sink += aeqe.validate(polarity).ordinal() + aeqe.target().ordinal() + aeqe.qpCqId();
        ceqe.wrap(ring, 528, 8).write(5, polarity);
        sink += ceqe.validate(polarity).ordinal() + ceqe.cqIndex();
    }

    private long allocated() {
        return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private long measure(Runnable body) {
        for (int i = 0; i < 3 * CALLS; i++) {
            body.run();
        }
        long overhead = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long a = allocated();
            long b = allocated();
            overhead = Math.min(overhead, b - a);
        }
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) {
            long before = allocated();
            for (int i = 0; i < CALLS; i++) {
                body.run();
            }
            best = Math.min(best, allocated() - before - overhead);
        }
        return best;
    }

    @Test
    void descriptorPathsAllocateNothing() {
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        long bytes = measure(this::ilqRound);
        assertEquals(0, bytes / CALLS, "bytes allocated per round: " + bytes + " in " + CALLS + " rounds");
        assertTrue(bytes < 1024, "bytes allocated in " + CALLS + " rounds: " + bytes);
    }

    @Test
    void theMeasurementSeesAnAllocationOfSixteenBytesACall() {
        threads.setThreadAllocatedMemoryEnabled(true);
        long bytes = measure(() -> escape = new Object());
        assertTrue(bytes >= 16L * CALLS, "expected at least 16 bytes a call, counted " + bytes);
    }
}
