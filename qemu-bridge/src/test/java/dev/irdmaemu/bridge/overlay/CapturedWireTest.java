package dev.irdmaemu.bridge.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.boot.GuestWire;
import dev.irdmaemu.bridge.vhost.FrameReceiver;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * {@link CapturedWire}: every frame, both ways, reaches the capture once and the adapter or the far end unchanged;
 * what the adapter refuses is still refused; the rest of the wire is the adapter's. And {@link VxlanPairSide.Part}
 * takes only the pair's two words.
 */
class CapturedWireTest {
    /** An adapter with one frame to send, which takes at most one frame in. */
    private static final class OneFrameAdapter implements GuestWire {
        final List<byte[]> in = new ArrayList<>();
        Runnable kick;

        @Override
        public boolean toGuest(BytesStore<?, ?> store, long offset, int length) {
            if (!in.isEmpty()) {
                return false;
            }
            byte[] b = new byte[length];
            store.read(offset, b, 0, length);
            in.add(b);
            return true;
        }

        @Override
        public int fromGuest(FrameReceiver receiver, int budget) {
            receiver.frame(BytesStore.wrap(new byte[] {9, 8, 7}), 0, 3);
            return 1;
        }

        @Override
        public void onKick(Runnable wakeup) {
            kick = wakeup;
        }

        @Override
        public boolean linkUp() {
            return false;
        }
    }

    @Test
    void bothDirectionsReachTheCaptureAndPassUnchanged() {
        OneFrameAdapter adapter = new OneFrameAdapter();
        List<String> captured = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        CapturedWire wire = new CapturedWire(adapter, (t, store, offset, length) -> {
            byte[] b = new byte[length];
            store.read(offset, b, 0, length);
            captured.add(java.util.Arrays.toString(b));
            times.add(t);
        });
        assertTrue(wire.toGuest(BytesStore.wrap(new byte[] {0, 1, 2, 3}), 1, 2));
        assertFalse(wire.toGuest(BytesStore.wrap(new byte[] {5}), 0, 1), "the adapter's refusal stands");
        List<String> out = new ArrayList<>();
        assertEquals(1, wire.fromGuest((store, offset, length) -> {
            byte[] b = new byte[length];
            store.read(offset, b, 0, length);
            out.add(java.util.Arrays.toString(b));
        }, 8));
        assertEquals(List.of("[1, 2]", "[5]", "[9, 8, 7]"), captured, "each frame once, both ways, in order");
        assertEquals(List.of("[9, 8, 7]"), out);
        assertEquals("[1, 2]", java.util.Arrays.toString(adapter.in.get(0)));
        assertTrue(times.get(0) >= 0 && times.get(2) >= times.get(0), "stamped since the wire was made: " + times);
        Runnable k = () -> { };
        wire.onKick(k);
        assertEquals(k, adapter.kick);
        assertFalse(wire.linkUp());
    }

    @Test
    void thePairsPartsAreServerAndClient() {
        assertEquals(VxlanPairSide.Part.SERVER, VxlanPairSide.Part.named("server"));
        assertEquals(VxlanPairSide.Part.CLIENT, VxlanPairSide.Part.named("client"));
        assertThrows(IllegalArgumentException.class, () -> VxlanPairSide.Part.named("Server"));
    }
}
