package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-FPDU paths allocate nothing in steady state, trace off: the SQ turning WQEs into FPDUs, TCP segmenting
 * and acknowledging, the link, the port, TCP reassembly, the FPDU checks, placement and the completions, on both
 * nodes, and the real driver's posting and polling (verbs.c irdma_post_send / irdma_post_recv / irdma_poll_cq with
 * reused requests and completions). Measured with HotSpot's per-thread allocation counter around whole messages (as HotPathAllocationTest):
 * a one-off allocation of the JIT or the runtime may land in the window, so the bound is one byte per FPDU.
 */
class IwarpAllocationTest {
    private static final int WARM = 3_000;
    private static final int MEASURED = 2_000;
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final DriverPair pair = new DriverPair(32L << 20);

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
        DriverPair.Conn c = pair.connect(false);
        pair.a.traceOff();
        pair.b.traceOff();
        Buffer src = pair.a.buffer(4096, Access.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(4096, Access.REMOTE_WRITE);
        Buffer rbuf = pair.b.buffer(4096, Access.LOCAL_WRITE);
        IwarpQp active = pair.a.engine(c.active);
        long[] rx = new long[1];
        Runnable one = () -> {
            // A 4 KiB RDMA Write (3 FPDUs) and a signaled 1000-byte Send into a posted receive.
            pair.a.post(c.active, pair.a.reusedWr(1).opcode(WrOpcode.RDMA_WRITE).sge(src.gpa(), 4096, src.stag())
                    .remote(dst.gpa(), dst.stag()));
            pair.b.postRecv(c.passive, 2, rbuf.gpa(), 4096, rbuf.stag());
            pair.a.post(c.active, pair.a.reusedWr(3).opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .sge(src.gpa(), 1000, src.stag()));
            long target = rx[0] + 1;
            while (rx[0] < target || active.sqOutstanding() > 0) {
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
        long fpdusBefore = active.stats().fpdusSent();
        long base = overhead();
        long t = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < MEASURED; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        long fpdus = active.stats().fpdusSent() - fpdusBefore;
        assertEquals(4L * MEASURED, fpdus);
        assertEquals(WARM + MEASURED, pair.b.engine(c.passive).stats().rqWqesCompleted());
        assertTrue(used < fpdus, "the data path allocated " + used + " bytes for " + fpdus + " FPDUs");
    }
}
