package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.QRX_CTRL;
import static dev.irdmaemu.fw.lan.LanRegister.QRX_CTRL_QENA_STAT_M;
import static dev.irdmaemu.fw.lan.LanRegister.QRX_TAIL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.lan.RxFlexDescriptor;
import dev.irdmaemu.fw.lan.RxQueueContext;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Header split as {@code ethtool -G DEV tcp-data-split on} makes ice 7.3 program it (ice_base.c ice_setup_rx_ctx:
 * dtype 1, hbuf = the libeth header buffer length >> 6, hsplit_0 = L2 | IP | TCP/UDP | SCTP; ice_txrx.c
 * ice_alloc_rx_bufs posting hdr_addr, ice_clean_rx_irq reading the header length from hdr_len_sph_flex_flags1
 * bits 10:0 and the payload length from pkt_len): the queue comes up, the headers land in the header buffer and the
 * payload in the packet buffers, a frame without payload leaves the packet buffer empty, a header larger than the
 * header buffer goes whole to the packet buffer with HBO, and a header buffer outside guest memory drops the frame
 * with an MDD event.
 */
class HeaderSplitRxTest {
    private static final int Q = 0;
    private static final int COUNT = 64;
    private static final int DBUF = 2048;
    private static final int HBUF = 256;

    private final LanRig rig = new LanRig();
    private final HostMemory m = rig.ram.memory();
    private final long ring = rig.ram.allocate((long) COUNT * RxFlexDescriptor.SIZE);
    private final long[] data = new long[COUNT];
    private final long[] headers = new long[COUNT];
    private int ntu;
    private int ntc;

    private boolean setUp(int hbuf, int dtype, int hsplit0) {
        for (int i = 0; i < COUNT; i++) {
            data[i] = rig.ram.allocate(DBUF);
            headers[i] = rig.ram.allocate(HBUF);
        }
        BytesStore<?, ?> ctx = BytesStore.nativeStoreWithFixedCapacity(RxQueueContext.SIZE);
        ctx.zeroOut(0, RxQueueContext.SIZE);
        new RxQueueContext().wrap(ctx, 0).ringBase(ring).queueLength(COUNT).dataBufferBytes(DBUF).descriptor32(true)
                .crcStrip(true).l2TagSelect(true).descriptorType(dtype).headerBufferBytes(hbuf)
                .headerSplit0(hsplit0).rxMax(9728).lowThreshold(1).prefetch(true);
        rig.driver.rxq = Q;
        return rig.driver.programRx(Q, ctx, 1);
    }

    private boolean iceSetUp() {
        return setUp(HBUF, RxQueueContext.DTYPE_HEADER_SPLIT, RxQueueContext.HSPLIT_0_L2 | RxQueueContext.HSPLIT_0_IP
                | RxQueueContext.HSPLIT_0_TCP_UDP | RxQueueContext.HSPLIT_0_SCTP);
    }

    /** ice_alloc_rx_bufs with a header page pool: pkt_addr and hdr_addr. */
    private void post(int n) {
        for (int i = 0; i < n; i++) {
            long d = ring + (long) ntu * RxFlexDescriptor.SIZE;
            m.writeLong(d, data[ntu]);
            m.writeLong(d + 8, headers[ntu]);
            ntu = (ntu + 1) % COUNT;
        }
        rig.lan.write32(QRX_TAIL + Q * 4L, ntu);
    }

    private RxFlexDescriptor descriptor(int i) {
        BytesStore<?, ?> d = BytesStore.nativeStoreWithFixedCapacity(RxFlexDescriptor.SIZE);
        m.copyOut(ring + (long) i * RxFlexDescriptor.SIZE, d, 0, RxFlexDescriptor.SIZE);
        return new RxFlexDescriptor().wrap(d, 0);
    }

    private byte[] read(long address, int length) {
        BytesStore<?, ?> b = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, length));
        m.copyOut(address, b, 0, length);
        return LanRig.bytes(b, 0, length);
    }

    /** ice_clean_rx_irq with a header pool: the header buffer's hdr_len bytes, then each packet buffer's pkt_len. */
    private byte[] receive() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        while (true) {
            RxFlexDescriptor d = descriptor(ntc);
            assertTrue(d.done(), "descriptor " + ntc + " written back");
            boolean rxe = (d.status0() & (RxFlexDescriptor.STATUS0_HBO | RxFlexDescriptor.STATUS0_RXE)) != 0;
            int h = rxe ? 0 : d.headerLength();
            out.writeBytes(read(headers[ntc], h));
            int p = rxe ? 0 : d.packetLength();
            out.writeBytes(read(data[ntc], p));
            ntc = (ntc + 1) % COUNT;
            if (d.endOfPacket()) {
                return out.toByteArray();
            }
        }
    }

    @Test
    void theContextIceProgramsIsAcceptedAndTheQueueComesUp() {
        assertTrue(iceSetUp());
        assertEquals(QRX_CTRL_QENA_STAT_M, rig.lan.read32(QRX_CTRL) & QRX_CTRL_QENA_STAT_M);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aTcpSegmentsHeadersGoToTheHeaderBufferAndItsPayloadToThePacketBuffer(boolean ipv6) {
        assertTrue(iceSetUp());
        post(COUNT - 1);
        byte[] frame = LanRig.tcp(ipv6, LanRig.tcpFlags(), 7, 1000);
        int headerLength = 14 + (ipv6 ? 40 : 20) + 20;
        rig.deliver(frame);
        RxFlexDescriptor d = descriptor(0);
        assertTrue(d.done() && d.endOfPacket());
        assertTrue(d.splitHeader(), "SPH");
        assertEquals(headerLength, d.headerLength());
        assertEquals(1000, d.packetLength());
        assertArrayEquals(Arrays.copyOf(frame, headerLength), read(headers[0], headerLength));
        assertArrayEquals(Arrays.copyOfRange(frame, headerLength, frame.length), read(data[0], 1000));
        assertEquals(1, rig.lan.counters().rxHeaderSplit());
    }

    @Test
    void aPayloadLongerThanOneBufferChainsAndOnlyTheFirstDescriptorCarriesTheHeader() {
        assertTrue(iceSetUp());
        post(COUNT - 1);
        byte[] frame = LanRig.tcp(false, LanRig.tcpFlags(), 1, 5000);
        rig.deliver(frame);
        assertEquals(54, descriptor(0).headerLength());
        assertEquals(DBUF, descriptor(0).packetLength());
        assertFalse(descriptor(1).splitHeader());
        assertEquals(0, descriptor(1).headerLength());
        assertEquals(5000 - 2 * DBUF, descriptor(2).packetLength());
        assertTrue(descriptor(2).endOfPacket());
        assertArrayEquals(frame, receive());
    }

    @Test
    void framesWithoutL4PayloadOrWithoutIpSplitAfterTheirLastHeader() {
        assertTrue(iceSetUp());
        post(COUNT - 1);
        byte[] ack = LanRig.tcp(false, LanRig.tcpFlags(), 1, 0);
        rig.deliver(ack);
        assertEquals(ack.length, descriptor(0).headerLength());
        assertEquals(0, descriptor(0).packetLength(), "nothing in the packet buffer");
        assertArrayEquals(ack, receive());
        byte[] arp = LanRig.arpRequest();
        rig.deliver(arp);
        assertEquals(14, descriptor(1).headerLength(), "split after the Ethernet header");
        assertArrayEquals(arp, receive());
        byte[] icmp = LanRig.icmpEcho(100);
        rig.deliver(icmp);
        assertEquals(34, descriptor(2).headerLength(), "split after the IP header");
        assertArrayEquals(icmp, receive());
    }

    @Test
    void aHeaderLargerThanTheHeaderBufferGoesWholeToThePacketBufferWithHbo() {
        assertTrue(setUp(64, RxQueueContext.DTYPE_HEADER_SPLIT, RxQueueContext.HSPLIT_0_TCP_UDP));
        post(COUNT - 1);
        byte[] frame = LanRig.tcp(true, LanRig.tcpFlags(), 1, 100); // 74 bytes of headers
        rig.deliver(frame);
        RxFlexDescriptor d = descriptor(0);
        assertTrue((d.status0() & RxFlexDescriptor.STATUS0_HBO) != 0);
        assertFalse(d.splitHeader());
        assertEquals(frame.length, d.packetLength());
        assertArrayEquals(frame, read(data[0], frame.length));
        assertEquals(1, rig.lan.counters().rxHeaderOverflow());
    }

    @Test
    void aHeaderBufferOutsideGuestMemoryDropsTheFrameWithAnMddEventAndTheQueueGoesOn() {
        assertTrue(iceSetUp());
        post(COUNT - 1);
        m.writeLong(ring + 8, 0xdead_0000_0000L);
        rig.deliver(LanRig.tcp(false, LanRig.tcpFlags(), 1, 10));
        assertFalse(descriptor(0).done());
        assertEquals(1, rig.mddHooks);
        assertEquals(1, rig.lan.counters().rxDmaFault());
        m.writeLong(ring + 8, headers[0]);
        byte[] frame = LanRig.tcp(false, LanRig.tcpFlags(), 2, 10);
        rig.deliver(frame);
        assertArrayEquals(frame, receive());
        assertEquals(1, rig.lan.counters().rxHeaderSplit(), "the dropped frame is not counted as split");
    }

    @Test
    void splitAlwaysAndAHeaderSplitWithoutAHeaderBufferAreRefused() {
        assertFalse(setUp(HBUF, 2, RxQueueContext.HSPLIT_0_L2));
        assertFalse(setUp(0, RxQueueContext.DTYPE_HEADER_SPLIT, RxQueueContext.HSPLIT_0_L2));
        assertFalse(setUp(HBUF, RxQueueContext.DTYPE_HEADER_SPLIT, 0));
        assertEquals(3, rig.lan.rx().rejectedContexts());
    }
}
