package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The device's fetch path (wrap, validate, read the fields into a reused holder) and the writers allocate nothing,
 * measured like FrameAllocationTest with HotSpot's per-thread allocation counter after a warm-up: 10,000 rounds of
 * several ops must stay below 10,000 bytes in all (a single allocation per round would be 160,000 at least).
 */
class CqpAllocationTest {
    private static final int ROUNDS = 10_000;
    private final BytesStore<?, Void> ring = BytesStore.nativeStoreWithFixedCapacity(4096);
    private final CqpWqe wqe = new CqpWqe();
    private final CqpCompletion cqe = new CqpCompletion();
    private final FpmQueryBuffer query = new FpmQueryBuffer();
    private final FpmCommitBuffer commit = new FpmCommitBuffer();
    private final QpOpFields qp = new QpOpFields();
    private final QhashFields qhash = new QhashFields();
    private final CqOpFields cq = new CqOpFields();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long sink;

    @AfterEach
    void release() {
        ring.releaseLast();
    }

    private void round(int i) {
        qp.qpId = i & 0xffff;
        qp.qpType = 1;
        CqpWqeWriter.modifyQp(ring, 0, qp, (i & 1) == 0);
        qhash.entryType = 1;
        qhash.manage = 1;
        qhash.ipv4 = true;
        qhash.destIp[0] = i;
        CqpWqeWriter.manageQhash(ring, 64, qhash, true);
        cq.cqId = i & 0xfff;
        CqpWqeWriter.createCq(ring, 128, cq, true);
        for (int at = 0; at < 192; at += 64) {
            if (wqe.wrap(ring, at).validate().accepted()) {
                sink += wqe.opcodeCode();
            }
        }
        qp.readFrom(wqe.wrap(ring, 0));
        qhash.readFrom(wqe.wrap(ring, 64));
        cq.readFrom(wqe.wrap(ring, 128));
        CqpCompletion.write(ring, 256, 1, 0, i & 0x7fff, false, 0, 0, true);
        sink += cqe.wrap(ring, 256).validate().ordinal() + cqe.wqeIndex();
        sink += query.wrap(ring, 512).validate().ordinal() + query.maxCount(HmcObjectType.QP);
        sink += commit.wrap(ring, 1024).validate().ordinal() + commit.base(HmcObjectType.CQ);
    }

    @Test
    void fetchPathAllocatesNothing() {
        ring.zeroOut(0, 4096);
        for (int i = 0; i < 50_000; i++) {
            round(i);
        }
        long tid = Thread.currentThread().getId();
        long a = threads.getThreadAllocatedBytes(tid);
        long b = threads.getThreadAllocatedBytes(tid);
        long overhead = b - a;
        long start = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < ROUNDS; i++) {
            round(i);
        }
        long used = threads.getThreadAllocatedBytes(tid) - start - overhead;
        assertTrue(used < 10_000, "allocated " + used + " bytes over " + ROUNDS + " rounds");
        assertTrue(sink != 0);
        assertEquals(CqpWqeCheck.ACCEPTED, wqe.wrap(ring, 0).validate());
    }
}
