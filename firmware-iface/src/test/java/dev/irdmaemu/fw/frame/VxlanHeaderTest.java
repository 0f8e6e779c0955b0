package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import net.openhft.chronicle.bytes.BytesStore;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The VXLAN header (RFC 7348 section 5) as written and as parsed from hostile bytes. */
class VxlanHeaderTest {

    @Test
    void writesTheRfcLayout() {
        byte[] b = new byte[8];
        assertEquals(8, VxlanHeader.write(BytesStore.wrap(b), 0, 0x123456));
        assertArrayEquals(new byte[] {0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0}, b);
        assertThrows(IllegalArgumentException.class, () -> VxlanHeader.write(BytesStore.wrap(b), 0, 1 << 24));
        assertThrows(IllegalArgumentException.class, () -> VxlanHeader.write(BytesStore.wrap(b), 0, -1));
    }

    @Test
    void parsesAndRefuses() {
        byte[] d = new byte[8 + 14];
        BytesStore<?, ?> s = BytesStore.wrap(d);
        VxlanHeader.write(s, 0, 42);
        d[8] = 0x02;
        d[13] = 0x01;
        d[14] = 0x02;
        d[19] = 0x09;
        VxlanHeader h = new VxlanHeader();
        assertEquals(VxlanHeader.Status.ACCEPTED, h.wrap(s, 0, d.length).validate());
        assertEquals(42, h.vni());
        assertEquals(14, h.innerLength());
        assertEquals(0x020000000001L, h.innerDestination());
        assertEquals(0x020000000009L, h.innerSource());
        assertEquals(VxlanHeader.Status.TRUNCATED, h.wrap(s, 0, d.length - 1).validate());
        d[0] = (byte) 0xF7; // every flag but I
        assertEquals(VxlanHeader.Status.VNI_NOT_VALID, h.wrap(s, 0, d.length).validate());
        assertEquals(0, h.failedAt());
        d[0] = (byte) 0xFF; // reserved bits are ignored on receipt
        d[1] = d[2] = d[3] = d[7] = (byte) 0xFF;
        assertEquals(VxlanHeader.Status.ACCEPTED, h.wrap(s, 0, d.length).validate());
        assertEquals(42, h.vni());
    }

    @Property(tries = 300)
    void anyBytesParseWithoutThrowing(@ForAll byte[] bytes, @ForAll @IntRange(min = 0, max = 40) int cut) {
        VxlanHeader h = new VxlanHeader().wrap(BytesStore.wrap(bytes), 0, Math.min(cut, bytes.length));
        VxlanHeader.Status st = h.validate();
        if (st == VxlanHeader.Status.ACCEPTED) {
            assertEquals(Math.min(cut, bytes.length) - 8, h.innerLength());
        }
        h.vni();
        h.innerSource();
    }
}
