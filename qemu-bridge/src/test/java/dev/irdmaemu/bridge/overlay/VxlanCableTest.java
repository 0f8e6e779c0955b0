package dev.irdmaemu.bridge.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.boot.GuestWire;
import dev.irdmaemu.bridge.e810.FrameMailbox;
import dev.irdmaemu.bridge.vhost.FrameReceiver;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.VxlanHeader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two adapters' cables joined over a VXLAN segment on loopback, and what a hostile sender gets. */
class VxlanCableTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final long MAC_A = 0x02005e100001L;
    private static final long MAC_B = 0x02005e100002L;
    private final List<AutoCloseable> open = new ArrayList<>();

    /** An adapter's side of the cable: what the test makes it transmit, and what reached it. */
    private static final class FakeAdapter implements GuestWire, AutoCloseable {
        final FrameMailbox transmit = new FrameMailbox(64);
        final FrameMailbox received;
        volatile Runnable kick = () -> { };

        FakeAdapter(int slots) {
            received = new FrameMailbox(slots);
        }

        void send(byte[] frame) {
            BytesStore<?, ?> b = BytesStore.wrap(frame);
            assertTrue(transmit.offer(b, 0, frame.length));
            kick.run();
        }

        List<byte[]> take() {
            List<byte[]> out = new ArrayList<>();
            received.drain((s, o, l) -> {
                byte[] f = new byte[l];
                s.read(o, f, 0, l);
                out.add(f);
            }, 1_000);
            return out;
        }

        @Override
        public boolean toGuest(BytesStore<?, ?> store, long offset, int length) {
            return received.offer(store, offset, length);
        }

        @Override
        public int fromGuest(FrameReceiver receiver, int budget) {
            return transmit.drain(receiver, budget);
        }

        @Override
        public void onKick(Runnable wakeup) {
            kick = wakeup;
        }

        @Override
        public boolean linkUp() {
            return true;
        }

        @Override
        public void close() {
            transmit.close();
            received.close();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private <T extends AutoCloseable> T keep(T t) {
        open.add(t);
        return t;
    }

    private static byte[] frame(long dst, long src, int length, int fill) {
        byte[] f = new byte[length];
        BytesStore<?, ?> b = BytesStore.wrap(f);
        NetworkOrder.put48(b, 0, dst);
        NetworkOrder.put48(b, 6, src);
        NetworkOrder.put16(b, 12, 0x0800);
        for (int i = 14; i < length; i++) {
            f[i] = (byte) (fill + i);
        }
        return f;
    }

    private static void waitFor(LongSupplier value, long atLeast) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (value.getAsLong() < atLeast && System.nanoTime() < end) {
            Thread.sleep(2);
        }
        assertTrue(value.getAsLong() >= atLeast, "waited for " + atLeast + ", got " + value.getAsLong());
    }

    private DatagramChannel socket() throws IOException {
        DatagramChannel c = keep(DatagramChannel.open());
        c.bind(new InetSocketAddress(LOOPBACK, 0));
        return c;
    }

    private static InetSocketAddress at(DatagramChannel c) throws IOException {
        return (InetSocketAddress) c.getLocalAddress();
    }

    @Test
    void framesCrossTheSegmentBothWaysByteForByte() throws Exception {
        DatagramChannel portA = socket();
        DatagramChannel portB = socket();
        InetSocketAddress addrA = at(portA);
        InetSocketAddress addrB = at(portB);
        portA.close();
        portB.close();
        FakeAdapter a = keep(new FakeAdapter(64));
        FakeAdapter b = keep(new FakeAdapter(64));
        VxlanCable ca = keep(VxlanCable.open(a, addrA, List.of(addrB), 42));
        VxlanCable cb = keep(VxlanCable.open(b, addrB, List.of(addrA), 42));
        byte[] broadcast = frame(0xffffffffffffL, MAC_A, 60, 1);
        byte[] jumbo = frame(MAC_A, MAC_B, FrameMailbox.MAX_FRAME, 2);
        a.send(broadcast);
        waitFor(cb.counters()::received, 1);
        b.send(jumbo);
        waitFor(ca.counters()::received, 1);
        List<byte[]> atB = b.take();
        List<byte[]> atA = a.take();
        assertEquals(1, atB.size());
        assertTrue(java.util.Arrays.equals(broadcast, atB.get(0)));
        assertEquals(1, atA.size());
        assertTrue(java.util.Arrays.equals(jumbo, atA.get(0)), "a 9728-byte frame crosses whole");
        assertEquals(0, ca.counters().dropped() + cb.counters().dropped());
        assertNull(ca.counters().failure());
    }

    @Test
    void unicastGoesOnlyToTheEndpointItsMacWasLearnedFrom() throws Exception {
        DatagramChannel peer1 = socket();
        DatagramChannel peer2 = socket();
        FakeAdapter a = keep(new FakeAdapter(64));
        VxlanCable cable = keep(VxlanCable.open(a, new InetSocketAddress(LOOPBACK, 0), List.of(at(peer1), at(peer2)), 7));
        InetSocketAddress cableAt = cable.localAddress();
        // before learning: flooded to both
        a.send(frame(MAC_B, MAC_A, 64, 3));
        assertEquals(72, receiveLength(peer1));
        assertEquals(72, receiveLength(peer2));
        // MAC_B speaks from peer2: learned there
        peer2.send(datagram(7, frame(MAC_A, MAC_B, 64, 4)), cableAt);
        waitFor(cable.counters()::received, 1);
        a.send(frame(MAC_B, MAC_A, 64, 5));
        assertEquals(72, receiveLength(peer2));
        a.send(frame(0x333300000001L, MAC_A, 64, 6)); // multicast: everyone
        assertEquals(72, receiveLength(peer1), "peer1 saw only the flood and the multicast");
        assertEquals(72, receiveLength(peer2));
        assertNull(peer1.receive(ByteBuffer.allocate(100)), "nothing else reached peer1");
        assertEquals(5, cable.counters().sent());
    }

    /**
     * RFC 7348 section 5: a VTEP picks its UDP source port from a hash of the inner frame (Linux's vxlan device
     * does), so an endpoint's datagrams come from many ports: the endpoint is its address. What it sends from
     * another port is delivered and its MAC learned against it, and unicast to that MAC goes to its configured port.
     */
    @Test
    void anEndpointsDatagramsFromAnotherSourcePortAreItsOwn() throws Exception {
        DatagramChannel peer = socket();
        DatagramChannel hashedPort = socket();
        FakeAdapter a = keep(new FakeAdapter(64));
        VxlanCable cable = keep(VxlanCable.open(a, new InetSocketAddress(LOOPBACK, 0), List.of(at(peer)), 5));
        byte[] f = frame(MAC_A, MAC_B, 60, 9);
        hashedPort.send(datagram(5, f), cable.localAddress());
        waitFor(cable.counters()::received, 1);
        assertEquals(0, cable.counters().spoofed(), cable.counters().toString());
        assertTrue(java.util.Arrays.equals(f, a.take().get(0)));
        a.send(frame(MAC_B, MAC_A, 64, 1));
        assertEquals(72, receiveLength(peer), "unicast to the learned MAC goes to the endpoint's configured port");
        hashedPort.configureBlocking(false);
        assertNull(hashedPort.receive(ByteBuffer.allocate(100)), "not to the port it came from");
    }

    @Test
    void hostileDatagramsAreDroppedAndCountedByReason() throws Exception {
        DatagramChannel peer = socket();
        // a stranger is another address (any port of an endpoint's own address is that endpoint's)
        DatagramChannel stranger = keep(DatagramChannel.open());
        stranger.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
        FakeAdapter a = keep(new FakeAdapter(64));
        VxlanCable cable = keep(VxlanCable.open(a, new InetSocketAddress(LOOPBACK, 0), List.of(at(peer)), 99));
        InetSocketAddress to = cable.localAddress();
        byte[] good = frame(MAC_A, MAC_B, 60, 7);
        stranger.send(datagram(99, good), to);                                      // spoofed source
        peer.send(ByteBuffer.wrap(new byte[] {8, 0, 0, 0, 0, 0, 99, 0, 1, 2, 3}), to); // truncated
        ByteBuffer noFlag = datagram(99, good);
        noFlag.put(0, (byte) 0);
        peer.send(noFlag, to);                                                      // I flag clear
        peer.send(datagram(98, good), to);                                          // another VNI
        peer.send(datagram(99, new byte[FrameMailbox.MAX_FRAME + 1]), to);          // oversized inner frame
        ByteBuffer reserved = datagram(99, good);
        reserved.put(0, (byte) 0xff).put(1, (byte) 0xff).put(7, (byte) 0xff);
        peer.send(reserved, to);                                                    // reserved bits: ignored
        waitFor(() -> cable.counters().received() + cable.counters().dropped(), 6);
        VxlanCounters c = cable.counters();
        assertEquals(1, c.spoofed(), c.toString());
        assertEquals(1, c.truncated(), c.toString());
        assertEquals(1, c.badHeader(), c.toString());
        assertEquals(1, c.wrongVni(), c.toString());
        assertEquals(1, c.oversized(), c.toString());
        assertEquals(1, c.received(), "only the datagram with reserved bits set (RFC 7348: ignored on receipt)");
        List<byte[]> in = a.take();
        assertEquals(1, in.size());
        assertTrue(java.util.Arrays.equals(good, in.get(0)));
        assertNull(c.failure(), "hostile input never stops the cable");
    }

    @Test
    void aFullAdapterDropsAndCountsInsteadOfBlocking() throws Exception {
        DatagramChannel peer = socket();
        FakeAdapter a = keep(new FakeAdapter(2));
        VxlanCable cable = keep(VxlanCable.open(a, new InetSocketAddress(LOOPBACK, 0), List.of(at(peer)), 1));
        for (int i = 0; i < 5; i++) {
            peer.send(datagram(1, frame(MAC_A, MAC_B, 60, i)), cable.localAddress());
        }
        waitFor(() -> cable.counters().received(), 5);
        assertEquals(3, cable.counters().adapterFull());
        assertEquals(2, a.take().size());
    }

    @Test
    void badConfigurationIsRefusedUpFront() {
        FakeAdapter a = keep(new FakeAdapter(2));
        InetSocketAddress any = new InetSocketAddress(LOOPBACK, 0);
        InetSocketAddress peer = new InetSocketAddress(LOOPBACK, 4789);
        assertThrows(IllegalArgumentException.class, () -> VxlanCable.open(a, any, List.of(peer), 1 << 24));
        assertThrows(IllegalArgumentException.class, () -> VxlanCable.open(a, any, List.of(), 1));
        assertThrows(IllegalArgumentException.class, () -> VxlanCable.open(a, any,
                List.of(InetSocketAddress.createUnresolved("nowhere.invalid", 4789)), 1));
        assertThrows(IllegalArgumentException.class, () -> VxlanCable.open(a, any, List.of(peer.getPort() == 0 ? peer
                : new InetSocketAddress(LOOPBACK, 0)), 1));
    }

    private static ByteBuffer datagram(int vni, byte[] inner) {
        byte[] d = new byte[VxlanHeader.LENGTH + inner.length];
        VxlanHeader.write(BytesStore.wrap(d), 0, vni);
        System.arraycopy(inner, 0, d, VxlanHeader.LENGTH, inner.length);
        return ByteBuffer.wrap(d);
    }

    /** The length of the next datagram on {@code c}, waiting at most 10 s (0 when none came). */
    private static int receiveLength(DatagramChannel c) throws IOException, InterruptedException {
        c.configureBlocking(false);
        ByteBuffer b = ByteBuffer.allocate(20_000);
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (c.receive(b) == null) {
            if (System.nanoTime() > end) {
                return 0;
            }
            Thread.sleep(1);
        }
        return b.position();
    }
}
