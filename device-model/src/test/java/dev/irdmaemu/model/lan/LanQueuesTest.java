package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.lan.RxFlexDescriptor;
import dev.irdmaemu.fw.lan.RxPacketType;
import dev.irdmaemu.fw.lan.RxQueueContext;
import dev.irdmaemu.fw.lan.TxDescriptor;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ice's LAN rings on the model: queues programmed as ice_base.c programs them, frames both ways. */
class LanQueuesTest {
    static final int RXQ = 0;
    static final int TXQ = 0;
    static final int RX_VECTOR = 1;
    static final int TX_VECTOR = 2;

    final LanRig rig = new LanRig();
    final IceLanDriver d = rig.driver;

    @Test
    void rxQueueComesUpAndItsContextReadsBackAsIceWroteIt() {
        assertTrue(d.setupRx(RXQ, 64, 2048, RX_VECTOR));
        BytesStore<?, ?> ctx = BytesStore.nativeStoreWithFixedCapacity(32);
        for (int i = 0; i < 8; i++) {
            ctx.writeInt(i * 4L, rig.lan.read32(QRX_CONTEXT + (long) i * QRX_CONTEXT_DWORD_STRIDE + RXQ * 4L));
        }
        RxQueueContext c = new RxQueueContext().wrap(ctx, 0);
        assertEquals(RxQueueContext.Status.ACCEPTED, c.validate());
        assertEquals(d.rxRing, c.ringBase());
        assertEquals(64, c.queueLength());
        assertEquals(2048, c.dataBufferBytes());
        assertTrue(c.descriptor32() && c.crcStrip() && c.prefetch());
        assertTrue(rig.lan.rx().enabled(RXQ));
        // QENA_REQ cleared: QENA_STAT follows down
        rig.lan.write32(QRX_CTRL + RXQ * 4L, 0);
        assertEquals(0, rig.lan.read32(QRX_CTRL + RXQ * 4L) & QRX_CTRL_QENA_STAT_M);
    }

    @Test
    void buffersPostedBeforeQenaReqAreKeptAsIceVsiCfgRxqPostsThem() {
        // ice_vsi_cfg_rxq: context, tail 0, ice_alloc_rx_bufs (tail written), then ice_vsi_ctrl_one_rx_ring
        BytesStore<?, ?> ctx = BytesStore.nativeStoreWithFixedCapacity(32);
        ctx.zeroOut(0, 32);
        d.rxq = RXQ;
        d.rxCount = 64;
        d.rxRing = rig.ram.allocate(64 * 32);
        d.rxBufs = new long[64];
        for (int i = 0; i < 64; i++) {
            d.rxBufs[i] = rig.ram.allocate(2048);
        }
        new RxQueueContext().wrap(ctx, 0).ringBase(d.rxRing).queueLength(64).dataBufferBytes(2048)
                .descriptor32(true).crcStrip(true).rxMax(9000);
        for (int i = 0; i < QRX_CONTEXT_DWORDS; i++) {
            rig.lan.write32(QRX_CONTEXT + (long) i * QRX_CONTEXT_DWORD_STRIDE, ctx.readInt(i * 4L));
        }
        rig.lan.write32(QRX_TAIL, 0);
        d.postRx(63);
        rig.lan.write32(QINT_RQCTL, RX_VECTOR | QINT_CAUSE_ENA_M);
        rig.lan.write32(QRX_CTRL, QRX_CTRL_QENA_REQ_M);
        assertEquals(QRX_CTRL_QENA_STAT_M | QRX_CTRL_QENA_REQ_M, rig.lan.read32(QRX_CTRL));
        assertEquals(63, rig.lan.rx().posted(RXQ));
        byte[] arp = LanRig.arpRequest();
        rig.deliver(arp);
        assertArrayEquals(arp, d.receive().bytes());
    }

    @Test
    void anArpFrameIsWrittenBackAsOneFlexDescriptorWithL2PtypeAndItsVectorRaised() {
        d.setupRx(RXQ, 64, 2048, RX_VECTOR);
        d.postRx(63);
        byte[] arp = LanRig.arpRequest();
        rig.deliver(arp);
        IceLanDriver.Received r = d.receive();
        assertNotNull(r);
        assertArrayEquals(arp, r.bytes());
        assertEquals(RxPacketType.L2, r.ptype());
        assertEquals(1, r.descriptors());
        assertEquals(0, r.status0() & RxFlexDescriptor.STATUS0_L3L4P);
        assertEquals(1, rig.vectors[RX_VECTOR]);
        assertNull(d.receive(), "nothing more");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void tcpFramesCarryTheirPtypeAndAGoodOrBadChecksumStatus(boolean ipv6) {
        d.setupRx(RXQ, 64, 2048, RX_VECTOR);
        d.postRx(63);
        byte[] good = LanRig.tcp(ipv6, LanRig.tcpFlags(), 1000, 100);
        rig.deliver(good);
        IceLanDriver.Received r = d.receive();
        assertEquals(ipv6 ? RxPacketType.IPV6_TCP : RxPacketType.IPV4_TCP, r.ptype());
        assertEquals(RxFlexDescriptor.STATUS0_DD | RxFlexDescriptor.STATUS0_EOF | RxFlexDescriptor.STATUS0_L3L4P,
                r.status0());
        byte[] bad = good.clone();
        bad[bad.length - 1] ^= 0x5a;
        rig.deliver(bad);
        r = d.receive();
        assertNotEquals(0, r.status0() & RxFlexDescriptor.STATUS0_XSUM_L4E);
        assertArrayEquals(bad, r.bytes());
    }

    @Test
    void icmpEchoIsIpv4IcmpPtype() {
        d.setupRx(RXQ, 64, 2048, RX_VECTOR);
        d.postRx(10);
        rig.deliver(LanRig.icmpEcho(56));
        assertEquals(RxPacketType.IPV4_ICMP, d.receive().ptype());
    }

    @Test
    void aFrameLargerThanTheBufferSpansDescriptorsWithEofOnTheLast() {
        d.setupRx(RXQ, 32, 1024, RX_VECTOR);
        d.postRx(31);
        byte[] big = LanRig.tcp(false, LanRig.tcpFlags(), 5, 2900);
        rig.deliver(big);
        IceLanDriver.Received r = d.receive();
        assertEquals(3, r.descriptors());
        assertArrayEquals(big, r.bytes());
        assertEquals(3, rig.lan.counters().rxDescriptors());
        // the first descriptor: DD, no EOF, a full buffer
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(32);
        rig.memory.copyOut(d.rxRing, s, 0, 32);
        RxFlexDescriptor first = new RxFlexDescriptor().wrap(s, 0);
        assertTrue(first.done());
        assertFalse(first.endOfPacket());
        assertEquals(1024, first.packetLength());
        assertEquals(RxFlexDescriptor.RXDID_FLEX_NIC, first.rxdid());
    }

    @Test
    void withoutPostedBuffersTheFrameIsDroppedAndCountedInRdpc() {
        d.setupRx(RXQ, 32, 2048, RX_VECTOR);
        rig.deliver(LanRig.arpRequest());
        assertEquals(1, rig.lan.counters().rxNoDescriptor());
        assertEquals(1, rig.lan.read32(GLV_RDPC));
        assertEquals(0, rig.vectors[RX_VECTOR]);
        d.postRx(1);
        rig.deliver(LanRig.arpRequest());
        assertNotNull(d.receive());
        // one descriptor posted and used: the next frame has none
        rig.deliver(LanRig.arpRequest());
        assertEquals(2, rig.lan.counters().rxNoDescriptor());
    }

    @Test
    void framesWrapAroundTheRxRing() {
        d.setupRx(RXQ, 8, 2048, RX_VECTOR);
        for (int i = 0; i < 20; i++) {
            d.postRx(1);
            byte[] f = LanRig.icmpEcho(i);
            rig.deliver(f);
            assertArrayEquals(f, d.receive().bytes(), "frame " + i);
        }
        assertEquals(20, rig.vectors[RX_VECTOR]);
    }

    @Test
    void anArpFrameGoesOutOnTheWireAndItsDescriptorIsDone() {
        d.setupTx(TXQ, 64, TX_VECTOR);
        byte[] arp = LanRig.arpRequest();
        d.queueFrame(arp, 1, 0, 0, 0, 0, 0, 0);
        d.ringTx();
        assertEquals(1, rig.wire.size());
        assertArrayEquals(arp, rig.wire.get(0));
        assertEquals(1, d.cleanTx());
        assertEquals(1, rig.vectors[TX_VECTOR]);
        assertEquals(1, rig.lan.read32(QTX_COMM_HEAD + TXQ * 4L));
    }

    @Test
    void aFrameOfSeveralDescriptorsIsGatheredAcrossTheRingEnd() {
        d.setupTx(TXQ, 16, TX_VECTOR);
        for (int i = 0; i < 14; i++) {
            d.queueFrame(LanRig.icmpEcho(i), 1, 0, 0, 0, 0, 0, 0);
        }
        d.ringTx();
        assertEquals(14, d.cleanTx());
        byte[] f = LanRig.tcp(false, LanRig.tcpFlags(), 1, 1000);
        d.queueFrame(f, 4, 0, 0, 0, 0, 0, 0); // descriptors 14, 15, 0, 1
        d.ringTx();
        assertArrayEquals(f, rig.wire.get(rig.wire.size() - 1));
        assertEquals(1, d.cleanTx());
        assertEquals(2, rig.lan.read32(QTX_COMM_HEAD + TXQ * 4L));
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void checksumOffloadFillsTheIpAndTcpChecksums(boolean ipv6) {
        d.setupTx(TXQ, 64, TX_VECTOR);
        byte[] f = LanRig.tcp(ipv6, LanRig.tcpFlags(), 77, 300);
        int ipLen = ipv6 ? 40 : 20;
        // the stack leaves the checksums for the device: zero them
        f[14 + ipLen + 16] = 0;
        f[14 + ipLen + 17] = 0;
        if (!ipv6) {
            f[14 + 10] = 0;
            f[14 + 11] = 0;
        }
        int cmd = (ipv6 ? TxDescriptor.CMD_IIPT_IPV6 : TxDescriptor.CMD_IIPT_IPV4_CSUM) | TxDescriptor.CMD_L4T_TCP;
        d.queueFrame(f, 2, cmd, 14, ipLen, 20, 0, 0);
        d.ringTx();
        byte[] out = rig.wire.get(0);
        TcpPacket p = new TcpPacket().wrap(LanRig.store(out), 0, out.length);
        assertEquals(TcpPacket.Status.ACCEPTED, p.validate(), "checksums verify");
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void tsoCutsASuperFrameIntoMssSegmentsAsTheHardwareDoes(boolean ipv6) {
        d.setupTx(TXQ, 64, TX_VECTOR);
        int payload = 20_000;
        int mss = 1448;
        long seq = 0xFFFF_F000L; // wraps inside the burst
        byte[] f = LanRig.tcp(ipv6, TcpHeader.ACK | TcpHeader.PSH | TcpHeader.CWR, seq, payload);
        int ipLen = ipv6 ? 40 : 20;
        int header = 14 + ipLen + 20;
        int cmd = (ipv6 ? TxDescriptor.CMD_IIPT_IPV6 : TxDescriptor.CMD_IIPT_IPV4_CSUM) | TxDescriptor.CMD_L4T_TCP;
        d.queueFrame(f, 3, cmd, 14, ipLen, 20, mss, payload);
        d.ringTx();
        int segments = (payload + mss - 1) / mss;
        assertEquals(segments, rig.wire.size());
        assertEquals(1, d.cleanTx());
        byte[] joined = new byte[payload];
        int at = 0;
        for (int i = 0; i < segments; i++) {
            byte[] out = rig.wire.get(i);
            TcpPacket p = new TcpPacket().wrap(LanRig.store(out), 0, out.length);
            assertEquals(TcpPacket.Status.ACCEPTED, p.validate(), "segment " + i);
            int len = (int) p.tcpPayloadLength();
            assertEquals(i < segments - 1 ? mss : payload - mss * (segments - 1), len);
            assertEquals(seq + at & 0xFFFF_FFFFL, p.tcp().sequenceNumber());
            int flags = p.tcp().flags();
            assertEquals(i == segments - 1, (flags & TcpHeader.PSH) != 0, "PSH only on the last");
            assertEquals(i == 0, (flags & TcpHeader.CWR) != 0, "CWR only on the first");
            if (!ipv6) {
                assertEquals(0x1000 + i, p.ipv4().identification());
                assertEquals(20 + 20 + len, p.ipv4().totalLength());
            } else {
                assertEquals(20 + len, p.ipv6().payloadLength());
            }
            System.arraycopy(out, header, joined, at, len);
            at += len;
        }
        assertArrayEquals(Arrays.copyOfRange(f, header, f.length), joined);
        assertEquals(segments, rig.lan.counters().txTsoSegments());
    }

    @Test
    void aDoorbellOnAQueueWithoutContextIsCountedAndIgnored() {
        rig.lan.write32(QTX_COMM_DBELL + 5 * 4L, 3);
        assertEquals(1, rig.lan.counters().txBadDoorbell());
        assertTrue(rig.wire.isEmpty());
    }

    @Test
    void aPfResetDisablesEveryQueue() {
        d.setupRx(RXQ, 32, 2048, RX_VECTOR);
        rig.lan.reset();
        assertFalse(rig.lan.rx().enabled(RXQ));
        assertEquals(0, rig.lan.read32(QRX_CTRL + RXQ * 4L));
        assertEquals(0, rig.lan.read32(QINT_RQCTL + RXQ * 4L));
    }
}
