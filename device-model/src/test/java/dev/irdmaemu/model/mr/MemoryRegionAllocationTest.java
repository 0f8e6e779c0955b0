package dev.irdmaemu.model.mr;

import static dev.irdmaemu.model.mr.MemoryRegions.OK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqWqe;
import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The data path allocates nothing: check, write and read of 4 KiB straddling two pages of a level-1 region, a
 * refused write, and a Fast Register + Local Invalidate pair, measured with HotSpot's per-thread allocation
 * counter as model.HotPathAllocationTest does (10,000 iterations under one byte each once warm, trace off).
 */
class MemoryRegionAllocationTest {
    private static final int ITERATIONS = 10_000;
    private static final int PD = 2;
    private static final int RW = MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE;

    private final StagOps d = new StagOps();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final BytesStore<?, Void> buf = BytesStore.nativeStoreWithFixedCapacity(8192);

    @AfterEach
    void close() {
        buf.releaseLast();
        d.close();
    }

    private long allocatedBy(Runnable one) {
        for (int i = 0; i < 20_000; i++) {
            one.run();
        }
        long t = Thread.currentThread().getId();
        long a = threads.getThreadAllocatedBytes(t);
        long overhead = threads.getThreadAllocatedBytes(t) - a;
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < ITERATIONS; i++) {
            one.run();
        }
        return threads.getThreadAllocatedBytes(t) - before - overhead;
    }

    @Test
    void checkWriteAndReadAllocateNothing() {
        long[] pages = d.scatteredPages(4);
        long va = 0x7f00_0000_0000L;
        int stag = d.stag(8, 0x21, 0x42);
        assertFalse(d.registerLevel1(stag, PD, va, 4 * 4096, RW, pages).error());
        int two = d.stag(9, 0x21, 0x43);
        assertFalse(d.registerLevel2(two, PD, va, 4 * 4096, RW, d.scatteredPages(4)).error());
        d.trace.off();
        int[] failed = new int[1];
        long used = allocatedBy(() -> {
            long to = va + 2048;
            if (d.mrs.check(stag, to, 4096, MemoryRegions.REMOTE_WRITE, PD) != OK
                    || d.mrs.write(stag, to, buf, 0, 4096, MemoryRegions.REMOTE_WRITE, PD) != OK
                    || d.mrs.read(stag, to, buf, 4096, 4096, MemoryRegions.REMOTE_READ, PD) != OK
                    || d.mrs.write(two, to, buf, 0, 4096, MemoryRegions.REMOTE_WRITE, PD) != OK
                    || d.mrs.write(stag, va + 4 * 4096, buf, 0, 1, MemoryRegions.REMOTE_WRITE, PD)
                    != AeCode.AMP_BOUNDS_VIOLATION.code()) {
                failed[0]++;
            }
        });
        assertEquals(0, failed[0]);
        assertTrue(used < ITERATIONS, "the data path allocated " + used + " bytes in " + ITERATIONS + " rounds");
    }

    @Test
    void fastRegisterAndInvalidateAllocateNothing() {
        long[] pages = d.scatteredPages(2);
        int stag = d.stag(10, 0x5, 0x6);
        assertFalse(d.allocStag(stag, PD, 2 * 4096).error());
        long first = d.level1(pages);
        SqWqe w = d.fastRegisterWqe(stag, 0x1000, 2 * 4096, RW, first, pages[0], true);
        d.trace.off();
        int[] failed = new int[1];
        long used = allocatedBy(() -> {
            if (d.mrs.fastRegister(w, PD) != OK || d.mrs.invalidate(stag, PD, true) != OK) {
                failed[0]++;
            }
        });
        assertEquals(0, failed[0]);
        assertTrue(used < ITERATIONS, "Fast Register + invalidate allocated " + used + " bytes");
    }
}
