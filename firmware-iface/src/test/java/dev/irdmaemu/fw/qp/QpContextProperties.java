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
        return new TcpOffloadInfo.Builder()
                .addresses(r.nextBoolean(), new int[] {r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt()},
                        new int[] {r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt()})
                .ports(bits(r, 16), bits(r, 16)).ipHeader(bits(r, 8), bits(r, 8), bits(r, 20))
                .vlan(r.nextBoolean(), bits(r, 16)).noNagle(r.nextBoolean()).timeStamp(r.nextBoolean(), u32(r), u32(r))
                .dropOooSeg(r.nextBoolean()).avoidStretchAck(r.nextBoolean())
                .windowScale(r.nextBoolean(), bits(r, 4), bits(r, 4)).ignoreTcpOptions(r.nextBoolean(), r.nextBoolean())
                .cwndIncLimit(bits(r, 2)).dupAckThresh(bits(r, 3)).sndMss(bits(r, 14)).synRstHandling(bits(r, 2))
                .arpIdx(bits(r, 16)).tcpState(bits(r, 4)).sendSequence(u32(r), u32(r), u32(r))
                .sendWindow(u32(r), u32(r), u32(r), u32(r)).receive(u32(r), u32(r)).rtt(u32(r), u32(r))
                .congestion(u32(r), u32(r)).rexmitThresh(bits(r, 6)).build();
    }

    static IwarpOffloadInfo randomIwarp(Draws r) {
        int[] irds = {2, 8, 32, 64, 128};
        return new IwarpOffloadInfo.Builder().rcvMarkOffset(bits(r, 9)).sndMarkOffset(bits(r, 9)).ddpVer(bits(r, 2))
                .rdmapVer(bits(r, 2)).errRqIdx(bits(r, 15)).pdId(bits(r, 18)).ordSize(bits(r, 8))
                .irdSize(irds[r.nextInt(irds.length)]).ibRdEn(r.nextBoolean()).alignHdrs(r.nextBoolean())
                .rcvNoMpaCrc(r.nextBoolean()).errRqIdxValid(r.nextBoolean()).sndMarkEn(r.nextBoolean())
                .rcvMarkEn(r.nextBoolean()).wrRdrespEn(r.nextBoolean()).bindEn(r.nextBoolean())
                .fastRegEn(r.nextBoolean()).privModeEn(r.nextBoolean()).rdEn(r.nextBoolean()).timelyEn(r.nextBoolean())
                .ecnEn(r.nextBoolean()).dctcpEn(r.nextBoolean()).tHigh(bits(r, 12)).tLow(bits(r, 8))
                .lastByteSent(bits(r, 8)).macAddr(r.nextLong() & 0xffff_ffff_ffffL).rtomin(bits(r, 7)).build();
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
        return t.toBuilder().ipHeader(t.ttl(), tos, t.flowLabel()).build();
    }

    /** Marker offsets default to the sequence numbers; IRD becomes the hardware size (2 * IRD rounded up). */
    static IwarpOffloadInfo expectedIwarp(IwarpOffloadInfo w, TcpOffloadInfo t) {
        int rcvMark = w.rcvMarkOffset() != 0 ? w.rcvMarkOffset() : (int) (t.rcvNxt() & 0x1ff);
        int sndMark = w.sndMarkOffset() != 0 ? w.sndMarkOffset() : (int) (t.sndNxt() & 0x1ff);
        int hwIrd = Integer.highestOneBit(2 * w.irdSize() - 1) << 1;
        return w.toBuilder().rcvMarkOffset(rcvMark).sndMarkOffset(sndMark).irdSize(Math.max(hwIrd, 4)).build();
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
