package dev.irdmaemu.fw.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Host RAM comes up zeroed, as a guest's memory does, with one clearing pass at construction. */
class HostRamTest {
    @Test
    void freshRamReadsZeroEverywhere() {
        long size = 4L << 20;
        try (HostRam ram = new HostRam(new HostMemory(), 0x1000_0000L, size)) {
            BytesStore<?, Void> s = ram.store();
            long ored = 0;
            for (long at = 0; at < size; at += 8) {
                ored |= s.readLong(ram.offsetOf(0x1000_0000L) + at);
            }
            assertEquals(0, ored);
        }
    }
}
