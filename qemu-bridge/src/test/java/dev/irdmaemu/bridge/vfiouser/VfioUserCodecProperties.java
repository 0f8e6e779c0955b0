package dev.irdmaemu.bridge.vfiouser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The codecs against arbitrary bytes: no input makes a validate() throw, and whatever a validate() accepts keeps
 * the rules the handlers rely on (an accepted access lies inside its region, an accepted SET_IRQS inside its
 * index's vectors with the descriptor count its data type wants).
 */
class VfioUserCodecProperties {
    private static final long[] REGIONS = {TestFunction.BAR0_SIZE, 0, 0, TestFunction.BAR3_SIZE, 0, 0, 0, 4096, 0};
    private static final int[] VECTORS = {0, 0, 64, 1, 0};

    private static ByteBuffer message(byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(VfioUserHeader.SIZE + Math.max(payload.length, 64))
                .order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < payload.length; i++) {
            b.put(VfioUserHeader.SIZE + i, payload[i]);
        }
        return b;
    }

    @Property(tries = 2000)
    void noPayloadMakesAValidateThrow(@ForAll @Size(max = 48) byte[] payload,
                                      @ForAll @IntRange(min = 0, max = 20) int fds) {
        ByteBuffer b = message(payload);
        int n = payload.length;
        new VersionPayload().wrap(b, n).validate();
        new DmaMapPayload().wrap(b, n).validate(fds);
        new DmaUnmapPayload().wrap(b, n).validate(fds);
        new DeviceInfoPayload().wrap(b, n).validate();
        new RegionInfoPayload().wrap(b, n).validate(9);
        new IrqInfoPayload().wrap(b, n).validate(5);
        new SetIrqsPayload().wrap(b, n).validate(VECTORS, fds);
        new RegionAccessPayload().wrap(b, n).validate(REGIONS, 7, true);
        new RegionAccessPayload().wrap(b, n).validate(REGIONS, 7, false);
        new VfioUserHeader().wrap(b).validate(VfioUserConnection.MAX_MESSAGE);
    }

    @Property(tries = 3000)
    void anAcceptedAccessLiesInsideItsRegion(@ForAll long offset, @ForAll @IntRange(min = 0, max = 9) int region,
                                             @ForAll @IntRange(min = 0, max = 5000) int count,
                                             @ForAll boolean write) {
        ByteBuffer b = ByteBuffer.allocate(VfioUserHeader.SIZE + 16 + 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(16, offset).putInt(24, region).putInt(28, count);
        int length = 16 + (write ? Math.min(count, 8) : 0);
        RegionAccessPayload p = new RegionAccessPayload().wrap(b, length);
        if (p.validate(REGIONS, 7, write) == VfioUserStatus.OK) {
            assertTrue(offset >= 0 && offset + count <= REGIONS[region], "inside region " + region);
            assertTrue(count == 1 || count == 2 || count == 4 || count == 8
                    || region == 7 && !write && offset == 0 && count == 4096);
        }
    }

    @Property(tries = 3000)
    void anAcceptedSetIrqsStaysInsideItsVectors(@ForAll @IntRange(min = 0, max = 0x3f) int flags,
                                                @ForAll @IntRange(min = -1, max = 6) int index,
                                                @ForAll @IntRange(min = -2, max = 70) int start,
                                                @ForAll @IntRange(min = -2, max = 70) int count,
                                                @ForAll @IntRange(min = 0, max = 17) int fds) {
        ByteBuffer b = ByteBuffer.allocate(VfioUserHeader.SIZE + 20).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(16, 20).putInt(20, flags).putInt(24, index).putInt(28, start).putInt(32, count);
        SetIrqsPayload p = new SetIrqsPayload().wrap(b, 20);
        if (p.validate(VECTORS, fds) != VfioUserStatus.OK) {
            return;
        }
        assertTrue(index >= 0 && index < VECTORS.length);
        if (count == 0) {
            assertEquals(SetIrqsPayload.DATA_NONE | SetIrqsPayload.ACTION_TRIGGER, flags);
            assertEquals(0, fds);
        } else {
            assertTrue(start >= 0 && count > 0 && (long) start + count <= VECTORS[index]);
            assertTrue(fds == 0 || p.data() == SetIrqsPayload.DATA_EVENTFD && fds == count);
        }
    }
}
