package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-frame path (classify, ILQ receive, CQE, and the real driver's interrupt handler taking it and reposting
 * the buffer) and the per-WQE path (the driver's post and doorbell, fetch, execute, CCQ completion and the driver's
 * poll of it) allocate nothing once warm, with the trace off. Measured with HotSpot's per-thread allocation counter, as
 * fw.frame.FrameAllocationTest does: 10,000 iterations must stay under one byte per iteration (a one-off
 * allocation of the JIT or the runtime may land in the window); one 16-byte object per iteration would be
 * 160,000 bytes.
 */
class HotPathAllocationTest {
    private static final int ITERATIONS = 10_000;

    private final DriverNode d = BringUpTest.listening();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);

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
        d.trace.off();
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
        b.tcp().ports(40000, BringUpTest.LISTEN_PORT).sequenceNumber(1).flags(TcpHeader.SYN).window(100).mss(1460);
        int len = b.build(frame, 0);
        Runnable one = () -> {
            d.dev.port().receive(frame, 0, len);
            // the driver's side runs from its interrupt handler: the CQE taken, the buffer reposted, the CQ re-armed
            d.scheduler.runUntilIdle(Long.MAX_VALUE);
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
        assertEquals(30_000, d.driver.puda().ilqReceived(), "the driver took every frame");
        assertTrue(used < ITERATIONS, "ILQ receive allocated " + used + " bytes in " + ITERATIONS + " frames");
    }

    @Test
    void cqpWqeAllocatesNothingPerOp() {
        d.trace.off();
        long posted = d.driver.cqp().opsPosted();
        // the driver's NOP: WQE written, PFPE_CQPDB rung, the model run until the CCQ CQE is there, polled
        Runnable one = d.driver.cqp()::nop;
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
        assertEquals(posted + 30_000, d.driver.cqp().opsPosted());
        assertTrue(used < ITERATIONS, "CQP allocated " + used + " bytes in " + ITERATIONS + " WQEs");
    }
}
