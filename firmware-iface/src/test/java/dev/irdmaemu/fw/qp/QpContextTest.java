package dev.irdmaemu.fw.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import java.util.OptionalInt;

/**
 * Known bytes of the iWARP QP context irdma_sc_qp_setctx (ctrl.c) writes for gen2, each expected quadword
 * assembled by hand from the IRDMAQPC_* masks of defs.h for a connection as irdma_init_tcp_ctx (cm.c) fills it.
 */
class QpContextTest {
    static final long PATTERN = 0xa5a5_a5a5_a5a5_a5a5L;

    static QpResources resources() {
        return new QpResources(2, false, false, false, false, QpResources.NO_PUSH_PAGE, 0x0000_0001_2345_6000L,
            0x0000_0001_2345_8000L, 3, 4, 0x0000_0001_2346_0100L, 0, 0, 0x12, 2);
    }

    static QpHostContextInfo info() {
        return new QpHostContextInfo(0xffff_8881_0000_2000L, 5, 6, 0, 3, true, true, true);
    }

    static IwarpOffloadInfo iwarp() {
        return new IwarpOffloadInfo.Builder().ddpVer(1).rdmapVer(1).pdId(0x2_0005).ordSize(0x20).irdSize(16)
                .ibRdEn(true).alignHdrs(true).wrRdrespEn(true).bindEn(true).fastRegEn(true).rdEn(true).ecnEn(true)
                .macAddr(0x02_00_00_00_00_01L).rtomin(5).build();
    }

    static TcpOffloadInfo tcp() {
        return new TcpOffloadInfo.Builder().ipv4(0xc000_0201 /* 192.0.2.1 */, 0xc633_6407 /* 198.51.100.7 */)
                .ports(20000, 0xc000).ipHeader(0x40, 0, 0).vlan(true, 0x2064).dropOooSeg(true).windowScale(true, 7, 2)
                .ignoreTcpOptions(true, true).sndMss(1460).arpIdx(3).tcpState(5)
                .sendSequence(0x1122_3344L, 0x1122_3344L, 0x1122_3344L)
                .sendWindow(0xfaf0L, 0xaabb_ccddL, 0x1122_3344L, 0xfaf0L).receive(0xaabb_ccddL, 0x4_0000L).rtt(0, 6)
                .congestion(0xb68L, 0x3fff_c000L).rexmitThresh(8).build();
    }

    static long qword(BytesStore<?, ?> s, long off) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | s.readUnsignedByte(off + i);
        }
        return v;
    }

    @Test
    void setctxKnownBytes() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[256]);
        for (int i = 0; i < 256; i += 8) {
            s.writeLong(i, PATTERN);
        }
        new QpContext().wrap(s, 0, 256).write(resources(), info(), iwarp(), tcp());
        // RDMAP_VER=1 [63:62] | PDIDXHI=2 [21:20] | DROPOOOSEG 15 | ECN_EN 14 | RQWQESIZE=2 [9:8] |
        // INSERTVLANTAG 5 | IPV4 3 | IBRDENABLE 2 | DDP_VER=1 [1:0]
        assertEquals(0x4000_0000_0020_c22dL, qword(s, 0));
        assertEquals(0x0000_0001_2345_6000L, qword(s, 8));          // IRDMAQPC_SQADDR
        assertEquals(0x0000_0001_2345_8000L, qword(s, 16));         // IRDMAQPC_RQADDR
        // DESTPORTNUM [63:48] | SRCPORTNUM [47:32] | TOS [31:24] = 0 | ECN_CODE_PT_VAL | SQSIZE=4 | RQSIZE=3 | TTL
        assertEquals(0xc000_4e20_0200_4340L, qword(s, 24));
        assertEquals(0x0000_0000_c633_6407L, qword(s, 32));         // DESTIPADDR2 [63:32] | DESTIPADDR3 [31:0]
        assertEquals(0L, qword(s, 40));                             // DESTIPADDR0 | DESTIPADDR1
        // ARPIDX [63:48] = 3 | VLANTAG [47:32] = 0x2064 | SNDMSS [29:16] = 1460
        assertEquals(0x0003_2064_05b4_0000L, qword(s, 48));
        // PDIDX [63:48] = 5 | SNDSCALE [43:40] = 7 | RCVSCALE [35:32] = 2 | TCPSTATE [31:28] = 5 |
        // IGNORE_TCP_UNS_OPT 23 | IGNORE_TCP_OPT 22 | WSCALE 20
        assertEquals(0x0005_0702_50d0_0000L, qword(s, 56));
        assertEquals(PATTERN, qword(s, 64));                        // not written by irdma_sc_qp_setctx
        assertEquals(0L, qword(s, 72));                             // TIMESTAMP_AGE | TIMESTAMP_RECENT
        assertEquals(0x0000_faf0_1122_3344L, qword(s, 80));         // SNDWND | SNDNXT
        assertEquals(0x0004_0000_aabb_ccddL, qword(s, 88));         // RCVWND | RCVNXT
        assertEquals(0x1122_3344_1122_3344L, qword(s, 96));         // SNDUNA | SNDMAX
        assertEquals(0x0000_0006_0000_0000L, qword(s, 104));        // RTTVAR | SRTT
        assertEquals(0x0000_0b68_3fff_c000L, qword(s, 112));        // CWND | SSTHRESH
        assertEquals(0x1122_3344_aabb_ccddL, qword(s, 120));        // SNDWL2 | SNDWL1
        // RTOMIN [63:57] = 5 | REXMIT_THRESH [53:48] = 8 | ERR_RQ_IDX = 0 | MAXSNDWND
        assertEquals(0x0a08_0000_0000_faf0L, qword(s, 128));
        assertEquals(0x0000_0006_0000_0005L, qword(s, 136));        // RXCQNUM [56:32] | TXCQNUM [24:0]
        assertEquals(0x0000_0001_2346_0103L, qword(s, 144));        // Q2ADDR [63:8] | STAT_INDEX [6:0]
        assertEquals(0x0200_0000_0001_0000L, qword(s, 152));        // MACADDRESS [63:16] | LASTBYTESENT
        // SNDMARKOFFSET [56:48] = snd_nxt & 0x1ff | RCVMARKOFFSET [40:32] = rcv_nxt & 0x1ff | ALIGNHDRS 30 |
        // IWARPMODE 28 | USESTATSINSTANCE 26 | FASTREGEN 24 | BINDEN 23 | RDOK 21 | WRRDRSPOK 20 |
        // IRDSIZE [18:16] = IRDMA_IRD_HW_SIZE_64 | ORDSIZE = 0x20
        assertEquals(0x0144_00dd_55b2_0020L, qword(s, 160));
        assertEquals(0xffff_8881_0000_2000L, qword(s, 168));        // QPCOMPCTX
        assertEquals(0x0000_0002_0012_0000L, qword(s, 176));        // EXCEPTION_LAN_QUEUE | QSHANDLE
        assertEquals(0x0000_0000_c000_0201L, qword(s, 184));        // LOCAL_IPADDR2 | LOCAL_IPADDR3
        assertEquals(0L, qword(s, 192));                            // LOCAL_IPADDR0 | LOCAL_IPADDR1
        assertEquals(0L, qword(s, 200));                            // THIGH | TLOW
        assertEquals(0L, qword(s, 208));                            // REMENDPOINTIDX
        for (int off = 216; off < 256; off += 8) {
            assertEquals(PATTERN, qword(s, off));
        }
    }

    @Test
    void pudaSetctxKnownBytes() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[256]);
        for (int i = 0; i < 256; i += 8) {
            s.writeLong(i, PATTERN);
        }
        // an ILQ as irdma_puda_qp_setctx writes it: CQ 1, 2 KiB buffers, stats index 3 (valid), qs_handle 0x12
        new QpContext().wrap(s, 0, 256).writePuda(resources(), 2048, 1, 3, true, 0xffff_8881_0000_4000L);
        assertEquals(PATTERN, qword(s, 0), "quadword 0 is not written");
        assertEquals(0x0000_0001_2345_6000L, qword(s, 8));          // IRDMAQPC_SQADDR
        assertEquals(0x0000_0001_2345_8000L, qword(s, 16));         // IRDMAQPC_RQADDR
        assertEquals(0x4300L, qword(s, 24));                        // SQSIZE=4 [15:12] | RQSIZE=3 [11:8]
        assertEquals(PATTERN, qword(s, 32));
        assertEquals(0x0800_0000L, qword(s, 48));                   // SNDMSS=2048 [29:16]
        assertEquals(0L, qword(s, 56));
        assertEquals(0x0000_0001_0000_0001L, qword(s, 136));        // RXCQNUM [56:32] | TXCQNUM [24:0]
        assertEquals(3L, qword(s, 144));                            // STAT_INDEX [6:0]
        assertEquals(0x0600_0000L, qword(s, 160));                  // USESTATSINSTANCE 26 | PRIVEN 25
        assertEquals(0xffff_8881_0000_4000L, qword(s, 168));        // IRDMAQPC_QPCOMPCTX
        assertEquals(0x0012_0000L, qword(s, 176));                  // QSHANDLE [25:16]
        assertEquals(0x12, new QpContext().wrap(s, 0, 256).qsHandle());
        assertEquals(PATTERN, qword(s, 184));
    }

    @Test
    void modelReadsTheContext() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[256]);
        QpContext ctx = new QpContext().wrap(s, 0, 256).write(resources(), info(), iwarp(), tcp());
        assertEquals(QpContextCheck.ACCEPTED, ctx.validate(true));
        assertEquals(0x2_0005, ctx.pdId());
        assertEquals(2, ctx.tos());
        assertEquals(OptionalInt.of(64), ctx.irdHwSize());
        assertEquals(0xc633_6407, ctx.destIp(3));
        assertEquals(0xc000_0201, ctx.localIp(3));
        assertEquals(20000, ctx.srcPort());
        assertEquals(0xc000, ctx.dstPort());
        assertEquals(1460, ctx.sndMss());
        assertEquals(100, ctx.vlanTag() & 0xfff);
        assertEquals(0x02_00_00_00_00_01L, ctx.macAddress());
        assertEquals(0x1122_3344L, ctx.sndNxt());
        assertEquals(0xaabb_ccddL, ctx.rcvNxt());
        assertEquals(7, ctx.sndWscale());
        assertEquals(2, ctx.rcvWscale());
        assertEquals(5, ctx.txCqNum());
        assertEquals(6, ctx.rxCqNum());
        assertEquals(0x0000_0001_2346_0100L, ctx.q2Address());
        assertTrue(ctx.iwarpMode());
        assertEquals(QpResources.NO_PUSH_PAGE, ctx.readResources().pushIdx());
        assertEquals(resources(), ctx.readResources());
        assertEquals(info(), ctx.readInfo(true, true));
    }

    /** irdma_sc_get_encoded_ird_size: 2 * IRD rounded up to a power of two, then one of five codes. */
    @Test
    void irdEncoding() {
        int[][] cases = {{0, 0}, {1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, 1}, {8, 1}, {16, 2}, {17, 2}, {32, 2},
            {33, 3}, {64, 3}, {65, 4}, {128, 4}, {129, 0}, {200, 0}, {65535, 0}};
        for (int[] c : cases) {
            assertEquals(c[1], QpContext.encodeIrd(c[0]), "ird " + c[0]);
        }
        assertEquals(OptionalInt.of(4), QpContext.decodeIrd(0));
        assertEquals(OptionalInt.of(16), QpContext.decodeIrd(1));
        assertEquals(OptionalInt.of(256), QpContext.decodeIrd(4));
        assertEquals(OptionalInt.empty(), QpContext.decodeIrd(5));
        assertEquals(2, QpContext.effectiveTos(0, true, false));
        assertEquals(1, QpContext.effectiveTos(1, false, true));
        assertEquals(0x10, QpContext.effectiveTos(0x10, false, false));
    }

    @Test
    void hostileContexts() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[256]);
        QpContext ctx = new QpContext().wrap(s, 0, 256).write(resources(), info(), iwarp(), tcp());
        long iw = s.readLong(160);
        s.writeLong(160, iw & ~(1L << 28));
        assertEquals(QpContextCheck.NOT_IWARP_MODE, ctx.validate(true));
        s.writeLong(160, iw | 7L << 16);
        assertEquals(QpContextCheck.BAD_IRD_SIZE, ctx.validate(true));
        s.writeLong(160, iw);
        long q0 = s.readLong(0);
        s.writeLong(0, q0 | 3);
        assertEquals(QpContextCheck.BAD_DDP_VERSION, ctx.validate(true));
        s.writeLong(0, q0 | 3L << 62);
        assertEquals(QpContextCheck.BAD_RDMAP_VERSION, ctx.validate(false));
        s.writeLong(0, q0);
        long q7 = s.readLong(56);
        s.writeLong(56, q7 | 0xfL << 40);
        assertEquals(QpContextCheck.BAD_WINDOW_SCALE, ctx.validate(true));
        assertEquals(QpContextCheck.ACCEPTED, ctx.validate(false));
        s.writeLong(56, q7 | 0xfL << 28);
        assertEquals(QpContextCheck.BAD_TCP_STATE, ctx.validate(true));
        s.writeLong(56, q7);
        s.writeLong(48, s.readLong(48) & ~QpContext.mask(29, 16));
        assertEquals(QpContextCheck.ZERO_MSS, ctx.validate(true));
        assertEquals(QpContextCheck.TRUNCATED, ctx.wrap(s, 8, 256).validate(false));
        assertEquals(248, ctx.failedAt());
        assertThrows(IllegalArgumentException.class,
            () -> new QpContext().wrap(s, 16, 256).write(resources(), info(), iwarp(), tcp()));
    }
}
