package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.FakeQemu.R1_GPA;
import static dev.irdmaemu.bridge.vhost.SplitVirtqueue.DESC_F_WRITE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.NET_HEADER_SIZE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.RX_QUEUE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.TX_QUEUE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.vhost.BackendFixture.Collector;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The offloads through the rings of a front-end that took them: TSO out of the guest, large receives into it. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VhostOffloadTest {
    private static final long OFFLOADS = BackendFixture.STANDARD_FEATURES | 1L << VirtioNet.F_CSUM
            | 1L << VirtioNet.F_GUEST_CSUM | 1L << VirtioNet.F_GUEST_TSO4 | 1L << VirtioNet.F_GUEST_TSO6
            | 1L << VirtioNet.F_HOST_TSO4 | 1L << VirtioNet.F_HOST_TSO6 | 1L << VirtioNet.F_HOST_ECN;

    @TempDir
    Path dir;

    private BackendFixture b;
    private FakeQemu q;
    private final BytesStore<?, Void> buf = BytesStore.nativeStoreWithFixedCapacity(NET_HEADER_SIZE + 70_000);

    @BeforeEach
    void start() throws Exception {
        b = new BackendFixture(dir, "o");
        q = b.startGuest(true, OFFLOADS);
    }

    @AfterEach
    void stop() throws Exception {
        buf.releaseLast();
        q.close();
        b.close();
    }

    private byte[] bytes(long at, int length) {
        byte[] out = new byte[length];
        buf.read(at, out, 0, length);
        return out;
    }

    @Test
    void aTsoSuperFrameFromTheGuestReachesTheModelAsMtuSizedSegments() throws Exception {
        byte[] payload = BackendFixture.randomBytes(30_000, 11);
        int length = OffloadFrames.build(buf, NET_HEADER_SIZE, false, false, payload, 7, TcpHeader.ACK | TcpHeader.PSH,
                40, true);
        OffloadFrames.gso(buf, 0, VirtioNetHeader.GSO_TCPV4, 1448, 0, OffloadFrames.l4(false, false));
        q.put(R1_GPA + 0x60000, bytes(0, NET_HEADER_SIZE + length));
        q.desc(TX_QUEUE, 0, R1_GPA + 0x60000, NET_HEADER_SIZE + length, 0, 0);
        q.offer(TX_QUEUE, 0);
        q.kick(TX_QUEUE);
        b.awaitKick();
        Collector c = new Collector();
        assertEquals(1, b.port.pollFromGuest(c, 64), "one chain taken");
        assertEquals(21, OffloadFrames.assertSegmentsOf(c.frames, payload, 7, TcpHeader.ACK | TcpHeader.PSH, 1448,
                false, false, 40));
        assertEquals(21, b.port.framesFromGuest());
    }

    @Test
    void aLyingGsoHeaderDropsItsFrameAndIsCountedWhileTheConnectionGoesOn() throws Exception {
        int length = OffloadFrames.build(buf, NET_HEADER_SIZE, false, false, new byte[5000], 7, TcpHeader.ACK, 40,
                true);
        OffloadFrames.gso(buf, 0, VirtioNetHeader.GSO_TCPV4, 0, 0, OffloadFrames.l4(false, false)); // gso_size 0
        q.put(R1_GPA + 0x60000, bytes(0, NET_HEADER_SIZE + length));
        q.desc(TX_QUEUE, 0, R1_GPA + 0x60000, NET_HEADER_SIZE + length, 0, 0);
        q.offer(TX_QUEUE, 0);
        q.kick(TX_QUEUE);
        b.awaitKick();
        Collector c = new Collector();
        assertEquals(1, b.port.pollFromGuest(c, 64));
        assertTrue(c.frames.isEmpty());
        assertEquals(1, b.port.framesFromGuestDropped());
        assertEquals(1, b.port.framesFromGuestRefused(TxOffload.Refusal.GSO_SIZE_ZERO));
        assertEquals(1, b.port.framesFromGuestRefused());
        assertEquals(1, q.usedIdx(TX_QUEUE), "the chain went back to the guest");
        assertTrue(b.port.linkUp(), "the connection is still up");
        b.exchangeOneFrameEachWay(q);
    }

    @Test
    void segmentsToTheGuestAreHeldUntilTheFlushThenGoAsOneSuperFrameOverMergedBuffers() throws Exception {
        for (int i = 0; i < 40; i++) {
            q.desc(RX_QUEUE, i, R1_GPA + 0x80000 + 0x1000L * i, 2048, DESC_F_WRITE, 0);
            q.offer(RX_QUEUE, i);
        }
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        long seq = 100;
        for (int k = 0; k < 10; k++) {
            byte[] p = BackendFixture.randomBytes(1448, k);
            sent.write(p, 0, p.length);
            int length = OffloadFrames.build(buf, 0, false, false, p, seq, TcpHeader.ACK | TcpHeader.PSH, k, false);
            assertTrue(b.port.transmitToGuest(buf, 0, length));
            seq += p.length;
        }
        assertEquals(0, q.usedIdx(RX_QUEUE), "held until the model's round ends");
        b.port.flushToGuest();
        int used = q.usedIdx(RX_QUEUE);
        int superLength = OffloadFrames.headers(false, false) + 10 * 1448;
        assertEquals((NET_HEADER_SIZE + superLength + 2047) / 2048, used, "merged buffers");
        byte[] hdr = q.get(R1_GPA + 0x80000, NET_HEADER_SIZE);
        BytesStore<?, ?> h = BackendFixture.store(hdr);
        VirtioNetHeader view = new VirtioNetHeader().wrap(h, 0);
        assertEquals(VirtioNetHeader.F_NEEDS_CSUM, view.flags());
        assertEquals(VirtioNetHeader.GSO_TCPV4, view.gsoType());
        assertEquals(1448, view.gsoSize());
        assertEquals(used, view.numBuffers());
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        for (int i = 0; i < used; i++) {
            long[] e = q.used(RX_QUEUE, i);
            assertEquals(i, e[0]);
            got.write(q.get(R1_GPA + 0x80000 + 0x1000L * i, (int) e[1]), 0, (int) e[1]);
        }
        byte[] frame = Arrays.copyOfRange(got.toByteArray(), NET_HEADER_SIZE, NET_HEADER_SIZE + superLength);
        BytesStore<?, ?> f = BackendFixture.store(frame);
        int start = view.csumStart();
        // complete from csum_start over the seeded field, as the guest's stack would: then the packet verifies
        NetworkOrder.put16(f, start + view.csumOffset(), InternetChecksum.checksum(f, start, frame.length - start));
        TcpPacket packet = new TcpPacket().wrap(f, 0, frame.length);
        assertEquals(TcpPacket.Status.ACCEPTED, packet.validate());
        byte[] payload = new byte[(int) packet.tcpPayloadLength()];
        f.read(packet.tcpPayloadOffset(), payload, 0, payload.length);
        assertArrayEquals(sent.toByteArray(), payload);
        assertEquals(10, b.port.framesToGuest());
        h.releaseLast();
        f.releaseLast();
    }
}
