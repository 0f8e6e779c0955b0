package dev.irdmaemu.fw.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class LinkTest {
    private static final long A = 0x02_00_00_00_00_0aL;
    private static final long B = 0x02_00_00_00_00_0bL;

    /** A 64-byte frame to {@code dst} whose byte 20 carries a sequence number. */
    private static BytesStore<?, ?> frame(long dst, int seq) {
        byte[] b = new byte[64];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) (dst >>> (40 - 8 * i));
            b[6 + i] = (byte) (A >>> (40 - 8 * i));
        }
        b[12] = 0x08;
        b[20] = (byte) seq;
        return BytesStore.wrap(b);
    }

    private record Got(long time, byte[] bytes, boolean corrupted) {
    }

    private static final class Sink implements FrameReceiver {
        final List<Got> got = new ArrayList<>();
        final SimScheduler s;
        LinkPort port;

        Sink(SimScheduler s) {
            this.s = s;
        }

        @Override
        public void receive(BytesStore<?, ?> store, long offset, int length) {
            byte[] b = new byte[length];
            store.read(offset, b, 0, length);
            got.add(new Got(s.now(), b, port.deliveringCorrupted()));
        }
    }

    @Test
    void deliversByDestinationMacAfterTheDelayInOrder() {
        SimScheduler s = new SimScheduler(1);
        List<Long> tapped = new ArrayList<>();
        Link link = new Link(s, (t, store, off, len) -> tapped.add(t));
        Sink sa = new Sink(s);
        Sink sb = new Sink(s);
        LinkPort pa = link.attach(A, FaultProfile.delay(5_000).withJitter(3_000), sa);
        sa.port = pa;
        sb.port = link.attach(B, FaultProfile.NONE, sb);
        for (int i = 0; i < 50; i++) {
            pa.transmit(frame(B, i), 0, 64);
        }
        pa.transmit(frame(A, 99), 0, 64);
        assertTrue(s.runUntilIdle(1_000_000));
        assertEquals(50, sb.got.size());
        for (int i = 0; i < 50; i++) {
            assertEquals(i, sb.got.get(i).bytes()[20], "order kept despite jitter");
            assertTrue(sb.got.get(i).time() >= 5_000);
        }
        assertEquals(1, sa.got.size(), "a frame to its own MAC comes back (loopback)");
        assertEquals(51, tapped.size(), "the tap sees every frame put on the link");
    }

    @Test
    void faultsAreSeededAndCounted() {
        int[] first = run(42);
        int[] again = run(42);
        assertEquals(first[0], again[0], "same seed, same run");
        assertEquals(first[1], again[1]);
        // 10% loss of 10 000 frames, 5% duplication: comfortably inside these bounds for any seed
        assertTrue(first[0] > 8_700 && first[0] < 9_900, "delivered " + first[0]);
    }

    private static int[] run(long seed) {
        SimScheduler s = new SimScheduler(seed);
        Link link = new Link(s);
        Sink sb = new Sink(s);
        LinkPort pa = link.attach(A, new FaultProfile(0.10, 0.05, 0.05, 0, 1_000, 0, 50_000), (st, o, l) -> { });
        sb.port = link.attach(B, FaultProfile.NONE, sb);
        for (int i = 0; i < 10_000; i++) {
            pa.transmit(frame(B, i), 0, 64);
            s.runFor(100);
        }
        s.runUntilIdle(Long.MAX_VALUE);
        assertEquals(10_000, link.framesCarried());
        assertEquals(10_000 - link.framesLost() + link.framesDuplicated(), sb.got.size());
        assertTrue(link.framesReordered() > 0);
        int outOfOrder = 0;
        for (int i = 1; i < sb.got.size(); i++) {
            if ((byte) (sb.got.get(i).bytes()[20] - sb.got.get(i - 1).bytes()[20]) < 0) {
                outOfOrder++;
            }
        }
        assertTrue(outOfOrder > 0, "reordering shows at the receiver");
        return new int[] {sb.got.size(), (int) link.framesLost()};
    }

    @Test
    void corruptionFlipsExactlyOneBitAfterTheEthernetHeader() {
        SimScheduler s = new SimScheduler(3);
        Link link = new Link(s);
        Sink sb = new Sink(s);
        LinkPort pa = link.attach(A, FaultProfile.NONE.withCorruption(1), (st, o, l) -> { });
        sb.port = link.attach(B, FaultProfile.NONE, sb);
        BytesStore<?, ?> f = frame(B, 7);
        byte[] original = new byte[64];
        f.read(0, original, 0, 64);
        for (int i = 0; i < 200; i++) {
            pa.transmit(f, 0, 64);
        }
        s.runUntilIdle(Long.MAX_VALUE);
        assertEquals(200, sb.got.size());
        for (Got g : sb.got) {
            assertTrue(g.corrupted());
            int bits = 0;
            for (int i = 0; i < 64; i++) {
                int d = (g.bytes()[i] ^ original[i]) & 0xff;
                bits += Integer.bitCount(d);
                if (d != 0) {
                    assertTrue(i >= 14, "the Ethernet header is left alone");
                }
            }
            assertEquals(1, bits);
        }
        assertEquals(200, link.framesCorrupted());
    }

    @Test
    void everyFrameInFlightIsOnePendingEventAndDeliveriesInterleaveWithTimersByTransmitOrder() {
        SimScheduler s = new SimScheduler(5);
        Link link = new Link(s);
        Sink sb = new Sink(s);
        // reordered and duplicated frames take their buffer's own timer, the rest the port's FIFO
        LinkPort pa = link.attach(A, new FaultProfile(0, 0.3, 0.3, 0, 1_000, 0, 3_000), (st, o, l) -> { });
        sb.port = link.attach(B, FaultProfile.NONE, sb);
        List<String> order = new ArrayList<>();
        var marker = s.newTimer("marker", () -> order.add("marker@" + s.now()));
        for (int i = 0; i < 40; i++) {
            pa.transmit(frame(B, i), 0, 64);
            if (i == 20) {
                marker.scheduleIn(1_000); // armed after frame 20, due with the frames
            }
            assertEquals(link.framesInFlight() + (marker.isPending() ? 1 : 0), s.pendingTimers());
        }
        int inFlight = link.framesInFlight();
        int delivered = 0;
        while (s.runNext()) {
            if (sb.got.size() > delivered) {
                delivered = sb.got.size();
                order.add("frame" + sb.got.get(delivered - 1).bytes()[20] + "@" + s.now());
            }
            assertEquals(link.framesInFlight() + (marker.isPending() ? 1 : 0), s.pendingTimers());
        }
        assertEquals(inFlight, sb.got.size());
        // all were sent at time 0: at the marker's instant, the frames sent before it was armed (0..20) run
        // before it and the later ones after it, as if each frame had its own timer
        int at = order.indexOf("marker@1000");
        int sameInstant = 0;
        for (int i = 0; i < order.size(); i++) {
            String e = order.get(i);
            if (e.startsWith("frame") && e.endsWith("@1000")) {
                sameInstant++;
                int frame = Integer.parseInt(e.substring(5, e.indexOf('@')));
                assertTrue(frame <= 20 ? i < at : i > at, order.toString());
            }
        }
        assertTrue(sameInstant > 21 && sameInstant < 40, order.toString());
    }

    @Test
    void aGroupAddressReachesEveryPortButTheSenderAnIndividualOneOnlyItsOwner() {
        SimScheduler s = new SimScheduler(1);
        Link link = new Link(s);
        Sink sa = new Sink(s);
        Sink sb = new Sink(s);
        Sink sc = new Sink(s);
        long c = 0x02_00_00_00_00_0cL;
        LinkPort pa = link.attach(A, FaultProfile.NONE, sa);
        sa.port = pa;
        sb.port = link.attach(B, FaultProfile.NONE, sb);
        sc.port = link.attach(c, FaultProfile.NONE, sc);
        pa.transmit(frame(0xff_ff_ff_ff_ff_ffL, 1), 0, 64); // broadcast
        pa.transmit(frame(0x01_00_5e_00_00_01L, 2), 0, 64); // IPv4 multicast: the I/G bit set
        pa.transmit(frame(0x03_00_00_00_00_0cL, 3), 0, 64); // group bit with C's other bits: a group, not C
        pa.transmit(frame(c, 4), 0, 64);
        pa.transmit(frame(c | 1L << 47, 5), 0, 64); // C with the first octet's top bit set: an individual address nobody has
        assertTrue(s.runUntilIdle(1_000_000));
        assertEquals(0, sa.got.size(), "the sender never hears its own group frames");
        assertEquals(List.of(1, 2, 3), sb.got.stream().map(g -> (int) g.bytes()[20]).toList());
        assertEquals(List.of(1, 2, 3, 4), sc.got.stream().map(g -> (int) g.bytes()[20]).toList());
    }

    @Test
    void refusesFramesItCannotCarry() {
        SimScheduler s = new SimScheduler(1);
        Link link = new Link(s);
        LinkPort pa = link.attach(A, FaultProfile.NONE, (st, o, l) -> { });
        assertThrows(IllegalArgumentException.class, () -> pa.transmit(BytesStore.wrap(new byte[4096]), 0, 4096));
        assertThrows(IllegalArgumentException.class, () -> new FaultProfile(1.5, 0, 0, 0, 0, 0, 0));
    }
}
