package dev.irdmaemu.fw.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;
import java.util.OptionalInt;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;

/** Writer-to-reader round trips of every queue codec, and random bytes never making a reader throw. */
class QueueCodecProperties {
    private final Cqe cqe = new Cqe();
    private final CqeExtension ext = new CqeExtension();
    private final Ceqe ceqe = new Ceqe();
    private final Aeqe aeqe = new Aeqe();
    private final SqWqe sq = new SqWqe();
    private final RqWqe rq = new RqWqe();
    private final SgeList sges = new SgeList();

    @Property(tries = 300)
    void cqeRoundTrip(@ForAll @LongRange(max = 0xffff_ffffL) long payload, @ForAll int rtt, @ForAll long ctx,
                      @ForAll int stag, @ForAll @IntRange(max = (1 << 24) - 1) int qp,
                      @ForAll @IntRange(max = 0xffff) int major, @ForAll @IntRange(max = 0xffff) int minor,
                      @ForAll @IntRange(max = 0x7fff) int wqe, @ForAll @IntRange(max = 63) int op,
                      @ForAll @Size(8) boolean[] b, @ForAll long imm, @ForAll @IntRange(max = 0xffff) int vlan,
                      @ForAll @LongRange(max = 0xffff_ffff_ffffL) long mac) {
        BytesStore<?, ?> s = Mem.heap(64);
        cqe.wrap(s, 0, 32).clear().payloadLength(payload).tcpSeqNumRtt(rtt).completionContext(ctx)
            .invalidatedStag(stag).qpId(qp).wqeIndex(wqe).extended(b[0]).pushDropped(b[1]).srq(b[2])
            .ipv4(b[3]).solicitedEvent(b[4]).opType(op).sq(b[5]);
        if (b[6]) {
            cqe.error(major, minor);
        }
        cqe.valid(b[7]);
        assertEquals(CqeCheck.ACCEPTED, cqe.validate(b[7]));
        assertEquals(payload, cqe.payloadLength());
        assertEquals(rtt, cqe.tcpSeqNumRtt());
        assertEquals(ctx, cqe.completionContext());
        assertEquals(stag, cqe.invalidatedStag());
        assertEquals(qp, cqe.qpId());
        assertEquals(wqe, cqe.wqeIndex());
        assertEquals(b[0], cqe.extended());
        assertEquals(b[1], cqe.pushDropped());
        assertEquals(b[2], cqe.srq());
        assertEquals(b[3], cqe.ipv4());
        assertEquals(b[3], cqe.stagInvalidated());
        assertEquals(b[4], cqe.solicitedEvent());
        assertEquals(op, cqe.opType());
        assertEquals(b[5], cqe.sq());
        assertEquals(b[6], cqe.error());
        assertEquals(b[6] ? major : 0, cqe.majorError());
        assertEquals(b[6] ? minor : 0, cqe.minorError());

        ext.wrap(s, 32, 32).clear().immediateData(imm).vlan(vlan).sourceMac(mac).valid(!b[7]);
        assertEquals(CqeCheck.ACCEPTED, ext.validate(!b[7]));
        assertEquals(imm, ext.immediateData());
        assertEquals(vlan, ext.vlan());
        assertEquals(mac, ext.sourceMac());
        assertEquals(true, ext.vlanValid() && ext.sourceMacValid() && ext.immediateValid());
    }

    @Property(tries = 300)
    void eventEntriesRoundTrip(@ForAll long ctx, @ForAll @IntRange(max = (1 << 19) - 1) int id,
                               @ForAll @IntRange(max = 0xfff) int ae, @ForAll @IntRange(max = 15) int src,
                               @ForAll @IntRange(max = 7) int iw, @ForAll @IntRange(max = 15) int tcp,
                               @ForAll @IntRange(max = 0x7fff) int wqe, @ForAll @IntRange(max = 3) int q2,
                               @ForAll boolean overflow, @ForAll boolean valid, @ForAll long cq) {
        BytesStore<?, ?> s = Mem.heap(24);
        aeqe.wrap(s, 0, 16).write(ctx, id, ae, src, iw, tcp, wqe, q2, overflow, valid);
        assertEquals(CqeCheck.ACCEPTED, aeqe.validate(valid));
        assertEquals(ctx, aeqe.completionContext());
        assertEquals(id, aeqe.qpCqId());
        assertEquals(ae, aeqe.aeCode());
        assertEquals(src, aeqe.source());
        assertEquals(iw, aeqe.iwarpState());
        assertEquals(tcp, aeqe.tcpState());
        assertEquals(wqe, aeqe.wqeIndex());
        assertEquals(q2, aeqe.q2DataWritten());
        assertEquals(overflow, aeqe.overflow());
        assertNotNull(aeqe.target());
        long cqId = cq & QuadView.mask(62, 0);
        ceqe.wrap(s, 16, 8).write(cqId, valid);
        assertEquals(CqeCheck.ACCEPTED, ceqe.validate(valid));
        assertEquals(cqId, ceqe.cqContext());
    }

    /** Every SQ writer's output is accepted by the model's validate and reads back as written. */
    @Property(tries = 500)
    void sqWqeRoundTrip(@ForAll @Size(32) long[] stale, @ForAll boolean pol, @ForAll @IntRange(max = 2) int kind,
                        @ForAll @IntRange(max = 15) int flagBits, @ForAll boolean immediate,
                        @ForAll("sqFragments") List<Sge> fragments, @ForAll int stag, @ForAll long to,
                        @ForAll long immData, @ForAll @IntRange(max = 3) int send, @ForAll boolean variant) {
        BytesStore<?, ?> s = Mem.heap(256);
        for (int i = 0; i < 256; i += 8) {
            Mem.putQword(s, i, stale[i / 8]); // stale ring contents
        }
        int flags = flagBits | (kind != 2 && immediate ? SqWqe.IMMEDIATE : 0);
        boolean imm = (flags & SqWqe.IMMEDIATE) != 0;
        int n = fill(fragments);
        sq.wrap(s, 0, 256);
        int quanta;
        SqOpcode op;
        if (kind == 0) {
            op = SqOpcode.values()[2 + send];
            quanta = sq.writeSend(pol, op, sges, flags, immData, stag);
        } else if (kind == 1) {
            op = variant ? SqOpcode.RDMA_WRITE : SqOpcode.RDMA_WRITE_SOL;
            quanta = sq.writeRdmaWrite(pol, op, sges, stag, to, flags, immData);
            assertEquals(to, sq.remoteTaggedOffset());
        } else {
            boolean inv = variant;
            op = inv ? SqOpcode.RDMA_READ_LOC_INV : SqOpcode.RDMA_READ;
            quanta = sq.writeRdmaRead(pol, sges, stag, to, inv, flags);
            assertEquals(to, sq.remoteTaggedOffset());
        }
        assertEquals(WqeCheck.ACCEPTED, sq.validate(pol));
        assertEquals(quanta, sq.quanta());
        assertEquals(op, sq.sqOpcode());
        assertEquals(stag, sq.remoteStag());
        assertEquals(imm, sq.immediate());
        assertEquals((flags & SqWqe.SIGNALED) != 0, sq.signaled());
        assertEquals((flags & SqWqe.READ_FENCE) != 0, sq.readFence());
        assertEquals((flags & SqWqe.LOCAL_FENCE) != 0, sq.localFence());
        assertEquals((flags & SqWqe.REPORT_RTT) != 0, sq.reportRtt());
        if (imm) {
            assertEquals(immData, sq.immediateData());
        }
        int first = sq.firstDataSlot();
        for (int i = 0; i < n; i++) {
            assertEquals(sges.address(i), sq.fragmentAddress(first + i));
            assertEquals(sges.length(i), sq.fragmentLength(first + i));
            assertEquals(sges.stag(i), sq.fragmentStag(first + i));
        }
        for (int slot = first + n; slot < sq.fragmentSlots(); slot++) {
            assertEquals(0, sq.fragmentLength(slot)); // only the gen2 pad (or the null slot 0 of an empty list)
        }
        assertEquals(sges.totalLength(), sq.totalLength());
    }

    @Property(tries = 300)
    void inlineRoundTrip(@ForAll @Size(max = SqWqe.MAX_INLINE) byte[] data, @ForAll boolean pol,
                         @ForAll boolean write, @ForAll int stag, @ForAll long to) {
        BytesStore<?, ?> s = Mem.heap(256);
        BytesStore<?, ?> src = BytesStore.wrap(data.length == 0 ? new byte[1] : data);
        sq.wrap(s, 0, 256);
        int quanta = write
            ? sq.writeInlineRdmaWrite(pol, SqOpcode.RDMA_WRITE, src, 0, data.length, stag, to, SqWqe.SIGNALED, 0)
            : sq.writeInlineSend(pol, SqOpcode.RDMA_SEND_INV, src, 0, data.length, stag, 0, 0);
        assertEquals(WqeCheck.ACCEPTED, sq.validate(pol));
        assertEquals(quanta, sq.quanta());
        assertEquals(data.length, sq.inlineLength());
        BytesStore<?, ?> out = Mem.heap(256);
        assertEquals(data.length, sq.copyInline(out, 0));
        for (int i = 0; i < data.length; i++) {
            assertEquals(data[i], out.readByte(i));
        }
    }

    @Property(tries = 300)
    void rqWqeRoundTrip(@ForAll boolean pol, @ForAll("rqFragments") List<Sge> fragments) {
        BytesStore<?, ?> s = Mem.heap(256);
        int n = fill(fragments);
        int span = rq.wrap(s, 0, 256).write(pol, sges);
        assertEquals(WqeCheck.ACCEPTED, rq.validate(pol, RqWqe.wqeSizeFor(Math.max(n, 1)).getAsInt()));
        assertEquals(span, rq.spannedBytes());
        for (int i = 0; i < n; i++) {
            assertEquals(sges.address(i), rq.fragmentAddress(i));
            assertEquals(sges.length(i), rq.fragmentLength(i));
            assertEquals(sges.stag(i), rq.fragmentStag(i));
        }
        assertEquals(sges.totalLength(), rq.totalLength());
    }

    private void readAll(BytesStore<?, ?> s, long off, long len) {
        cqe.wrap(s, off, len);
        for (boolean p : new boolean[] {true, false}) {
            assertNotNull(cqe.validate(p));
            assertNotNull(ext.wrap(s, off, len).validate(p));
            assertNotNull(ceqe.wrap(s, off, len).validate(p));
            assertNotNull(aeqe.wrap(s, off, len).validate(p));
            assertNotNull(sq.wrap(s, off, len).validate(p));
            assertNotNull(rq.wrap(s, off, len).validate(p, 256));
            assertNotNull(rq.validate(p, 32));
        }
        cqe.payloadLength();
        cqe.qpId();
        cqe.wqeIndex();
        cqe.quadword(5);
        ext.vlan();
        ext.sourceMacByte(3);
        ceqe.cqIndex();
        aeqe.qpCqId();
        assertNotNull(aeqe.target());
        aeqe.ae();
        sq.quanta();
        sq.totalLength();
        sq.copyInline(Mem.heap(256), 0);
        for (int slot = -1; slot < 17; slot++) {
            sq.fragmentAddress(slot);
            sq.fragmentLength(slot);
            sq.fragmentValid(slot);
            rq.fragmentStag(slot);
        }
        rq.totalLength();
    }

    @Property(tries = 500)
    void randomBytesNeverThrow(@ForAll @Size(max = 300) byte[] bytes, @ForAll @IntRange(min = -8, max = 320) int off,
                               @ForAll @IntRange(min = -8, max = 400) int len, @ForAll boolean offHeap) {
        BytesStore<?, ?> s;
        if (offHeap) {
            s = BytesStore.nativeStoreWithFixedCapacity(bytes.length + 1);
            s.write(0, bytes, 0, bytes.length);
        } else {
            s = BytesStore.wrap(bytes);
        }
        try {
            readAll(s, off, len);
            readAll(s, 0, bytes.length);
        } finally {
            if (offHeap) {
                s.releaseLast();
            }
        }
    }

    /** Valid WQEs with one random bit flipped: the reader answers a check, never an exception. */
    @Property(tries = 500)
    void mutatedWqesNeverThrow(@ForAll("anyFragments") List<Sge> fragments, @ForAll @IntRange(max = 31) int flags,
                               @ForAll long immData, @ForAll int stag, @ForAll @IntRange(max = 255) int bitByte,
                               @ForAll @IntRange(max = 7) int bit) {
        BytesStore<?, ?> s = Mem.heap(256);
        fill(fragments);
        sq.wrap(s, 0, 256).writeSend(true, SqOpcode.RDMA_SEND, sges, flags, immData, stag);
        s.writeByte(bitByte, (byte) (s.readByte(bitByte) ^ (1 << bit)));
        readAll(s, 0, 256);
    }

    /** One scatter-gather entry. */
    record Sge(long address, int length, int stag) {
    }

    /** Copies a generated list into {@link #sges}; answers its size. */
    private int fill(List<Sge> fragments) {
        sges.clear();
        for (Sge f : fragments) {
            sges.add(f.address(), f.length(), f.stag());
        }
        return fragments.size();
    }

    /** Up to {@link SqWqe#MAX_FRAGMENTS} entries, lengths below {@code lengthLimit} (or any int when 0). */
    private static Arbitrary<List<Sge>> fragments(int lengthLimit) {
        Arbitrary<Integer> lengths = lengthLimit == 0 ? Arbitraries.integers()
                : Arbitraries.integers().between(0, lengthLimit - 1);
        return Combinators.combine(Arbitraries.longs(), lengths, Arbitraries.integers()).as(Sge::new).list()
                .ofMaxSize(SqWqe.MAX_FRAGMENTS).withSizeDistribution(RandomDistribution.uniform());
    }

    @Provide
    Arbitrary<List<Sge>> sqFragments() {
        return fragments(1 << 20);
    }

    @Provide
    Arbitrary<List<Sge>> rqFragments() {
        return fragments(1 << 24);
    }

    @Provide
    Arbitrary<List<Sge>> anyFragments() {
        return fragments(0);
    }
}
