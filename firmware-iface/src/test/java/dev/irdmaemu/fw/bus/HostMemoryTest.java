package dev.irdmaemu.fw.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class HostMemoryTest {
    @Test
    void findsTheRegionHoldingAWholeRangeAndRefusesStraddlesAndGaps() {
        HostMemory m = new HostMemory();
        BytesStore<?, Void> a = BytesStore.nativeStoreWithFixedCapacity(0x2000);
        BytesStore<?, Void> b = BytesStore.nativeStoreWithFixedCapacity(0x1000);
        try {
            m.map(0x10_0000, a, 0, 0x2000);
            m.map(0x10_2000, b, 0, 0x1000); // adjacent, but a DMA range may not straddle the two
            assertEquals(0, m.find(0x10_0000, 0x2000));
            assertEquals(1, m.find(0x10_2000, 8));
            assertEquals(-1, m.find(0x10_1ff8, 16), "straddles two regions");
            assertEquals(-1, m.find(0x0f_fff8, 8), "below every region");
            assertEquals(-1, m.find(0x10_3000, 1), "just past the last region");
            assertEquals(-1, m.find(Long.MAX_VALUE - 2, 8), "wraps around");
            assertEquals(-1, m.find(-8, 8), "negative address");
            assertEquals(0x1008, m.offset(0, 0x10_1008));
            assertTrue(m.writeLong(0x10_2008, 0x1122334455667788L));
            long[] out = new long[1];
            assertTrue(m.readLong(0x10_2008, out, 0));
            assertEquals(0x1122334455667788L, out[0]);
            assertFalse(m.writeLong(0x10_2ffc, 1), "8 bytes at 4 before the end");
            assertThrows(IllegalArgumentException.class, () -> m.map(0x10_1000, b, 0, 0x1000), "overlap");
            assertTrue(m.unmap(0x10_2000));
            assertEquals(-1, m.find(0x10_2008, 8));
        } finally {
            a.releaseLast();
            b.releaseLast();
        }
    }

    @Property(tries = 300)
    void anAnsweredRegionAlwaysHoldsTheWholeRange(@ForAll long gpa, @ForAll long length) {
        HostMemory m = new HostMemory();
        BytesStore<?, Void> s = BytesStore.nativeStoreWithFixedCapacity(0x1000);
        try {
            m.map(0x4000, s, 0, 0x1000);
            int r = m.find(gpa, length);
            if (r >= 0) {
                assertTrue(gpa >= 0x4000 && length >= 0 && gpa + length <= 0x5000);
            }
        } finally {
            s.releaseLast();
        }
    }

    @Test
    void hostRamAllocatesAlignedZeroedPagesAndFreesThem() {
        HostMemory m = new HostMemory();
        try (HostRam ram = new HostRam(m, 0x1_0000_0000L, 64 * HostRam.PAGE_SIZE)) {
            long a = ram.allocate(100);
            long b = ram.allocate(3 * HostRam.PAGE_SIZE);
            assertEquals(0, (b - 0x1_0000_0000L) % (4 * HostRam.PAGE_SIZE), "rounded up to a power of two");
            assertTrue(m.contains(b, 3 * HostRam.PAGE_SIZE));
            ram.store().writeLong(ram.offsetOf(a), -1L);
            ram.free(a, 100);
            long again = ram.allocate(8);
            assertEquals(a, again);
            assertEquals(0L, ram.store().readLong(ram.offsetOf(again)), "zeroed on allocation");
            assertEquals(4, ram.pagesInUse());
            assertThrows(IllegalStateException.class, () -> ram.allocate(128 * HostRam.PAGE_SIZE));
        }
        assertEquals(0, m.regions());
    }
}
