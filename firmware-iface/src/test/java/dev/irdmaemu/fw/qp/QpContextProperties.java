package dev.irdmaemu.fw.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.irdmaemu.fw.Draws;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;

/** write(x) then read gives x back, after the transformations irdma_sc_qp_setctx itself applies. */
class QpContextProperties {
    private final QpContext ctx = new QpContext();

    private static int bits(Draws r, int n) {
        return n == 32 ? r.nextInt() : r.nextInt(1 << n);
    }

    private static long u32(Draws r) {
        return r.nextInt() & 0xffff_ffffL;
    }

    static TcpOffloadInfo randomTcp(Draws r) {
        return new TcpOffloadInfo(r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(),
            r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), bits(r, 2),
            bits(r, 3), bits(r, 8), bits(r, 8), bits(r, 16), bits(r, 16), r.nextInt(), r.nextInt(), r.nextInt(),
            r.nextInt(), bits(r, 14), bits(r, 2), bits(r, 16), bits(r, 16), bits(r, 20), bits(r, 4), bits(r, 4),
            bits(r, 4), u32(r), u32(r), u32(r), u32(r), u32(r), u32(r), u32(r), u32(r), u32(r), u32(r), u32(r),
            u32(r), u32(r), u32(r), u32(r), bits(r, 6), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt());
    }

    static IwarpOffloadInfo randomIwarp(Draws r) {
        int[] irds = {2, 8, 32, 64, 128};
        return new IwarpOffloadInfo(bits(r, 9), bits(r, 9), bits(r, 2), bits(r, 2), bits(r, 15), bits(r, 18),
            bits(r, 8), irds[r.nextInt(irds.length)], r.nextBoolean(), r.nextBoolean(), r.nextBoolean(),
            r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(),
            r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), bits(r, 12),
            bits(r, 8), bits(r, 8), r.nextLong() & 0xffff_ffff_ffffL, bits(r, 7));
    }

    static QpResources randomResources(Draws r) {
        long push = r.nextBoolean() ? QpResources.NO_PUSH_PAGE : bits(r, 10);
        return new QpResources(bits(r, 2), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), push,
            r.nextLong(), r.nextLong(), bits(r, 4), bits(r, 4), r.nextLong() & ~0xffL, bits(r, 8), bits(r, 8),
            bits(r, 10), bits(r, 12));
    }

    static QpHostContextInfo randomInfo(Draws r) {
        return new QpHostContextInfo(r.nextLong(), bits(r, 25), bits(r, 25), bits(r, 17), bits(r, 7),
            r.nextBoolean(), true, true);
    }

    /** The record with the TOS irdma_sc_qp_setctx writes. */
    static TcpOffloadInfo expectedTcp(TcpOffloadInfo t, IwarpOffloadInfo iw) {
        int tos = (iw.ecnEn() || iw.dctcpEn()) && (t.tos() & 3) == 0 ? t.tos() | 2 : t.tos();
        return new TcpOffloadInfo(t.ipv4(), t.noNagle(), t.insertVlanTag(), t.timeStamp(), t.dropOooSeg(),
            t.avoidStretchAck(), t.wscale(), t.ignoreTcpOpt(), t.ignoreTcpUnsOpt(), t.cwndIncLimit(),
            t.dupAckThresh(), t.ttl(), tos, t.srcPort(), t.dstPort(), t.destIp0(), t.destIp1(), t.destIp2(),
            t.destIp3(), t.sndMss(), t.synRstHandling(), t.vlanTag(), t.arpIdx(), t.flowLabel(), t.tcpState(),
            t.sndWscale(), t.rcvWscale(), t.timeStampRecent(), t.timeStampAge(), t.sndNxt(), t.sndWnd(), t.rcvNxt(),
            t.rcvWnd(), t.sndMax(), t.sndUna(), t.srtt(), t.rttVar(), t.ssThresh(), t.cwnd(), t.sndWl1(),
            t.sndWl2(), t.maxSndWindow(), t.rexmitThresh(), t.localIp0(), t.localIp1(), t.localIp2(),
            t.localIp3());
    }

    /** Marker offsets default to the sequence numbers; IRD becomes the hardware size (2 * IRD rounded up). */
    static IwarpOffloadInfo expectedIwarp(IwarpOffloadInfo w, TcpOffloadInfo t) {
        int rcvMark = w.rcvMarkOffset() != 0 ? w.rcvMarkOffset() : (int) (t.rcvNxt() & 0x1ff);
        int sndMark = w.sndMarkOffset() != 0 ? w.sndMarkOffset() : (int) (t.sndNxt() & 0x1ff);
        int hwIrd = Integer.highestOneBit(2 * w.irdSize() - 1) << 1;
        return new IwarpOffloadInfo(rcvMark, sndMark, w.ddpVer(), w.rdmapVer(), w.errRqIdx(), w.pdId(),
            w.ordSize(), Math.max(hwIrd, 4), w.ibRdEn(), w.alignHdrs(), w.rcvNoMpaCrc(), w.errRqIdxValid(),
            w.sndMarkEn(), w.rcvMarkEn(), w.wrRdrespEn(), w.bindEn(), w.fastRegEn(), w.privModeEn(), w.rdEn(),
            w.timelyEn(), w.ecnEn(), w.dctcpEn(), w.tHigh(), w.tLow(), w.lastByteSent(), w.macAddr(), w.rtomin());
    }

    @Property(tries = 300)
    void writeThenReadRoundTrips(@ForAll("tcp") TcpOffloadInfo tcp, @ForAll("iwarp") IwarpOffloadInfo iw,
                                 @ForAll("resources") QpResources res, @ForAll("info") QpHostContextInfo info,
                                 @ForAll boolean offHeap) {
        BytesStore<?, ?> s = offHeap ? BytesStore.nativeStoreWithFixedCapacity(300) : BytesStore.wrap(new byte[300]);
        try {
            ctx.wrap(s, 40, 256).write(res, info, iw, tcp);
            assertEquals(expectedTcp(tcp, iw), ctx.readTcp());
            assertEquals(expectedIwarp(iw, tcp), ctx.readIwarp());
            assertEquals(res, ctx.readResources());
            assertEquals(info, ctx.readInfo(true, true));
        } finally {
            if (offHeap) {
                s.releaseLast();
            }
        }
    }

    @Property(tries = 300)
    void randomBytesNeverThrow(@ForAll @Size(max = 300) byte[] bytes, @ForAll @IntRange(min = -8, max = 310) int off,
                               @ForAll @IntRange(min = -8, max = 400) int len, @ForAll boolean withTcp) {
        BytesStore<?, ?> s = BytesStore.wrap(bytes);
        for (long[] w : new long[][] {{off, len}, {0, bytes.length}}) {
            ctx.wrap(s, w[0], w[1]);
            assertNotNull(ctx.validate(withTcp));
            assertNotNull(ctx.readTcp());
            assertNotNull(ctx.readIwarp());
            assertNotNull(ctx.readResources());
            assertNotNull(ctx.readInfo(true, false));
            ctx.destIp(-1);
            ctx.localIp(9);
            ctx.irdHwSize();
        }
    }

    // Each record is built from its own shrinkable draws (see Draws), so a failure reports the records, field by
    // field, built from the smallest draws that still fail. The counts are what each random* reads.

    @Provide
    Arbitrary<TcpOffloadInfo> tcp() {
        return Draws.of(47).map(QpContextProperties::randomTcp);
    }

    @Provide
    Arbitrary<IwarpOffloadInfo> iwarp() {
        return Draws.of(27).map(QpContextProperties::randomIwarp);
    }

    @Provide
    Arbitrary<QpResources> resources() {
        return Draws.of(16).map(QpContextProperties::randomResources);
    }

    @Provide
    Arbitrary<QpHostContextInfo> info() {
        return Draws.of(6).map(QpContextProperties::randomInfo);
    }
}
