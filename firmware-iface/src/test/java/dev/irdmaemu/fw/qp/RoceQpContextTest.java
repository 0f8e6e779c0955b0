package dev.irdmaemu.fw.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The RoCEv2 QP context flyweight against the bit positions of ctrl.c irdma_sc_qp_setctx_roce_gen_2 and defs.h
 * IRDMAQPC_*: each field at its quadword and bits, the defaults of verbs.c irdma_roce_fill_and_set_qpctx_info, and
 * every check with the byte it names. Hostile windows (short, empty) never throw.
 */
class RoceQpContextTest {
    private final BytesStore<?, Void> buf = BytesStore.nativeStoreWithFixedCapacity(RoceQpContext.SIZE);
    private final RoceQpContext c = new RoceQpContext();

    private RoceQpContext fresh() {
        return c.wrap(buf, 0, RoceQpContext.SIZE).writeDefaults(0x1000, 0x2000, 3, 4, 7, 8, 1024, 0x1234_5678L);
    }

    @Test
    void fieldsSitWhereSetctxRoceGen2PutsThem() {
        fresh().putIpv4(true).putPdId(0x2_1234).putQKey(0x8001_0000).putDestQp(0xab_cdef).putSqPsn(0x12_3456)
                .putExpectedPsn(0x65_4321).putArpIdx(9).putMac(0x02_00_5e_10_00_01L).putDestIp(1, 2, 3, 4)
                .putLocalIp(5, 6, 7, 8).putFlowLabel(0xabcde).putTtl(64).putTos(0x20).putQsHandle(0x3ff)
                .putRemEndpointIdx(9);
        assertEquals(1L << 3 | 2L << 20, buf.readLong(0) & (1L << 3 | 3L << 20), "IPV4 bit 3, PDIDXHI 21:20");
        assertEquals(0x1000, buf.readLong(8));
        assertEquals(0x2000, buf.readLong(16));
        long qw3 = buf.readLong(24);
        assertEquals(64, qw3 & 0xff);
        assertEquals(4, qw3 >>> 8 & 0xf, "RQSIZE 11:8");
        assertEquals(3, qw3 >>> 12 & 0xf, "SQSIZE 15:12");
        assertEquals(0x20, qw3 >>> 24 & 0xff);
        assertEquals(0xC000, qw3 >>> 32 & 0xffff);
        assertEquals(4791, qw3 >>> 48 & 0xffff);
        assertEquals(0x0000_0003_0000_0004L, buf.readLong(32), "dest IP words 2 and 3");
        assertEquals(0x0000_0001_0000_0002L, buf.readLong(40), "dest IP words 0 and 1");
        assertEquals(1024L << 16 | 9L << 48, buf.readLong(48));
        assertEquals(0xabcdeL | 0x1EL << 20 | 0xffffL << 32 | 0x1234L << 48, buf.readLong(56));
        assertEquals(0xab_cdefL | 0x8001_0000L << 32, buf.readLong(64));
        assertEquals(0x12_3456L | 0xffffL << 32, buf.readLong(80), "PSNNXT and LSN 0xFFFF");
        assertEquals(0x65_4321L, buf.readLong(88));
        assertEquals(0x12_3456L | 0x12_3456L << 32, buf.readLong(96), "PSNMAX and PSNUNA");
        assertEquals(0x400L << 32, buf.readLong(112), "CWNDROCE");
        assertEquals(2L << 48 | 2L << 54 | 5L << 57, buf.readLong(128), "REXMIT, RNRNAK thresholds, RTOMIN");
        assertEquals(7L | 8L << 32, buf.readLong(136));
        assertEquals(0x02_00_5e_10_00_01L << 16, buf.readLong(152));
        assertEquals(255L | 4L << 16 | 1L << 19 | 1L << 20 | 1L << 21 | 1L << 24 | 1L << 25, buf.readLong(160));
        assertEquals(0x1234_5678L, buf.readLong(168));
        assertEquals(0x3ffL << 16, buf.readLong(176));
        assertEquals(0x0000_0007_0000_0008L, buf.readLong(184), "local IP words 2 and 3");
        assertEquals(0x0000_0005_0000_0006L, buf.readLong(192));
        assertEquals(9, buf.readLong(208));
        // and read back
        assertTrue(c.ipv4());
        assertEquals(0x2_1234, c.pdId());
        assertEquals(0x8001_0000, c.qKey());
        assertEquals(0xab_cdef, c.destQp());
        assertEquals(0x12_3456, c.psnNext());
        assertEquals(0xffff, c.lastSequenceNumber());
        assertEquals(0x65_4321, c.expectedPsn());
        assertEquals(8, c.localIp(3));
        assertEquals(4, c.destIp(3));
        assertEquals(1024, c.pathMtuBytes());
        assertTrue(c.privEnabled() && c.fastRegEnabled() && c.udPrivCqEnabled() && c.rdOk() && c.wrRdRespOk());
        assertFalse(c.isQp1());
        assertEquals(RoceQpContextCheck.ACCEPTED, c.validate());
    }

    private void rejects(RoceQpContextCheck expected, int at, Consumer<RoceQpContext> edit) {
        fresh();
        edit.accept(c);
        assertEquals(expected, c.validate());
        assertEquals(at, c.failedAt());
    }

    @Test
    void eachCheckNamesItsField() {
        rejects(RoceQpContextCheck.BAD_PATH_MTU, 50, x -> x.putSndMss(1500));
        rejects(RoceQpContextCheck.BAD_PATH_MTU, 50, x -> x.putSndMss(128));
        rejects(RoceQpContextCheck.BAD_PATH_MTU, 50, x -> x.putSndMss(8192));
        rejects(RoceQpContextCheck.BAD_TRANSPORT_VERSION, 7, x -> x.putTransportVersion(1));
        rejects(RoceQpContextCheck.BAD_DEST_PORT, 30, x -> x.putDestPort(4790));
        rejects(RoceQpContextCheck.BAD_IRD_SIZE, 162, x -> x.putIrdSizeCode(5));
        rejects(RoceQpContextCheck.BAD_QUEUE_SIZE, 25, x -> x.putQueueSizes(14, 0));
        rejects(RoceQpContextCheck.CONGESTION_CONTROL, 162, RoceQpContext::putDcqcn);
        for (int mtu = 256; mtu <= 4096; mtu <<= 1) {
            int m = mtu;
            fresh().putSndMss(m);
            assertEquals(RoceQpContextCheck.ACCEPTED, c.validate(), "PMTU " + m);
        }
    }

    @Test
    void aShortWindowIsTruncatedAndReadsAsZero() {
        fresh();
        c.wrap(buf, 0, 100);
        assertEquals(RoceQpContextCheck.TRUNCATED, c.validate());
        assertEquals(0, c.qKey(), "beyond the window");
        c.wrap(buf, 0, 0);
        assertEquals(RoceQpContextCheck.TRUNCATED, c.validate());
        assertEquals(0, c.destIp(0));
    }
}
