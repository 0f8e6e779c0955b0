package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.FakeQemu.R0_GPA;
import static dev.irdmaemu.bridge.vhost.FakeQemu.R1_GPA;
import static dev.irdmaemu.bridge.vhost.SplitVirtqueue.DESC_F_INDIRECT;
import static dev.irdmaemu.bridge.vhost.SplitVirtqueue.DESC_F_NEXT;
import static dev.irdmaemu.bridge.vhost.SplitVirtqueue.DESC_F_WRITE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.NET_HEADER_SIZE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.RX_QUEUE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.TX_QUEUE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.vhost.BackendFixture.Collector;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The back-end against a Java front-end that replays QEMU 11.1's message order (issue 6 "Seen here with a
 * probe": GET_FEATURES, SET_OWNER, GET_FEATURES, SET_VRING_CALL/ERR per ring; SET_FEATURES, SET_MEM_TABLE with 2
 * fds, NUM/BASE/ADDR/KICK/CALL per ring; GET_VRING_BASE twice at shutdown), once as probed (no protocol features)
 * and once with protocol features (REPLY_ACK, SET_VRING_ENABLE) and every virtio feature we offer.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VhostUserBackendTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "protocol features {0}")
    @ValueSource(booleans = {false, true})
    void framesPassBothWaysByteExactInQemuOrderAndNothingLeaks(boolean protocol) throws Exception {
        long features = protocol ? BackendFixture.STANDARD_FEATURES
                : 1L << VirtioNet.F_VERSION_1 | 1L << VirtioNet.F_INDIRECT_DESC;
        try (BackendFixture b = new BackendFixture(dir, "a")) {
            FakeQemu q = b.connect();
            long mappedBefore = BackendFixture.mappingsOf(q.memFile);
            FakeQemu.AFPipeHolder initialCall = new FakeQemu.AFPipeHolder();
            long offered = q.connectSequence(protocol, initialCall.pipes);
            assertEquals(VirtioNet.OFFERED_FEATURES, offered);
            assertTrue((offered & 1L << VirtioNet.F_VERSION_1) != 0);
            q.startSequence(features, protocol);
            assertTrue(b.port.linkUp());
            // two regions mapped; the replaced call descriptors closed (only our own two ends remain)
            assertEquals(mappedBefore + 2, BackendFixture.mappingsOf(q.memFile));
            for (int r = 0; r < 2; r++) {
                assertEquals(2, BackendFixture.descriptorsSharing(FakeQemu.fd(initialCall.pipes[r].sink())));
                assertEquals(3, BackendFixture.descriptorsSharing(FakeQemu.fd(q.kick[r].sink())));
                assertEquals(3, BackendFixture.descriptorsSharing(FakeQemu.fd(q.call[r].sink())));
            }

            transmitChains(q, b);
            receiveIntoChains(q, b, protocol);
            if (protocol) {
                eventIdxSuppressesInterrupts(q, b);
                mergeableBuffers(q, b);
                oneInterruptPerRingAtTheRoundsEnd(q, b);
            } else {
                noInterruptFlagSuppressesInterrupts(q, b);
            }

            // shutdown: GET_VRING_BASE per ring answers the next avail index and stops the ring
            int rxTaken = q.availIdx[RX_QUEUE];
            int txTaken = q.availIdx[TX_QUEUE];
            q.send(VhostUserRequest.GET_VRING_BASE, FakeQemu.state(RX_QUEUE, 0));
            ByteBuffer rx = q.reply(VhostUserRequest.GET_VRING_BASE);
            assertEquals(RX_QUEUE, rx.getInt(0));
            assertEquals(rxTaken, rx.getInt(4));
            q.send(VhostUserRequest.GET_VRING_BASE, FakeQemu.state(TX_QUEUE, 0));
            ByteBuffer tx = q.reply(VhostUserRequest.GET_VRING_BASE);
            assertEquals(TX_QUEUE, tx.getInt(0));
            assertEquals(txTaken, tx.getInt(4));
            assertFalse(b.port.linkUp());
            BytesStore<?, ?> f = BackendFixture.store(new byte[60]);
            assertFalse(b.port.transmitToGuest(f, 0, 60), "a stopped ring takes no frames");
            f.releaseLast();
            // kick descriptors closed at GET_VRING_BASE
            for (int r = 0; r < 2; r++) {
                assertEquals(2, BackendFixture.descriptorsSharing(FakeQemu.fd(q.kick[r].sink())));
            }

            q.socket.close();
            assertTrue(b.backend.awaitConnectionsEnded(1, FakeQemu.TIMEOUT_MILLIS));
            assertEquals(mappedBefore, BackendFixture.mappingsOf(q.memFile), "guest memory unmapped");
            for (int r = 0; r < 2; r++) {
                assertEquals(2, BackendFixture.descriptorsSharing(FakeQemu.fd(q.call[r].sink())));
                assertEquals(2, BackendFixture.descriptorsSharing(FakeQemu.fd(q.err[r].sink())));
            }
            q.close();
            initialCall.close();
        }
    }

    /** Three chains in one kick: split over descriptors and regions, a header split in two, an indirect table. */
    private static void transmitChains(FakeQemu q, BackendFixture b) throws Exception {
        byte[] f1 = BackendFixture.randomBytes(300, 1);
        byte[] f2 = BackendFixture.randomBytes(60, 2);
        byte[] f3 = BackendFixture.randomBytes(1000, 3);
        // header fields are not frame bytes; with flags and gso_type 0 (no offload) the others mean nothing
        byte[] junkHeader = BackendFixture.randomBytes(NET_HEADER_SIZE, 4);
        junkHeader[0] = 0;
        junkHeader[1] = 0;

        // chain 0: header | 100 bytes in region 1 | 200 bytes in region 0
        q.put(R0_GPA + 0x2000, junkHeader);
        q.put(R1_GPA + 0x20000, Arrays.copyOfRange(f1, 0, 100));
        q.put(R0_GPA + 0x3000, Arrays.copyOfRange(f1, 100, 300));
        q.desc(TX_QUEUE, 0, R0_GPA + 0x2000, NET_HEADER_SIZE, DESC_F_NEXT, 1);
        q.desc(TX_QUEUE, 1, R1_GPA + 0x20000, 100, DESC_F_NEXT, 2);
        q.desc(TX_QUEUE, 2, R0_GPA + 0x3000, 200, 0, 0);
        // chain 3: 5 header bytes | 7 header bytes + 50 frame bytes | 10 frame bytes (descriptors out of order)
        byte[] mid = new byte[57];
        System.arraycopy(junkHeader, 5, mid, 0, 7);
        System.arraycopy(f2, 0, mid, 7, 50);
        q.put(R1_GPA + 0x21000, Arrays.copyOfRange(junkHeader, 0, 5));
        q.put(R1_GPA + 0x22000, mid);
        q.put(R1_GPA + 0x23000, Arrays.copyOfRange(f2, 50, 60));
        q.desc(TX_QUEUE, 3, R1_GPA + 0x21000, 5, DESC_F_NEXT, 9);
        q.desc(TX_QUEUE, 9, R1_GPA + 0x22000, 57, DESC_F_NEXT, 4);
        q.desc(TX_QUEUE, 4, R1_GPA + 0x23000, 10, 0, 0);
        // chain 5: an indirect table of 3 entries walked 0 -> 2 -> 1
        long table = R1_GPA + 0x40000;
        q.put(R1_GPA + 0x41000, junkHeader);
        q.put(R0_GPA + 0x8000, Arrays.copyOfRange(f3, 0, 400));
        q.put(R1_GPA + 0x42000, Arrays.copyOfRange(f3, 400, 1000));
        q.descAt(table, R1_GPA + 0x41000, NET_HEADER_SIZE, DESC_F_NEXT, 2);
        q.descAt(table + 32, R0_GPA + 0x8000, 400, DESC_F_NEXT, 1);
        q.descAt(table + 16, R1_GPA + 0x42000, 600, 0, 0);
        q.desc(TX_QUEUE, 5, table, 48, DESC_F_INDIRECT, 0);

        q.offer(TX_QUEUE, 0);
        q.offer(TX_QUEUE, 3);
        q.offer(TX_QUEUE, 5);
        q.kick(TX_QUEUE);
        b.awaitKick();
        Collector c = new Collector();
        assertEquals(2, b.port.pollFromGuest(c, 2), "the budget bounds one poll");
        assertEquals(1, b.port.pollFromGuest(c, 64));
        assertEquals(0, b.port.pollFromGuest(c, 64));
        b.port.flushToGuest();
        assertEquals(3, c.frames.size());
        assertArrayEquals(f1, c.frames.get(0));
        assertArrayEquals(f2, c.frames.get(1));
        assertArrayEquals(f3, c.frames.get(2));
        assertEquals(3, q.usedIdx(TX_QUEUE));
        assertArrayEquals(new long[] {0, 0}, q.used(TX_QUEUE, 0));
        assertArrayEquals(new long[] {3, 0}, q.used(TX_QUEUE, 1));
        assertArrayEquals(new long[] {5, 0}, q.used(TX_QUEUE, 2));
        assertTrue(q.callsPending(TX_QUEUE) >= 1, "the guest was interrupted");
        assertEquals(3, b.port.framesFromGuest());
    }

    /** A frame into a chain whose first descriptor holds only 8 of the 12 header bytes. */
    private static void receiveIntoChains(FakeQemu q, BackendFixture b, boolean mergeable) throws Exception {
        byte[] frame = BackendFixture.randomBytes(1400, 5);
        q.put(R1_GPA + 0x60000, BackendFixture.randomBytes(8, 6));
        q.desc(RX_QUEUE, 0, R1_GPA + 0x60000, 8, DESC_F_WRITE | DESC_F_NEXT, 1);
        q.desc(RX_QUEUE, 1, R0_GPA + 0x10000, 2000, DESC_F_WRITE, 0);
        BytesStore<?, ?> s = BackendFixture.store(frame);
        assertFalse(b.port.transmitToGuest(s, 0, frame.length), "no receive buffer yet: dropped");
        assertEquals(1, b.port.framesToGuestDropped());
        q.offer(RX_QUEUE, 0);
        assertTrue(b.port.transmitToGuest(s, 0, frame.length));
        s.releaseLast();
        assertEquals(1, q.usedIdx(RX_QUEUE));
        assertArrayEquals(new long[] {0, NET_HEADER_SIZE + frame.length}, q.used(RX_QUEUE, 0));
        byte[] header = new byte[NET_HEADER_SIZE];
        System.arraycopy(q.get(R1_GPA + 0x60000, 8), 0, header, 0, 8);
        System.arraycopy(q.get(R0_GPA + 0x10000, 4), 0, header, 8, 4);
        byte[] expected = new byte[NET_HEADER_SIZE];
        expected[VirtioNet.NET_HEADER_NUM_BUFFERS] = 1; // num_buffers 1, everything else zero
        assertArrayEquals(expected, header);
        assertArrayEquals(frame, q.get(R0_GPA + 0x10000 + 4, frame.length));
        b.port.flushToGuest();
        assertTrue(q.callsPending(RX_QUEUE) >= 1);
        assertEquals(1, b.port.framesToGuest());
    }

    /** virtio 1.x §2.7.7.2: no interrupt until used idx passes used_event; avail_event asks for the next kick. */
    private static void eventIdxSuppressesInterrupts(FakeQemu q, BackendFixture b) throws Exception {
        q.callsPending(TX_QUEUE);
        int used = q.usedIdx(TX_QUEUE);
        q.setUsedEvent(TX_QUEUE, used + 1); // interrupt after the second frame from now, not the first
        byte[] f = BackendFixture.randomBytes(80, 9);
        q.put(R0_GPA + 0x20000, new byte[NET_HEADER_SIZE]);
        q.put(R0_GPA + 0x20000 + NET_HEADER_SIZE, f);
        q.desc(TX_QUEUE, 10, R0_GPA + 0x20000, NET_HEADER_SIZE + f.length, 0, 0);
        q.offer(TX_QUEUE, 10);
        Collector c = new Collector();
        assertEquals(1, b.port.pollFromGuest(c, 64));
        b.port.flushToGuest();
        assertEquals(0, q.callsPending(TX_QUEUE), "used_event not reached: no interrupt");
        assertEquals(q.availIdx[TX_QUEUE], q.availEvent(TX_QUEUE), "avail_event: kick me at the next buffer");
        q.desc(TX_QUEUE, 11, R0_GPA + 0x20000, NET_HEADER_SIZE + f.length, 0, 0);
        q.offer(TX_QUEUE, 11);
        assertEquals(1, b.port.pollFromGuest(c, 64));
        b.port.flushToGuest();
        assertEquals(1, q.callsPending(TX_QUEUE), "used_event reached: one interrupt");
        assertArrayEquals(f, c.frames.get(1));
    }

    /**
     * The guest is interrupted at the end of the model's round (flushToGuest), once per ring for everything the
     * round did, not per frame or per transmit batch mid-round: each signal wakes QEMU and the guest, which on a
     * machine with few cores preempt the model before it has sent its replies (issue 17).
     */
    private static void oneInterruptPerRingAtTheRoundsEnd(FakeQemu q, BackendFixture b) throws Exception {
        b.port.flushToGuest();
        q.callsPending(TX_QUEUE);
        q.callsPending(RX_QUEUE);
        q.setUsedEvent(TX_QUEUE, q.usedIdx(TX_QUEUE)); // interrupt at the next buffer given back
        q.setUsedEvent(RX_QUEUE, q.usedIdx(RX_QUEUE)); // and at the next frame received
        byte[] f = BackendFixture.randomBytes(90, 13);
        q.put(R0_GPA + 0x21000, new byte[NET_HEADER_SIZE]);
        q.put(R0_GPA + 0x21000 + NET_HEADER_SIZE, f);
        Collector c = new Collector();
        for (int head = 12; head < 15; head++) {
            q.desc(TX_QUEUE, head, R0_GPA + 0x21000, NET_HEADER_SIZE + f.length, 0, 0);
            q.offer(TX_QUEUE, head);
            assertEquals(1, b.port.pollFromGuest(c, 64));
        }
        BytesStore<?, ?> s = BackendFixture.store(f);
        for (int head = 5; head < 7; head++) {
            q.desc(RX_QUEUE, head, R1_GPA + 0x72000 + 0x1000L * (head - 5), 2048, DESC_F_WRITE, 0);
            q.offer(RX_QUEUE, head);
            assertTrue(b.port.transmitToGuest(s, 0, f.length));
        }
        s.releaseLast();
        assertEquals(0, q.callsPending(TX_QUEUE), "no interrupt before the round's end");
        assertEquals(0, q.callsPending(RX_QUEUE), "no interrupt before the round's end");
        b.port.flushToGuest();
        assertEquals(1, q.callsPending(TX_QUEUE), "one interrupt for the round's three buffers");
        assertEquals(1, q.callsPending(RX_QUEUE), "one interrupt for the round's two frames");
        b.port.flushToGuest();
        assertEquals(0, q.callsPending(TX_QUEUE) + q.callsPending(RX_QUEUE), "nothing owed after a quiet round");
    }

    private static void noInterruptFlagSuppressesInterrupts(FakeQemu q, BackendFixture b) throws Exception {
        q.callsPending(TX_QUEUE);
        q.setAvailFlags(TX_QUEUE, 1); // VIRTQ_AVAIL_F_NO_INTERRUPT
        byte[] f = BackendFixture.randomBytes(80, 10);
        q.put(R0_GPA + 0x20000, new byte[NET_HEADER_SIZE]);
        q.put(R0_GPA + 0x20000 + NET_HEADER_SIZE, f);
        q.desc(TX_QUEUE, 10, R0_GPA + 0x20000, NET_HEADER_SIZE + f.length, 0, 0);
        q.offer(TX_QUEUE, 10);
        Collector c = new Collector();
        assertEquals(1, b.port.pollFromGuest(c, 64));
        b.port.flushToGuest();
        assertEquals(0, q.callsPending(TX_QUEUE));
        q.setAvailFlags(TX_QUEUE, 0);
        q.offer(TX_QUEUE, 10);
        assertEquals(1, b.port.pollFromGuest(c, 64));
        b.port.flushToGuest();
        assertEquals(1, q.callsPending(TX_QUEUE));
    }

    /** virtio 1.x §5.1.6.4: with MRG_RXBUF a frame spans several chains and num_buffers counts them. */
    private static void mergeableBuffers(FakeQemu q, BackendFixture b) throws Exception {
        byte[] frame = BackendFixture.randomBytes(1400, 11);
        int[] heads = {2, 3, 4};
        long[] bufs = {R1_GPA + 0x70000, R0_GPA + 0x30000, R1_GPA + 0x71000};
        for (int i = 0; i < 3; i++) {
            q.desc(RX_QUEUE, heads[i], bufs[i], 600, DESC_F_WRITE, 0);
        }
        int usedBefore = q.usedIdx(RX_QUEUE);
        BytesStore<?, ?> s = BackendFixture.store(frame);
        // one buffer is not enough: the frame is dropped and the buffer stays available
        q.offer(RX_QUEUE, heads[0]);
        long dropped = b.port.framesToGuestDropped();
        assertFalse(b.port.transmitToGuest(s, 0, frame.length));
        assertEquals(dropped + 1, b.port.framesToGuestDropped());
        assertEquals(usedBefore, q.usedIdx(RX_QUEUE));
        q.offer(RX_QUEUE, heads[1]);
        q.offer(RX_QUEUE, heads[2]);
        assertTrue(b.port.transmitToGuest(s, 0, frame.length));
        s.releaseLast();
        assertEquals(usedBefore + 3, q.usedIdx(RX_QUEUE));
        assertArrayEquals(new long[] {2, 600}, q.used(RX_QUEUE, usedBefore));
        assertArrayEquals(new long[] {3, 600}, q.used(RX_QUEUE, usedBefore + 1));
        assertArrayEquals(new long[] {4, NET_HEADER_SIZE + frame.length - 1200}, q.used(RX_QUEUE, usedBefore + 2));
        byte[] header = q.get(bufs[0], NET_HEADER_SIZE);
        assertEquals(3, header[VirtioNet.NET_HEADER_NUM_BUFFERS]);
        byte[] all = new byte[NET_HEADER_SIZE + frame.length];
        System.arraycopy(q.get(bufs[0], 600), 0, all, 0, 600);
        System.arraycopy(q.get(bufs[1], 600), 0, all, 600, 600);
        System.arraycopy(q.get(bufs[2], all.length - 1200), 0, all, 1200, all.length - 1200);
        assertArrayEquals(frame, Arrays.copyOfRange(all, NET_HEADER_SIZE, all.length));
    }

    /**
     * The data path allocates nothing per frame: after a warm-up, thousands of frames each way cost the calling
     * thread no heap (the interrupts are off so the call pipe does not fill; the receiver only sums).
     */
    @Test
    void noAllocationPerFrameOnTheDataPath() throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (BackendFixture b = new BackendFixture(dir, "z"); FakeQemu q = b.startGuest(false,
                1L << VirtioNet.F_VERSION_1)) {
            q.setAvailFlags(TX_QUEUE, 1);
            q.setAvailFlags(RX_QUEUE, 1);
            byte[] frame = BackendFixture.randomBytes(1000, 12);
            q.put(R0_GPA + 0x2000, new byte[NET_HEADER_SIZE]);
            q.put(R0_GPA + 0x2000 + NET_HEADER_SIZE, frame);
            q.desc(TX_QUEUE, 0, R0_GPA + 0x2000, 400, DESC_F_NEXT, 1);
            q.desc(TX_QUEUE, 1, R0_GPA + 0x2000 + 400, NET_HEADER_SIZE + frame.length - 400, 0, 0);
            q.desc(RX_QUEUE, 0, R1_GPA + 0x60000, 2048, DESC_F_WRITE, 0);
            BytesStore<?, ?> src = BackendFixture.store(frame);
            long[] sum = new long[1];
            FrameReceiver summing = (store, offset, length) -> sum[0] += store.readByte(offset + length - 1);
            int rounds = 5000;
            long allocated = 0;
            for (int pass = 0; pass < 2; pass++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < rounds; i++) {
                    q.offer(TX_QUEUE, 0);
                    if (b.port.pollFromGuest(summing, 4) != 1) {
                        throw new AssertionError("tx frame " + i);
                    }
                    q.offer(RX_QUEUE, 0);
                    if (!b.port.transmitToGuest(src, 0, frame.length)) {
                        throw new AssertionError("rx frame " + i);
                    }
                    b.port.flushToGuest();
                }
                allocated = threads.getCurrentThreadAllocatedBytes() - before;
            }
            src.releaseLast();
            assertEquals((long) 2 * rounds * frame[frame.length - 1], sum[0]);
            assertTrue(allocated < rounds, allocated + " bytes allocated for " + 2 * rounds + " frames");
            assertEquals(0, q.callsPending(TX_QUEUE) + q.callsPending(RX_QUEUE), "NO_INTERRUPT honoured");
        }
    }

    @Test
    void aFrontEndCanReconnectAfterTheFirstLeaves() throws Exception {
        try (BackendFixture b = new BackendFixture(dir, "r")) {
            try (FakeQemu first = b.startGuest(true, BackendFixture.STANDARD_FEATURES)) {
                b.exchangeOneFrameEachWay(first);
            }
            assertTrue(b.backend.awaitConnectionsEnded(1, FakeQemu.TIMEOUT_MILLIS));
            assertFalse(b.port.linkUp());
            try (FakeQemu second = b.startGuest(true, BackendFixture.STANDARD_FEATURES)) {
                b.exchangeOneFrameEachWay(second);
            }
            assertEquals(2, b.backend.connectionsAccepted());
        }
    }

    @Test
    void aNewMemoryTableReplacesTheOldOneAndTheRingsFollow() throws Exception {
        try (BackendFixture b = new BackendFixture(dir, "m"); FakeQemu q = b.startGuest(true,
                BackendFixture.STANDARD_FEATURES)) {
            long mapped = BackendFixture.mappingsOf(q.memFile);
            q.sendAcked(VhostUserRequest.SET_MEM_TABLE, FakeQemu.memTable(2), q.ramFd(), q.ramFd());
            assertEquals(mapped, BackendFixture.mappingsOf(q.memFile), "the old regions were unmapped");
            b.exchangeOneFrameEachWay(q);
        }
    }
}
