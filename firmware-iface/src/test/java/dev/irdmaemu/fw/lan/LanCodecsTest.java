package dev.irdmaemu.fw.lan;

import static org.junit.jupiter.api.Assertions.*;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The LAN codecs against the bit positions of ice_common.c's packing tables and ice_lan_tx_rx.h. */
class LanCodecsTest {
    private static BytesStore<?, ?> zeroed(int n) {
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(n);
        s.zeroOut(0, n);
        return s;
    }

    @Test
    void rxContextFieldsLandOnIcesBits() {
        BytesStore<?, ?> s = zeroed(32);
        RxQueueContext c = new RxQueueContext().wrap(s, 0);
        c.ringBase(0x1_2345_6780L);
        assertEquals(0x0246_8ACF, s.readInt(4), "base: 57 bits at 32, in 128-byte units");
        c.queueLength(512);
        assertEquals(1 << 2, s.readInt(12), "qlen: 13 bits at 89");
        c.dataBufferBytes(2048);
        assertEquals(1 << 2 | 16 << 6, s.readInt(12), "dbuf: 7 bits at 102, in 128-byte units");
        c.descriptor32(true).crcStrip(true).l2TagSelect(true);
        assertEquals(1 << 2 | 16 << 6 | 1 << 20 | 1 << 21 | 1 << 23, s.readInt(12), "dsize 116, crcstrip 117, l2tsel 119");
        c.rxMax(9000);
        assertEquals(9000 << 14, s.readInt(20), "rxmax: 14 bits at 174");
        c.lowThreshold(1).prefetch(true);
        assertEquals(1 << 6 | 1 << 9, s.readInt(24), "lrxqthresh 198, prefena 201");
        assertEquals(RxQueueContext.Status.ACCEPTED, c.validate());
        assertEquals(0x1_2345_6780L, c.ringBase());
        assertEquals(512, c.queueLength());
        assertEquals(2048, c.dataBufferBytes());
        assertEquals(9000, c.rxMax());
    }

    @Test
    void theHeaderSplitContextIcePrograms() {
        BytesStore<?, ?> s = zeroed(32);
        RxQueueContext c = new RxQueueContext().wrap(s, 0).queueLength(64).dataBufferBytes(3072).descriptor32(true)
                .rxMax(9000).descriptorType(RxQueueContext.DTYPE_HEADER_SPLIT).headerBufferBytes(256)
                .headerSplit0(RxQueueContext.HSPLIT_0_L2 | RxQueueContext.HSPLIT_0_IP
                        | RxQueueContext.HSPLIT_0_TCP_UDP | RxQueueContext.HSPLIT_0_SCTP);
        assertEquals(RxQueueContext.Status.ACCEPTED, c.validate());
        assertEquals(4, c.headerBufferUnits(), "256 >> ICE_RLAN_CTX_HBUF_S");
        assertEquals(256, c.headerBufferBytes());
        assertEquals(15, c.headerSplit0());
        c.headerBufferBytes(0);
        assertEquals(RxQueueContext.Status.HEADER_SPLIT, c.validate(), "header split without a header buffer");
    }

    @Test
    void rxContextRules() {
        BytesStore<?, ?> s = zeroed(32);
        RxQueueContext c = new RxQueueContext().wrap(s, 0);
        assertEquals(RxQueueContext.Status.QLEN_TOO_SMALL, c.validate());
        c.queueLength(64).rxMax(1522);
        assertEquals(RxQueueContext.Status.DBUF_ZERO, c.validate());
        c.rxMax(0);
        c.dataBufferBytes(1024);
        assertEquals(RxQueueContext.Status.DESC_16_BYTE, c.validate());
        c.descriptor32(true).descriptorType(2);
        assertEquals(RxQueueContext.Status.HEADER_SPLIT, c.validate());
        c.descriptorType(0);
        assertEquals(RxQueueContext.Status.RXMAX_ZERO, c.validate());
        c.rxMax(1522);
        assertEquals(RxQueueContext.Status.ACCEPTED, c.validate());
        assertEquals(RxQueueContext.Status.SHORT, new RxQueueContext().wrap(s, 16).validate());
    }

    /** ice_setup_rx_ctx for the FD control VSI's ring (rx_buf_len 0): dbuf 0 with rxmax 0 is a descriptor-only queue. */
    @Test
    void aDescriptorOnlyRxContextIsAccepted() {
        BytesStore<?, ?> s = zeroed(32);
        RxQueueContext c = new RxQueueContext().wrap(s, 0).queueLength(64).descriptor32(true);
        assertEquals(RxQueueContext.Status.ACCEPTED, c.validate());
        c.rxMax(1522);
        assertEquals(RxQueueContext.Status.DBUF_ZERO, c.validate());
        c.rxMax(0).dataBufferBytes(2048);
        assertEquals(RxQueueContext.Status.RXMAX_ZERO, c.validate());
    }

    @Test
    void txDataDescriptorFields() {
        BytesStore<?, ?> s = zeroed(16);
        long qw1 = TxDescriptor.dataQw1(TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS | TxDescriptor.CMD_IIPT_IPV4_CSUM
                | TxDescriptor.CMD_L4T_TCP, 14, 20, 32, 1514, 0x123);
        // ice_build_ctob: DTYPE 0, CMD at 4, OFFSET at 16 (MACLEN/2, IPLEN/4 << 7, L4LEN/4 << 14), BSZ at 34
        assertEquals(0x163L << 4 | (7L | 5L << 7 | 8L << 14) << 16 | 1514L << 34 | 0x123L << 48, qw1);
        TxDescriptor.write(s, 0, 0xABCD_0000L, qw1);
        TxDescriptor d = new TxDescriptor().wrap(s, 0);
        assertEquals(TxDescriptor.Status.ACCEPTED, d.validate());
        assertEquals(TxDescriptor.DTYPE_DATA, d.dtype());
        assertTrue(d.endOfPacket());
        assertEquals(14, d.macLength());
        assertEquals(20, d.ipLength());
        assertEquals(32, d.l4Length());
        assertEquals(1514, d.bufferSize());
        assertEquals(0x123, d.l2Tag1());
        assertEquals(0xABCD_0000L, d.bufferAddress());
    }

    @Test
    void txContextDescriptorAndRules() {
        BytesStore<?, ?> s = zeroed(16);
        TxDescriptor.write(s, 0, 0, TxDescriptor.tsoContextQw1(64_000, 1448));
        TxDescriptor d = new TxDescriptor().wrap(s, 0);
        assertEquals(TxDescriptor.DTYPE_CTX, d.dtype());
        assertEquals(TxDescriptor.CTX_CMD_TSO, d.contextCmd());
        assertEquals(64_000, d.tsoLength());
        assertEquals(1448, d.mss());
        assertEquals(TxDescriptor.Status.ACCEPTED, d.validate());
        TxDescriptor.write(s, 0, 0, TxDescriptor.tsoContextQw1(64_000, 63));
        assertEquals(TxDescriptor.Status.TSO_MSS, d.validate());
        TxDescriptor.write(s, 0, 0, TxDescriptor.tsoContextQw1(0, 1448));
        assertEquals(TxDescriptor.Status.TSO_LENGTH, d.validate());
        TxDescriptor.write(s, 0, 0, TxDescriptor.dataQw1(TxDescriptor.CMD_EOP, 0, 0, 0, 0, 0));
        assertEquals(TxDescriptor.Status.ZERO_LENGTH, d.validate());
        TxDescriptor.write(s, 0, 0, TxDescriptor.DTYPE_DESC_DONE);
        assertEquals(TxDescriptor.Status.DTYPE, d.validate());
        assertEquals(TxDescriptor.Status.SHORT, new TxDescriptor().wrap(s, 8).validate());
    }

    @Test
    void rxWriteBackReadsAsIceReadsIt() {
        BytesStore<?, ?> s = zeroed(32);
        s.writeLong(0, RxFlexDescriptor.writeBackQword0(RxPacketType.IPV6_TCP, 1514));
        s.writeLong(8, RxFlexDescriptor.writeBackQword1(RxFlexDescriptor.STATUS0_DD | RxFlexDescriptor.STATUS0_EOF,
                0x1234_5678));
        RxFlexDescriptor d = new RxFlexDescriptor().wrap(s, 0);
        assertEquals(RxFlexDescriptor.RXDID_FLEX_NIC, s.readUnsignedByte(0));
        assertEquals(RxPacketType.IPV6_TCP, s.readUnsignedShort(2) & 0x3FF, "ptype_flex_flags0 at byte 2");
        assertEquals(1514, s.readUnsignedShort(4) & 0x3FFF, "pkt_len at byte 4");
        assertEquals(3, s.readUnsignedShort(8), "status_error0 at byte 8");
        assertEquals(0x1234_5678, s.readInt(12), "rss_hash at byte 12");
        assertTrue(d.done() && d.endOfPacket());
        assertEquals(1514, d.packetLength());
        RxFlexDescriptor.writeRead(s, 0, 0x8000, 0);
        assertFalse(d.done(), "a posted descriptor has DD clear");
        assertEquals(0x8000, d.packetBufferAddress());
    }

    @Property(tries = 300)
    void noBytesMakeTheCodecsThrow(@ForAll byte[] bytes, @ForAll @IntRange(min = 0, max = 40) int offset) {
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, bytes.length));
        for (int i = 0; i < bytes.length; i++) {
            s.writeByte(i, bytes[i]);
        }
        RxQueueContext c = new RxQueueContext().wrap(s, offset);
        c.validate();
        c.ringBase();
        c.rxMax();
        TxDescriptor t = new TxDescriptor().wrap(s, offset);
        t.validate();
        t.mss();
        t.bufferSize();
        RxFlexDescriptor r = new RxFlexDescriptor().wrap(s, offset);
        r.done();
        r.packetLength();
    }
}
