package dev.irdmaemu.model.tcp;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import dev.irdmaemu.model.LeakCheck;
import dev.irdmaemu.model.port.FrameTransmitter;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Two offloaded TCP engines, A and B, joined by a {@link Link} as if the CM had just handed both QPs over in
 * ESTABLISHED. Each side has a stream source (a position-dependent byte pattern, so a lost, duplicated or
 * misplaced byte shows) and a sink that checks every delivered byte against the pattern.
 */
final class TcpPair implements AutoCloseable {
    static final long MAC_A = 0x02_00_00_00_00_0aL;
    static final long MAC_B = 0x02_00_00_00_00_0bL;
    static final int IP_A = IpAddress.ipv4(192, 0, 2, 1);
    static final int IP_B = IpAddress.ipv4(192, 0, 2, 2);
    static final int PORT_A = 40000;
    static final int PORT_B = 20000;
    static final long ISS_A = 0xffff_f000L; // wraps 2^32 early in the stream
    static final long ISS_B = 0x1234_5678L;
    static final int MSS = 1460;

    final SimScheduler scheduler;
    final Link link;
    final Side a;
    final Side b;

    TcpPair(long seed, FaultProfile aToB, FaultProfile bToA) {
        this(seed, aToB, bToA, defaults(true), defaults(false));
    }

    TcpPair(long seed, FaultProfile aToB, FaultProfile bToA, TcpConnectionParams pa, TcpConnectionParams pb) {
        scheduler = new SimScheduler(seed);
        link = new Link(scheduler);
        a = new Side("A", pa);
        b = new Side("B", pb);
        a.port = link.attach(MAC_A, aToB, a.engine::receive);
        b.port = link.attach(MAC_B, bToA, b.engine::receive);
    }

    static TcpConnectionParams defaults(boolean sideA) {
        // 256 KiB buffers advertised with a window scale of 3 (65535 << 3 covers them).
        return sideA
                ? TcpConnectionParams.ipv4(MAC_A, MAC_B, IP_A, PORT_A, IP_B, PORT_B, ISS_A, ISS_B, MSS)
                        .toBuilder().window(65535 << 3, 3, 3).build()
                : TcpConnectionParams.ipv4(MAC_B, MAC_A, IP_B, PORT_B, IP_A, PORT_A, ISS_B, ISS_A, MSS)
                        .toBuilder().window(65535 << 3, 3, 3).build();
    }

    static byte pattern(long streamOffset, long salt) {
        long x = (streamOffset + salt) * 0x9E3779B97F4A7C15L;
        return (byte) (x >>> 56 ^ x >>> 29);
    }

    /** Runs until both sides have nothing more to send and everything queued is acknowledged, within a bound. */
    void runUntilQuiet(long limitNanos) {
        long limit = scheduler.now() + limitNanos;
        while (scheduler.now() < limit) {
            if (a.done() && b.done() && a.engine.unacknowledged() == 0 && b.engine.unacknowledged() == 0
                    && link.framesInFlight() == 0) {
                return;
            }
            if (!scheduler.runNext()) {
                return;
            }
        }
    }

    /**
     * The teardown of a scenario: both ends abort (RST, RFC 9293 §3.10.5), the link drains, and then nothing may
     * be left armed on the scheduler: no retransmit, keepalive, delayed-ACK or TIME-WAIT timer of either engine.
     */
    void abortAndAssertNoTimers(String scenario) {
        a.engine.abort();
        b.engine.abort();
        scheduler.runUntilIdle(scheduler.now() + 3_600_000_000_000L);
        if (a.engine.state() != TcpState.CLOSED || b.engine.state() != TcpState.CLOSED) {
            throw new AssertionError("not closed after abort: " + a.engine.state() + " / " + b.engine.state());
        }
        LeakCheck.assertNoTimers(scheduler, scenario);
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }

    final class Side implements TcpReceiver, OffloadedTcp.Listener, FrameTransmitter {
        final String name;
        final OffloadedTcp engine;
        final BytesStore<?, Void> chunk = BytesStore.nativeStoreWithFixedCapacity(64 * 1024);
        final long salt;
        final List<TcpEvent> events = new ArrayList<>();
        LinkPort port;

        // Source.
        long toSend;
        long queued;
        int fpdu = 4096;

        // Sink.
        long received;
        long mismatches;
        long receiveCapacity = 256 * 1024;
        boolean hold;
        long held;
        long outOfOrderCalls;

        // Transmit filters.
        /** When set, every data segment this side puts on the wire as {sequence number, payload length}. */
        List<long[]> dataSegments;
        private final dev.irdmaemu.fw.frame.TcpPacket parsed = new dev.irdmaemu.fw.frame.TcpPacket();
        boolean cut;
        int dropDataFrameCountdown;
        long framesDroppedByFilter;

        Side(String name, TcpConnectionParams params) {
            this.name = name;
            this.salt = name.hashCode() * 1_000_003L;
            this.engine = new OffloadedTcp(scheduler, params, this, this, this);
        }

        /** Queues {@code n} more bytes of the pattern and starts pumping. */
        void write(long n) {
            toSend += n;
            pump();
        }

        void pump() {
            while (queued < toSend) {
                int n = (int) Math.min(fpdu, toSend - queued);
                for (int i = 0; i < n; i++) {
                    chunk.writeByte(i, pattern(queued + i, salt));
                }
                if (!engine.send(chunk, 0, n)) {
                    return;
                }
                queued += n;
            }
        }

        boolean done() {
            return queued == toSend;
        }

        /** Releases what a holding sink kept and tells the engine. */
        void release() {
            hold = false;
            held = 0;
            engine.receiveSpaceChanged();
        }

        @Override
        public void deliver(BytesStore<?, ?> store, long offset, int length) {
            long expectSalt = (this == a ? b : a).salt;
            for (int i = 0; i < length; i++) {
                if (store.readByte(offset + i) != pattern(received + i, expectSalt)) {
                    mismatches++;
                }
            }
            received += length;
            if (hold) {
                held += length;
            }
        }

        @Override
        public long freeSpace() {
            return receiveCapacity - held;
        }

        @Override
        public void outOfOrder(long sequence, BytesStore<?, ?> store, long offset, int length) {
            outOfOrderCalls++;
        }

        @Override
        public void event(OffloadedTcp connection, TcpEvent event) {
            events.add(event);
        }

        @Override
        public void sendSpaceAvailable(OffloadedTcp connection) {
            pump();
        }

        @Override
        public void transmit(BytesStore<?, ?> store, long offset, int length) {
            if (dataSegments != null && parsed.wrap(store, offset, length).validate().accepted()
                    && parsed.tcpPayloadLength() > 0) {
                dataSegments.add(new long[] {parsed.tcp().sequenceNumber(), parsed.tcpPayloadLength()});
            }
            if (cut) {
                framesDroppedByFilter++;
                return;
            }
            if (dropDataFrameCountdown > 0 && length > 54 && --dropDataFrameCountdown == 0) {
                framesDroppedByFilter++;
                return;
            }
            port.transmit(store, offset, length);
        }

        void close() {
            engine.release();
            chunk.releaseLast();
        }
    }
}
