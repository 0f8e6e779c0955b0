package dev.irdmaemu.fw.virtio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The split virtqueue's parts at the offsets virtio 1.x §2.7 gives them, written by hand. */
class SplitRingTest {
    @Test
    void sizesOfThePartsForARingOfEight() {
        assertEquals(128, SplitRing.descriptorTableBytes(8));
        assertEquals(22, SplitRing.availableRingBytes(8));
        assertEquals(70, SplitRing.usedRingBytes(8));
    }

    @Test
    void descriptorAvailableAndUsedFieldsAtTheirOffsets() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[256]);
        long d = SplitRing.descriptor(0, 2); // descriptor 2 at 32
        s.writeLong(d, 0x1122_3344_5566_7788L);
        s.writeInt(d + 8, 1514);
        s.writeShort(d + 12, (short) (SplitRing.DESC_F_NEXT | SplitRing.DESC_F_WRITE));
        s.writeShort(d + 14, (short) 5);
        assertEquals(0x1122_3344_5566_7788L, SplitRing.address(s, d));
        assertEquals(1514, SplitRing.length(s, d));
        assertEquals(3, SplitRing.flags(s, d));
        assertEquals(5, SplitRing.next(s, d));

        long avail = 128;
        s.writeShort(avail + 2, (short) 0xFFFF);
        s.writeShort(avail + 4 + 2 * 3, (short) 6);
        s.writeShort(avail + 4 + 2 * 8, (short) 40);
        assertEquals(0xFFFF, SplitRing.availableIdx(s, avail));
        assertEquals(6, SplitRing.availableEntry(s, avail, 3));
        assertEquals(40, SplitRing.usedEvent(s, avail, 8));

        long used = 152;
        SplitRing.usedElement(s, used, 1, 6, 60);
        SplitRing.usedIdx(s, used, 2);
        SplitRing.availEvent(s, used, 8, 9);
        assertEquals(6, s.readInt(used + 4 + 8));
        assertEquals(60, s.readInt(used + 4 + 8 + 4));
        assertEquals(2, SplitRing.usedIdx(s, used));
        assertEquals(9, s.readShort(used + 4 + 8 * 8));
    }
}
