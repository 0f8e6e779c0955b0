package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.irdmaemu.fw.Draws;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Writer then reader: for every op, random in-range fields written by {@link CqpWqeWriter} validate and read back
 * equal (field by field); random and mutated bytes never make the reader throw.
 */
class CqpWqeProperties {
    private final BytesStore<?, ?> s = Wqes.heap(128);
    private final CqpWqe w = new CqpWqe();

    private CqpWqe readBack(CqpOpcode expected) {
        w.wrap(s, 32);
        assertEquals(CqpWqeCheck.ACCEPTED, w.validate(), () -> expected + " failed at " + w.failedAt());
        assertEquals(expected, w.opcode());
        return w;
    }

    private static long addr(Draws r) {
        return r.nextLong() & 0x0000_ffff_ffff_f000L;
    }

    @Property(tries = 300)
    void qpOpsRoundTrip(@ForAll("draws") Draws r, @ForAll boolean valid) {
        QpOpFields f = new QpOpFields();
        f.qpId = r.nextInt(1 << 24);
        f.qpType = 1 + r.nextInt(4);
        f.hostContextAddress = r.nextLong();
        f.shadowAreaAddress = r.nextLong();
        f.removeHashEntry = r.nextBoolean();
        // Destroy QP: its fields only
        QpOpFields d = new QpOpFields();
        d.qpId = f.qpId;
        d.qpType = f.qpType;
        d.hostContextAddress = f.hostContextAddress;
        d.shadowAreaAddress = f.shadowAreaAddress;
        d.removeHashEntry = f.removeHashEntry;
        d.ignoreMwBound = r.nextBoolean();
        CqpWqeWriter.destroyQp(s, 32, d, valid);
        Wqes.assertSameFields(d, new QpOpFields().readFrom(readBack(CqpOpcode.DESTROY_QP)));
        assertEquals(valid, w.valid());
        f.ordValid = r.nextBoolean();
        f.tcpContextValid = r.nextBoolean();
        f.virtualMap = r.nextBoolean();
        f.forceLoopback = r.nextBoolean();
        f.cqNumValid = r.nextBoolean();
        f.macValid = r.nextBoolean();
        f.arpIndexValid = r.nextBoolean();
        f.nextIwarpState = r.nextInt(7);
        boolean keepHash = f.removeHashEntry;
        f.removeHashEntry = false;
        CqpWqeWriter.createQp(s, 32, f, valid);
        Wqes.assertSameFields(f, new QpOpFields().readFrom(readBack(CqpOpcode.CREATE_QP)));
        f.removeHashEntry = keepHash;
        f.cachedVarValid = r.nextBoolean();
        f.newMss = r.nextInt(1 << 14);
        f.termLength = r.nextInt(16);
        f.mssChange = r.nextBoolean();
        f.termActions = r.nextInt(4);
        f.resetConnection = r.nextBoolean();
        CqpWqeWriter.modifyQp(s, 32, f, valid);
        Wqes.assertSameFields(f, new QpOpFields().readFrom(readBack(CqpOpcode.MODIFY_QP)));
    }

    @Property(tries = 300)
    void cqOpsRoundTrip(@ForAll("draws") Draws r, @ForAll boolean valid) {
        CqOpFields f = new CqOpFields();
        f.cqSize = r.nextInt(1 << 21);
        f.cqId = r.nextInt(1 << 19);
        f.ceqIdValid = r.nextBoolean();
        f.ceqId = f.ceqIdValid ? r.nextInt(1 << 16) : 0;
        f.shadowReadThreshold = r.nextInt(1 << 18);
        f.virtualMap = r.nextBoolean();
        f.cqAddress = f.virtualMap ? 0 : addr(r);
        f.firstPmPblIndex = f.virtualMap ? r.nextInt(1 << 28) : 0;
        f.pblChunkSize = f.virtualMap ? 1 + r.nextInt(2) : 0;
        f.shadowAreaAddress = addr(r);
        f.tphValue = r.nextInt(256);
        f.vsiIndex = r.nextInt(1 << 16);
        f.checkOverflow = r.nextBoolean();
        f.ceqeMask = r.nextBoolean();
        f.tphEnable = r.nextBoolean();
        f.avoidMemConflict = r.nextBoolean();
        CqpWqeWriter.createCq(s, 32, f, valid);
        Wqes.assertSameFields(f, new CqOpFields().readFrom(readBack(CqpOpcode.CREATE_CQ)));

        CqOpFields m = new CqOpFields();
        m.cqSize = r.nextInt(1 << 21);
        m.cqId = f.cqId;
        m.shadowReadThreshold = r.nextInt(1 << 18);
        m.cqAddress = r.nextLong();
        m.shadowAreaAddress = r.nextLong();
        m.firstPmPblIndex = r.nextInt(1 << 28);
        m.tphValue = r.nextInt(256);
        m.vsiIndex = r.nextInt(1 << 16);
        m.pblChunkSize = r.nextInt(3);
        m.resize = r.nextBoolean();
        m.checkOverflow = r.nextBoolean();
        m.virtualMap = r.nextBoolean();
        m.ceqeMask = r.nextBoolean();
        m.tphEnable = r.nextBoolean();
        m.avoidMemConflict = r.nextBoolean();
        CqpWqeWriter.modifyCq(s, 32, m, valid);
        Wqes.assertSameFields(m, new CqOpFields().readFrom(readBack(CqpOpcode.MODIFY_CQ)));

        CqOpFields d = new CqOpFields();
        d.cqSize = f.cqSize;
        d.cqId = f.cqId;
        d.ceqIdValid = f.ceqIdValid;
        d.ceqId = f.ceqId & 0x3ff; // Destroy CQ carries only the 10-bit ICRDMA_CQPSQ_CQ_CEQID
        d.shadowAreaAddress = f.shadowAreaAddress;
        d.virtualMap = f.virtualMap;
        d.firstPmPblIndex = f.firstPmPblIndex;
        d.pblChunkSize = f.pblChunkSize;
        d.ceqeMask = f.ceqeMask;
        d.tphEnable = f.tphEnable;
        d.avoidMemConflict = f.avoidMemConflict;
        CqpWqeWriter.destroyCq(s, 32, d, valid);
        Wqes.assertSameFields(d, new CqOpFields().readFrom(readBack(CqpOpcode.DESTROY_CQ)));
    }

    @Property(tries = 300)
    void eqOpsRoundTrip(@ForAll("draws") Draws r, @ForAll boolean valid, @ForAll boolean ceq) {
        EqOpFields f = new EqOpFields();
        f.elementCount = r.nextInt(ceq ? 1 << 22 : 1 << 19);
        f.virtualMap = r.nextBoolean();
        f.address = f.virtualMap ? 0 : addr(r);
        f.firstPmPblIndex = f.virtualMap ? r.nextInt(1 << 28) : 0;
        f.pblChunkSize = f.virtualMap ? 1 + r.nextInt(2) : 0;
        f.pasid = r.nextInt(1 << 20);
        f.pasidValid = r.nextBoolean();
        if (ceq) {
            f.ceqId = r.nextInt(1 << 16);
            f.tphValue = r.nextInt(256);
            f.vsiIndex = r.nextInt(1 << 16);
            f.itrNoExpire = r.nextBoolean();
            f.tphEnable = r.nextBoolean();
            CqpWqeWriter.createCeq(s, 32, f, valid);
            Wqes.assertSameFields(f, new EqOpFields().readFrom(readBack(CqpOpcode.CREATE_CEQ)));
            f.tphValue = 0;
            f.vsiIndex = 0;
            f.itrNoExpire = false;
            f.address = 0;
            CqpWqeWriter.destroyCeq(s, 32, f, valid);
            Wqes.assertSameFields(f, new EqOpFields().readFrom(readBack(CqpOpcode.DESTROY_CEQ)));
        } else {
            CqpWqeWriter.createAeq(s, 32, f, valid);
            Wqes.assertSameFields(f, new EqOpFields().readFrom(readBack(CqpOpcode.CREATE_AEQ)));
            f.address = 0;
            CqpWqeWriter.destroyAeq(s, 32, f, valid);
            Wqes.assertSameFields(f, new EqOpFields().readFrom(readBack(CqpOpcode.DESTROY_AEQ)));
        }
    }

    @Property(tries = 400)
    void qhashRoundTrip(@ForAll("draws") Draws r, @ForAll boolean valid) {
        QhashFields f = new QhashFields();
        f.mac = r.nextLong() & 0xffff_ffff_ffffL;
        f.qpNumber = r.nextInt(1 << 18);
        f.destPort = r.nextInt(1 << 16);
        f.qsHandle = r.nextInt(1 << 10);
        f.vlanValid = r.nextBoolean();
        f.vlanId = f.vlanValid ? r.nextInt(1 << 12) : 0;
        f.ipv4 = r.nextBoolean();
        f.manage = r.nextInt(3);
        f.entryType = 1 + r.nextInt(6);
        boolean established = f.entryType == CqpWqe.QHASH_TYPE_TCP_ESTABLISHED;
        for (int i = 0; i < (f.ipv4 ? 1 : 4); i++) {
            f.destIp[i] = r.nextInt();
            f.srcIp[i] = established ? r.nextInt() : 0;
        }
        f.srcPort = established ? r.nextInt(1 << 16) : 0;
        CqpWqeWriter.manageQhash(s, 32, f, valid);
        Wqes.assertSameFields(f, new QhashFields().readFrom(readBack(CqpOpcode.MANAGE_QUAD_HASH_TABLE_ENTRY)));
    }

    @Property(tries = 300)
    void stagOpsRoundTrip(@ForAll("draws") Draws r, @ForAll boolean valid) {
        StagFields f = new StagFields();
        f.pdId = r.nextInt(1 << 24);
        f.stagIndex = r.nextInt(1 << 24);
        f.length = r.nextLong() & ((1L << 46) - 1);
        f.hmcFcnIndex = r.nextInt(1 << 16);
        f.pblChunkSize = new int[] {0, 1, 3}[r.nextInt(3)]; // verbs.c irdma_hwreg_mr: none, one level, two
        f.firstPmPblIndex = f.pblChunkSize != 0 ? r.nextInt(1 << 28) : 0;
        f.pageSize = r.nextInt(3);
        f.accessRights = r.nextInt(32);
        f.remoteAccess = r.nextBoolean();
        f.useHmcFcnIndex = r.nextBoolean();
        f.usePfRid = r.nextBoolean();
        f.mr = true;
        CqpWqeWriter.allocStag(s, 32, f, valid);
        Wqes.assertSameFields(f, new StagFields().readFrom(readBack(CqpOpcode.ALLOC_STAG)));
        f.stagKey = r.nextInt(256);
        f.vaBased = r.nextBoolean();
        f.vaOrFbo = r.nextLong();
        f.regAddress = f.pblChunkSize == 0 ? r.nextLong() : 0;
        CqpWqeWriter.registerMr(s, 32, f, valid);
        Wqes.assertSameFields(f, new StagFields().readFrom(readBack(CqpOpcode.REG_MR)));
        StagFields d = new StagFields();
        d.pdId = f.pdId;
        d.stagIndex = f.stagIndex;
        d.mr = r.nextBoolean();
        CqpWqeWriter.deallocStag(s, 32, d, valid);
        Wqes.assertSameFields(d, new StagFields().readFrom(readBack(CqpOpcode.DEALLOC_STAG)));
    }

    @Property(tries = 300)
    void smallOpsRoundTrip(@ForAll @IntRange(max = 0xffff) int port, @ForAll boolean add, @ForAll boolean valid,
                           @ForAll @IntRange(max = 0xfff) int arpIndex, @ForAll long mac, @ForAll int reach,
                           @ForAll @IntRange(max = 0xff) int fn, @ForAll long buffer, @ForAll boolean scratch) {
        CqpWqeWriter.manageApbvt(s, 32, port, add, valid);
        readBack(CqpOpcode.MANAGE_APBVT);
        assertEquals(port, w.apbvtPort());
        assertEquals(add, w.apbvtAdd());
        CqpWqeWriter.addArpEntry(s, 32, arpIndex, reach & 0xffff_ffffL, mac, add, valid);
        readBack(CqpOpcode.MANAGE_ARP);
        assertEquals(arpIndex, w.arpIndex());
        assertEquals(mac & 0xffff_ffff_ffffL, w.arpMac());
        assertEquals(reach & 0xffff_ffffL, w.arpReachMax());
        assertEquals(add, w.arpPermanent());
        CqpWqeWriter.queryFpm(s, 32, fn, buffer, valid);
        readBack(CqpOpcode.QUERY_FPM_VAL);
        assertEquals(fn, w.fpmHmcFnId());
        assertEquals(buffer, w.fpmBufferAddress());
        CqpWqeWriter.commitFpm(s, 32, fn, buffer, scratch, valid);
        readBack(CqpOpcode.COMMIT_FPM_VAL);
        assertEquals(scratch, w.fpmScratchBufferPresent());
        CqpWqeWriter.nop(s, 32, valid);
        assertEquals(valid, readBack(CqpOpcode.NOP).valid());
        CqpWqeWriter.queryRdmaFeatures(s, 32, buffer, reach, valid);
        readBack(CqpOpcode.QUERY_RDMA_FEATURES);
        assertEquals(buffer, w.featuresBufferAddress());
        assertEquals(reach, w.featuresBufferLength());
        CqpWqeWriter.staticHmcPagesAllocated(s, 32, fn & 0x3f, valid);
        assertEquals(fn & 0x3f, readBack(CqpOpcode.SHMC_PAGES_ALLOCATED).shmcHmcFnId());
    }

    @Property(tries = 300)
    void updatePeSdsRoundTrip(@ForAll("draws") Draws r, @ForAll @IntRange(min = 1, max = 11) int count,
                              @ForAll boolean valid) {
        long[] cmds = new long[count];
        long[] datas = new long[count];
        for (int i = 0; i < count; i++) {
            cmds[i] = SegmentDescriptor.command(r.nextInt(8192));
            boolean direct = r.nextBoolean();
            long page = direct ? (r.nextLong() & 0xffff_ffe0_0000L) : addr(r);
            datas[i] = r.nextBoolean() ? SegmentDescriptor.setData(page, direct) : SegmentDescriptor.clearData(direct);
        }
        int fn = r.nextInt(64);
        long bufPa = (r.nextLong() & 0xffff_ffff_ff80L) | 0x80;
        BytesStore<?, ?> buf = Wqes.heap(8 * 16);
        CqpWqeWriter.updatePeSds(s, 32, fn, cmds, datas, count, bufPa, buf, 0, valid);
        readBack(CqpOpcode.UPDATE_PE_SDS);
        assertEquals(count, w.sdTotalCount());
        assertEquals(fn, w.sdHmcFnId());
        assertEquals(count > 3 ? bufPa : 0, w.sdBufferAddress());
        for (int i = 0; i < count; i++) {
            long c = i < 3 ? w.sdEntryCommand(i) : buf.readLong((i - 3) * 16L);
            long d = i < 3 ? w.sdEntryData(i) : buf.readLong((i - 3) * 16L + 8);
            assertEquals(cmds[i], c, "command " + i);
            assertEquals(datas[i], d, "data " + i);
        }
    }

    /** Every accessor over any window of random bytes: no exception, whatever the opcode. */
    private void exercise(BytesStore<?, ?> b, long off, long len) {
        assertNotNull(w.wrap(b, off, len).validate());
        w.opcode();
        w.valid();
        w.postedFor(true);
        new QpOpFields().readFrom(w);
        new CqOpFields().readFrom(w);
        new EqOpFields().readFrom(w);
        new QhashFields().readFrom(w);
        new StagFields().readFrom(w);
        w.apbvtPort();
        w.arpMac();
        w.arpReachMax();
        w.fpmBufferAddress();
        w.fpmBufferSize();
        w.sdTotalCount();
        w.sdBufferAddress();
        w.featuresBufferLength();
        w.shmcHmcFnId();
        for (int i = -1; i < 4; i++) {
            w.sdEntryCommand(i);
            w.sdEntryData(i);
            w.qhashDestIp(i);
        }
        w.failedAt();
    }

    @Property(tries = 500)
    void randomBytesNeverThrow(@ForAll @Size(max = 140) byte[] bytes, @ForAll @IntRange(min = -8, max = 200) int off,
                               @ForAll @IntRange(min = -8, max = 300) int len) {
        BytesStore<?, ?> b = BytesStore.wrap(bytes);
        exercise(b, off, len);
        exercise(b, 0, bytes.length);
    }

    /** Random quadwords under every defined opcode: validate answers and never throws; accepted ones read. */
    @Property(tries = 1000)
    void randomWqesUnderEveryOpcodeNeverThrow(@ForAll @Size(8) long[] qw, @ForAll @IntRange(max = 63) int code,
                                              @ForAll @IntRange(max = 7) int clearMask) {
        BytesStore<?, ?> b = Wqes.heap(64);
        for (int i = 0; i < 8; i++) {
            // clear some quadwords so that sparse, plausible WQEs are reached too
            b.writeLong(8L * i, (clearMask >> (i % 3) & 1) == 1 ? 0 : qw[i]);
        }
        long hdr = b.readLong(24);
        b.writeLong(24, (hdr & ~(0x3fL << 32)) | (long) code << 32);
        exercise(b, 0, 64);
        CqpWqeCheck c = w.wrap(b, 0).validate();
        if (CqpOpcode.of(code) == null) {
            assertEquals(CqpWqeCheck.UNKNOWN_OPCODE, c);
        } else if (!CqpOpcode.of(code).modelled()) {
            assertEquals(CqpWqeCheck.UNSUPPORTED_OPCODE, c);
        }
        if (!c.accepted()) {
            assertEquals(true, w.failedAt() >= 0 && w.failedAt() < 64, "failedAt inside the WQE");
        }
    }

    /** A written WQE with one random bit flipped: never throws; a flip outside the op's fields is always caught. */
    @Property(tries = 1000)
    void flippedBitsAreCaughtOrHarmless(@ForAll("draws") Draws r, @ForAll @IntRange(max = 511) int bitIndex) {
        QhashFields f = new QhashFields();
        f.qpNumber = r.nextInt(1 << 18);
        f.ipv4 = true;
        f.destIp[0] = r.nextInt();
        f.destPort = r.nextInt(1 << 16);
        f.manage = 1;
        f.entryType = 2;
        CqpWqeWriter.manageQhash(s, 32, f, true);
        int q = bitIndex / 64;
        long bit = 1L << (bitIndex % 64);
        s.writeLong(32 + 8L * q, s.readLong(32 + 8L * q) ^ bit);
        w.wrap(s, 32);
        CqpWqeCheck c = w.validate();
        if ((CqpWqe.usedBits(CqpOpcode.MANAGE_QUAD_HASH_TABLE_ENTRY, q) & bit) == 0) {
            assertEquals(CqpWqeCheck.RESERVED_BITS_SET, c);
            assertEquals(8 * q + (bitIndex % 64) / 8, w.failedAt());
        }
        exercise(s, 32, 64);
    }

    /** Random choices jqwik shrinks (see {@link Draws}): 64, more than any property here reads. */
    @Provide
    Arbitrary<Draws> draws() {
        return Draws.of(64);
    }
}
