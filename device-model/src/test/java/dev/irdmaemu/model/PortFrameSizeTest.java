package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.model.port.EthernetPort;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The port's receive FIFO and frame sizes: frames up to the E810's largest (9728 bytes with the FCS, which ice
 * programs whatever the MTU: ice_common.c ice_aq_set_mac_cfg with ICE_AQ_SET_MAC_FRAME_SIZE_MAX) pass whole, in
 * order, however their sizes mix in the FIFO's byte ring; a longer one, or one the waiting frames leave no room
 * for, is dropped and counted, never truncated or thrown on.
 */
class PortFrameSizeTest {
    private final DriverNode d = BringUpTest.listening();
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(EthernetPort.MAX_FRAME + 100);
    private final List<byte[]> lan = new ArrayList<>();

    @BeforeEach
    void up() {
        d.dev.port().setLanSink((s, o, l) -> {
            byte[] b = new byte[l];
            s.read(o, b, 0, l);
            lan.add(b);
        });
    }

    @AfterEach
    void close() {
        frame.releaseLast();
        d.close();
    }

    /** A frame of {@code length} bytes, not TCP (it goes to the LAN side), its bytes numbered from {@code mark}. */
    private byte[] frame(int length, int mark) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (mark + i * 13);
        }
        b[12] = 0x08; // EtherType ARP: nothing for the RDMA block
        b[13] = 0x06;
        return b;
    }

    private void receive(byte[] b) {
        frame.write(0, b, 0, b.length);
        d.dev.port().receive(frame, 0, b.length);
    }

    @Test
    void aJumboFrameOfTheLargestSizeReachesTheLanSideWhole() {
        byte[] jumbo = frame(EthernetPort.MAX_FRAME, 1);
        receive(jumbo);
        d.run();
        assertEquals(1, lan.size());
        assertArrayEquals(jumbo, lan.get(0));
        assertEquals(0, d.dev.port().rxOverflow());
    }

    @Test
    void aFrameLongerThanTheLargestIsDroppedAndCounted() {
        receive(frame(EthernetPort.MAX_FRAME + 1, 2));
        d.run();
        assertEquals(0, lan.size(), "not truncated into a shorter frame");
        assertEquals(1, d.dev.port().rxOverflow());
        assertEquals(1, d.dev.port().rxDropped());
    }

    @Test
    void framesOfMixedSizesLeaveInOrderAcrossTheRingsEnd() {
        List<byte[]> sent = new ArrayList<>();
        // more than the ring holds in all, drained as they go: the ring wraps several times
        for (int round = 0; round < 40; round++) {
            for (int i = 0; i < 6; i++) {
                byte[] b = frame(i % 2 == 0 ? 9000 + round : 60 + 17 * i, round * 6 + i);
                sent.add(b);
                receive(b);
            }
            d.run();
        }
        assertEquals(0, d.dev.port().rxOverflow());
        assertEquals(sent.size(), lan.size());
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), lan.get(i), "frame " + i);
        }
    }

    @Test
    void jumboFramesBeyondTheRingsRoomAreDroppedWhileSmallOnesStillFitTheSlots() {
        // the ring holds 256 frames of 2 KiB: about 53 of 9.7 KB; the rest waits for nothing and is dropped
        int fit = EthernetPort.RX_RING_BYTES / ((EthernetPort.MAX_FRAME + 7) & ~7);
        for (int i = 0; i < fit + 10; i++) {
            receive(frame(EthernetPort.MAX_FRAME, i));
        }
        assertEquals(10, d.dev.port().rxOverflow());
        d.run();
        assertEquals(fit, lan.size());
        // once drained, a full FIFO of small frames fits again: 256 slots
        lan.clear();
        for (int i = 0; i < EthernetPort.RX_SLOTS; i++) {
            receive(frame(2048, i));
        }
        d.run();
        assertEquals(EthernetPort.RX_SLOTS, lan.size());
        assertEquals(10, d.dev.port().rxOverflow());
    }
}
