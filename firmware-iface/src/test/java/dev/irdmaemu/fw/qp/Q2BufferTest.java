package dev.irdmaemu.fw.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The Q2 buffer's layout: the Terminate header at 0, the frame at Q2_BAD_FRAME_OFFSET, irdma_locate_mpa. */
class Q2BufferTest {
    private final BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(512);
    private final Q2Buffer q2 = new Q2Buffer();

    @Test
    void theDevicesFrameCopyIsTruncatedToTheBufferAndTheMpaHeaderIsFoundAsIrdmaFindsIt() {
        mem.zeroOut(0, 512);
        BytesStore<?, ?> frame = BytesStore.nativeStoreWithFixedCapacity(300);
        frame.zeroOut(0, 300);
        frame.writeUnsignedByte(14, 0x46);
        frame.writeUnsignedByte(14 + 24 + 12, 0x80);
        frame.writeUnsignedByte(299, 0x55);
        q2.wrap(mem, 0);
        assertEquals(Q2Buffer.FRAME_CAPACITY, q2.writeFrame(frame, 0, 300));
        assertEquals(0x46, q2.u8(Q2Buffer.BAD_FRAME_OFFSET + 14));
        // 14-byte MAC header, IHL 6 (24 bytes), data offset 8 (32 bytes)
        assertEquals(Q2Buffer.BAD_FRAME_OFFSET + 14 + 24 + 32, q2.locateMpa());
        assertEquals(0, mem.readUnsignedByte(Q2Buffer.SIZE), "nothing past the 256 bytes");
    }

    @Test
    void theTerminateHeaderClearsTheFrontOfTheBufferOnly() {
        mem.zeroOut(0, 512);
        for (int i = 0; i < Q2Buffer.SIZE; i++) {
            mem.writeUnsignedByte(i, 0xaa);
        }
        q2.wrap(mem, 0).writeTerminateHeader(0x12, 0x05, 0xc0);
        assertEquals(0x12, q2.layerEtype());
        assertEquals(1, q2.layer());
        assertEquals(2, q2.errorType());
        assertEquals(5, q2.errorCode());
        assertEquals(0xc0, q2.hdrct());
        assertEquals(0, q2.u8(3));
        assertEquals(0, q2.u8(Q2Buffer.BAD_FRAME_OFFSET - 1));
        assertEquals(0xaa, q2.u8(Q2Buffer.BAD_FRAME_OFFSET), "the frame area is the device's");
        assertEquals(0xaaaa, q2.u16(Q2Buffer.BAD_FRAME_OFFSET));
        assertEquals(0, q2.u16(Q2Buffer.SIZE - 1), "reads past the buffer answer 0");
    }

    @Test
    void aWindowTooShortIsReadAsZeroAndRefusesWrites() {
        BytesStore<?, ?> small = BytesStore.nativeStoreWithFixedCapacity(16);
        small.zeroOut(0, 16);
        q2.wrap(small, 0);
        assertEquals(-1, q2.locateMpa());
        assertThrows(IllegalArgumentException.class, () -> q2.writeTerminateHeader(1, 2, 3));
    }
}
