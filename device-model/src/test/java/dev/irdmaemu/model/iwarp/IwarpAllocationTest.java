package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.model.IwarpTestDriver.Buffer;
import dev.irdmaemu.model.mr.MemoryRegions;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-FPDU paths allocate nothing in steady state, trace off: the SQ turning WQEs into FPDUs, TCP segmenting
 * and acknowledging, the link, the port, TCP reassembly, the FPDU checks, placement and the completions, on both
 * nodes. Measured with HotSpot's per-thread allocation counter around whole messages (as HotPathAllocationTest):
 * a one-off allocation of the JIT or the runtime may land in the window, so the bound is one byte per FPDU.
 */
class IwarpAllocationTest {
    private static final int WARM = 3_000;
    private static final int MEASURED = 2_000;
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final IwarpPair pair = new IwarpPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private long overhead() {
        long t = Thread.currentThread().getId();
        long a = threads.getThreadAllocatedBytes(t);
        return threads.getThreadAllocatedBytes(t) - a;
    }

    @Test
    void writesAndSendsAllocateNothingPerFpdu() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        pair.a.traceOff();
        pair.b.traceOff();
        Buffer src = pair.a.buffer(4096, MemoryRegions.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(4096, MemoryRegions.REMOTE_WRITE);
        Buffer rbuf = pair.b.buffer(4096, MemoryRegions.LOCAL_WRITE);
        SgeList write = new SgeList().add(src.gpa(), 4096, src.stag());
        SgeList send = new SgeList().add(src.gpa(), 1000, src.stag());
        SgeList recv = new SgeList().add(rbuf.gpa(), 4096, rbuf.stag());
        long[] rx = new long[1];
        Runnable one = () -> {
            // A 4 KiB RDMA Write (3 FPDUs) and a signaled 1000-byte Send into a posted receive.
            pair.a.postWrite(c.active, write, dst.stag(), dst.gpa(), 0);
            pair.b.postRecv(c.passive, recv);
            pair.a.postSend(c.active, SqOpcode.RDMA_SEND, send, dev.irdmaemu.fw.queue.SqWqe.SIGNALED, 0);
            long target = rx[0] + 1;
            while (rx[0] < target || c.active.engine().sqOutstanding() > 0) {
                if (!pair.scheduler.runNext()) {
                    throw new AssertionError("stalled");
                }
                rx[0] += pair.b.consume(c.bCq);
                pair.a.consume(c.aCq);
            }
        };
        for (int i = 0; i < WARM; i++) {
            one.run();
        }
        long fpdusBefore = c.active.engine().stats().fpdusSent();
        long base = overhead();
        long t = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < MEASURED; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        long fpdus = c.active.engine().stats().fpdusSent() - fpdusBefore;
        assertEquals(4L * MEASURED, fpdus);
        assertEquals(WARM + MEASURED, c.passive.engine().stats().rqWqesCompleted());
        assertTrue(used < fpdus, "the data path allocated " + used + " bytes for " + fpdus + " FPDUs");
    }
}
