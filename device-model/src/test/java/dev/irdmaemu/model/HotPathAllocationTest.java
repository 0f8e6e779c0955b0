package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpCompletion;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-frame path (classify, ILQ receive, CQE) and the per-WQE path (doorbell, fetch, execute, CCQ completion)
 * allocate nothing once warm, with the trace off. Measured with HotSpot's per-thread allocation counter, as
 * fw.frame.FrameAllocationTest does: 10,000 iterations must stay under one byte per iteration (a one-off
 * allocation of the JIT or the runtime may land in the window); one 16-byte object per iteration would be
 * 160,000 bytes.
 */
class HotPathAllocationTest {
    private static final int ITERATIONS = 10_000;

    private final TestDriver d = new TestDriver();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final RqWqe rq = new RqWqe();
    private final Cqe cqe = new Cqe();
    private final CqpCompletion ccqe = new CqpCompletion();

    @AfterEach
    void close() {
        frame.releaseLast();
        d.close();
    }

    private long overhead() {
        long t = Thread.currentThread().getId();
        long a = threads.getThreadAllocatedBytes(t);
        long b = threads.getThreadAllocatedBytes(t);
        return b - a;
    }

    @Test
    void ilqReceiveAllocatesNothingPerFrame() {
        TestDriver.Puda ilq = BringUpTest.bringUp(d);
        d.trace.off();
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
        b.tcp().ports(40000, 20000).sequenceNumber(1).flags(TcpHeader.SYN).window(100).mss(1460);
        int len = b.build(frame, 0);
        int[] state = new int[2];
        Runnable one = () -> {
            d.dev.port().receive(frame, 0, len);
            d.scheduler.runUntilIdle(Long.MAX_VALUE);
            // The driver's side, allocation-free: consume two CQ slots, repost the buffer.
            int slot = state[0];
            cqe.wrap(d.store(), d.off(ilq.cqRing + slot * 32L), 32);
            state[0] = (slot + 2) % ilq.cqSize;
            d.store().writeLong(d.off(ilq.cqShadow), state[0]);
            int rqIdx = state[1];
            rq.wrap(d.store(), d.off(ilq.rq + rqIdx * 32L), 32).writePuda(ilq.buffers[rqIdx], ilq.bufSize, false);
            state[1] = (rqIdx + 1) % ilq.rqSize;
        };
        for (int i = 0; i < 20_000; i++) {
            one.run();
        }
        long base = overhead();
        long t = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < ITERATIONS; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        assertEquals(0, d.dev.puda().totalDrops());
        assertEquals(30_000, d.dev.puda().received());
        assertTrue(used < ITERATIONS, "ILQ receive allocated " + used + " bytes in " + ITERATIONS + " frames");
    }

    @Test
    void cqpWqeAllocatesNothingPerOp() {
        d.createCqp(64);
        d.bringUpHmcAndCcq(64);
        d.trace.off();
        Runnable one = () -> {
            long o = d.nextWqe();
            CqpWqeWriter.nop(d.store(), o, d.polarity);
            d.write(Gen2Register.CQPDB, d.head);
            d.scheduler.runUntilIdle(Long.MAX_VALUE);
            ccqe.wrap(d.store(), d.off(d.ccqRing + (long) d.ccqHead * 32));
            d.ccqHead = (d.ccqHead + 1) % d.ccqSize;
            d.store().writeLong(d.off(d.ccqShadow), d.ccqHead);
        };
        for (int i = 0; i < 20_000; i++) {
            one.run();
        }
        long base = overhead();
        long t = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < ITERATIONS; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        assertEquals(0, d.dev.cqp().failedOps());
        assertTrue(used < ITERATIONS, "CQP allocated " + used + " bytes in " + ITERATIONS + " WQEs");
    }
}
