package dev.irdmaemu.cm.rping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** struct rping_rdma_info on the wire: 16 bytes, buf, rkey and size, each in network order. */
class RpingInfoTest {
    @Test
    void theAdvertisementIsBigEndianWithNoPadding() {
        byte[] b = new byte[20];
        BytesStore<?, ?> s = BytesStore.wrap(b);
        RpingInfo.write(s, 2, 0x0102_0304_0506_0708L, 0x0a0b_0c0d, 0x1122_3344);
        assertArrayEquals(new byte[] {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x0a, 0x0b, 0x0c, 0x0d, 0x11, 0x22, 0x33, 0x44,
                0, 0}, b);
        assertEquals(0x0102_0304_0506_0708L, RpingInfo.address(s, 2));
        assertEquals(0x0a0b_0c0d, RpingInfo.rkey(s, 2));
        assertEquals(0x1122_3344L, RpingInfo.length(s, 2));
    }

    @Test
    void highBitsSurviveAndTheLengthIsUnsigned() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[16]);
        RpingInfo.write(s, 0, 0xffff_8000_0000_0001L, 0x8000_00ff, -1);
        assertEquals(0xffff_8000_0000_0001L, RpingInfo.address(s, 0));
        assertEquals(0x8000_00ff, RpingInfo.rkey(s, 0));
        assertEquals(0xffff_ffffL, RpingInfo.length(s, 0));
        RpingInfo.clear(s, 0);
        assertEquals(0, RpingInfo.address(s, 0));
        assertEquals(0, RpingInfo.length(s, 0));
    }
}
