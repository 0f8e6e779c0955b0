package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import java.util.List;
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

    /** A 4 KiB-aligned 48-bit address from any long. */
    private static long addr(long any) {
        return any & 0x0000_ffff_ffff_f000L;
    }

    @Property(tries = 300)
    void qpOpsRoundTrip(@ForAll boolean valid, @ForAll @IntRange(max = (1 << 24) - 1) int qpId,
                        @ForAll @IntRange(min = 1, max = 4) int qpType, @ForAll long hostContextAddress,
                        @ForAll long shadowAreaAddress, @ForAll boolean removeHashEntry,
                        @ForAll boolean ignoreMwBound, @ForAll boolean ordValid, @ForAll boolean tcpContextValid,
                        @ForAll boolean virtualMap, @ForAll boolean forceLoopback, @ForAll boolean cqNumValid,
                        @ForAll boolean macValid, @ForAll boolean arpIndexValid,
                        @ForAll @IntRange(max = 6) int nextIwarpState, @ForAll boolean cachedVarValid,
                        @ForAll @IntRange(max = (1 << 14) - 1) int newMss, @ForAll @IntRange(max = 15) int termLength,
                        @ForAll boolean mssChange, @ForAll @IntRange(max = 3) int termActions,
                        @ForAll boolean resetConnection) {
        QpOpFields f = new QpOpFields();
        f.qpId = qpId;
        f.qpType = qpType;
        f.hostContextAddress = hostContextAddress;
        f.shadowAreaAddress = shadowAreaAddress;
        f.removeHashEntry = removeHashEntry;
        // Destroy QP: its fields only
        QpOpFields d = new QpOpFields();
        d.qpId = f.qpId;
        d.qpType = f.qpType;
        d.hostContextAddress = f.hostContextAddress;
        d.shadowAreaAddress = f.shadowAreaAddress;
        d.removeHashEntry = f.removeHashEntry;
        d.ignoreMwBound = ignoreMwBound;
        CqpWqeWriter.destroyQp(s, 32, d, valid);
        Wqes.assertSameFields(d, new QpOpFields().readFrom(readBack(CqpOpcode.DESTROY_QP)));
        assertEquals(valid, w.valid());
        f.ordValid = ordValid;
        f.tcpContextValid = tcpContextValid;
        f.virtualMap = virtualMap;
        f.forceLoopback = forceLoopback;
        f.cqNumValid = cqNumValid;
        f.macValid = macValid;
        f.arpIndexValid = arpIndexValid;
        f.nextIwarpState = nextIwarpState;
        boolean keepHash = f.removeHashEntry;
        f.removeHashEntry = false;
        CqpWqeWriter.createQp(s, 32, f, valid);
        Wqes.assertSameFields(f, new QpOpFields().readFrom(readBack(CqpOpcode.CREATE_QP)));
        f.removeHashEntry = keepHash;
        f.cachedVarValid = cachedVarValid;
        f.newMss = newMss;
        f.termLength = termLength;
        f.mssChange = mssChange;
        f.termActions = termActions;
        f.resetConnection = resetConnection;
        CqpWqeWriter.modifyQp(s, 32, f, valid);
        Wqes.assertSameFields(f, new QpOpFields().readFrom(readBack(CqpOpcode.MODIFY_QP)));
    }

    @Property(tries = 300)
    void cqOpsRoundTrip(@ForAll boolean valid,
                        // Create CQ
                        @ForAll @IntRange(max = (1 << 21) - 1) int cqSize,
                        @ForAll @IntRange(max = (1 << 19) - 1) int cqId, @ForAll boolean ceqIdValid,
                        @ForAll @IntRange(max = 0xffff) int ceqId,
                        @ForAll @IntRange(max = (1 << 18) - 1) int shadowReadThreshold, @ForAll boolean virtualMap,
                        @ForAll long cqAddress, @ForAll @IntRange(max = (1 << 28) - 1) int firstPmPblIndex,
                        @ForAll @IntRange(min = 1, max = 2) int pblChunkSize, @ForAll long shadowAreaAddress,
                        @ForAll @IntRange(max = 0xff) int tphValue, @ForAll @IntRange(max = 0xffff) int vsiIndex,
                        @ForAll boolean checkOverflow, @ForAll boolean ceqeMask, @ForAll boolean tphEnable,
                        @ForAll boolean avoidMemConflict,
                        // Modify CQ
                        @ForAll @IntRange(max = (1 << 21) - 1) int mCqSize,
                        @ForAll @IntRange(max = (1 << 18) - 1) int mShadowReadThreshold, @ForAll long mCqAddress,
                        @ForAll long mShadowAreaAddress, @ForAll @IntRange(max = (1 << 28) - 1) int mFirstPmPblIndex,
                        @ForAll @IntRange(max = 0xff) int mTphValue, @ForAll @IntRange(max = 0xffff) int mVsiIndex,
                        @ForAll @IntRange(max = 2) int mPblChunkSize, @ForAll boolean mResize,
                        @ForAll boolean mCheckOverflow, @ForAll boolean mVirtualMap, @ForAll boolean mCeqeMask,
                        @ForAll boolean mTphEnable, @ForAll boolean mAvoidMemConflict) {
        CqOpFields f = new CqOpFields();
        f.cqSize = cqSize;
        f.cqId = cqId;
        f.ceqIdValid = ceqIdValid;
        f.ceqId = f.ceqIdValid ? ceqId : 0;
        f.shadowReadThreshold = shadowReadThreshold;
        f.virtualMap = virtualMap;
        f.cqAddress = f.virtualMap ? 0 : addr(cqAddress);
        f.firstPmPblIndex = f.virtualMap ? firstPmPblIndex : 0;
        f.pblChunkSize = f.virtualMap ? pblChunkSize : 0;
        f.shadowAreaAddress = addr(shadowAreaAddress);
        f.tphValue = tphValue;
        f.vsiIndex = vsiIndex;
        f.checkOverflow = checkOverflow;
        f.ceqeMask = ceqeMask;
        f.tphEnable = tphEnable;
        f.avoidMemConflict = avoidMemConflict;
        CqpWqeWriter.createCq(s, 32, f, valid);
        Wqes.assertSameFields(f, new CqOpFields().readFrom(readBack(CqpOpcode.CREATE_CQ)));

        CqOpFields m = new CqOpFields();
        m.cqSize = mCqSize;
        m.cqId = f.cqId;
        m.shadowReadThreshold = mShadowReadThreshold;
        m.cqAddress = mCqAddress;
        m.shadowAreaAddress = mShadowAreaAddress;
        m.firstPmPblIndex = mFirstPmPblIndex;
        m.tphValue = mTphValue;
        m.vsiIndex = mVsiIndex;
        m.pblChunkSize = mPblChunkSize;
        m.resize = mResize;
        m.checkOverflow = mCheckOverflow;
        m.virtualMap = mVirtualMap;
        m.ceqeMask = mCeqeMask;
        m.tphEnable = mTphEnable;
        m.avoidMemConflict = mAvoidMemConflict;
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
    void eqOpsRoundTrip(@ForAll boolean valid, @ForAll boolean ceq,
                        @ForAll @IntRange(max = (1 << 22) - 1) int elementCount, @ForAll boolean virtualMap,
                        @ForAll long address, @ForAll @IntRange(max = (1 << 28) - 1) int firstPmPblIndex,
                        @ForAll @IntRange(min = 1, max = 2) int pblChunkSize,
                        @ForAll @IntRange(max = (1 << 20) - 1) int pasid, @ForAll boolean pasidValid,
                        @ForAll @IntRange(max = 0xffff) int ceqId, @ForAll @IntRange(max = 0xff) int tphValue,
                        @ForAll @IntRange(max = 0xffff) int vsiIndex, @ForAll boolean itrNoExpire,
                        @ForAll boolean tphEnable) {
        EqOpFields f = new EqOpFields();
        f.elementCount = ceq ? elementCount : elementCount & ((1 << 19) - 1);
        f.virtualMap = virtualMap;
        f.address = f.virtualMap ? 0 : addr(address);
        f.firstPmPblIndex = f.virtualMap ? firstPmPblIndex : 0;
        f.pblChunkSize = f.virtualMap ? pblChunkSize : 0;
        f.pasid = pasid;
        f.pasidValid = pasidValid;
        if (ceq) {
            f.ceqId = ceqId;
            f.tphValue = tphValue;
            f.vsiIndex = vsiIndex;
            f.itrNoExpire = itrNoExpire;
            f.tphEnable = tphEnable;
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
    void qhashRoundTrip(@ForAll boolean valid, @ForAll @LongRange(max = 0xffff_ffff_ffffL) long mac,
                        @ForAll @IntRange(max = (1 << 18) - 1) int qpNumber,
                        @ForAll @IntRange(max = 0xffff) int destPort, @ForAll @IntRange(max = 0x3ff) int qsHandle,
                        @ForAll boolean vlanValid, @ForAll @IntRange(max = 0xfff) int vlanId, @ForAll boolean ipv4,
                        @ForAll @IntRange(max = 2) int manage, @ForAll @IntRange(min = 1, max = 6) int entryType,
                        @ForAll @Size(4) int[] destIp, @ForAll @Size(4) int[] srcIp,
                        @ForAll @IntRange(max = 0xffff) int srcPort) {
        QhashFields f = new QhashFields();
        f.mac = mac;
        f.qpNumber = qpNumber;
        f.destPort = destPort;
        f.qsHandle = qsHandle;
        f.vlanValid = vlanValid;
        f.vlanId = f.vlanValid ? vlanId : 0;
        f.ipv4 = ipv4;
        f.manage = manage;
        f.entryType = entryType;
        boolean established = f.entryType == CqpWqe.QHASH_TYPE_TCP_ESTABLISHED;
        for (int i = 0; i < (f.ipv4 ? 1 : 4); i++) {
            f.destIp[i] = destIp[i];
            f.srcIp[i] = established ? srcIp[i] : 0;
        }
        f.srcPort = established ? srcPort : 0;
        CqpWqeWriter.manageQhash(s, 32, f, valid);
        Wqes.assertSameFields(f, new QhashFields().readFrom(readBack(CqpOpcode.MANAGE_QUAD_HASH_TABLE_ENTRY)));
    }

    @Property(tries = 300)
    void stagOpsRoundTrip(@ForAll boolean valid, @ForAll @IntRange(max = (1 << 24) - 1) int pdId,
                          @ForAll @IntRange(max = (1 << 24) - 1) int stagIndex,
                          @ForAll @LongRange(max = (1L << 46) - 1) long length,
                          @ForAll @IntRange(max = 0xffff) int hmcFcnIndex,
                          @ForAll("pblChunkSizes") int pblChunkSize,
                          @ForAll @IntRange(max = (1 << 28) - 1) int firstPmPblIndex,
                          @ForAll @IntRange(max = 2) int pageSize, @ForAll @IntRange(max = 31) int accessRights,
                          @ForAll boolean remoteAccess, @ForAll boolean useHmcFcnIndex, @ForAll boolean usePfRid,
                          @ForAll @IntRange(max = 0xff) int stagKey, @ForAll boolean vaBased, @ForAll long vaOrFbo,
                          @ForAll long regAddress, @ForAll boolean deallocMr) {
        StagFields f = new StagFields();
        f.pdId = pdId;
        f.stagIndex = stagIndex;
        f.length = length;
        f.hmcFcnIndex = hmcFcnIndex;
        f.pblChunkSize = pblChunkSize;
        f.firstPmPblIndex = f.pblChunkSize != 0 ? firstPmPblIndex : 0;
        f.pageSize = pageSize;
        f.accessRights = accessRights;
        f.remoteAccess = remoteAccess;
        f.useHmcFcnIndex = useHmcFcnIndex;
        f.usePfRid = usePfRid;
        f.mr = true;
        CqpWqeWriter.allocStag(s, 32, f, valid);
        Wqes.assertSameFields(f, new StagFields().readFrom(readBack(CqpOpcode.ALLOC_STAG)));
        f.stagKey = stagKey;
        f.vaBased = vaBased;
        f.vaOrFbo = vaOrFbo;
        f.regAddress = f.pblChunkSize == 0 ? regAddress : 0;
        CqpWqeWriter.registerMr(s, 32, f, valid);
        Wqes.assertSameFields(f, new StagFields().readFrom(readBack(CqpOpcode.REG_MR)));
        StagFields d = new StagFields();
        d.pdId = f.pdId;
        d.stagIndex = f.stagIndex;
        d.mr = deallocMr;
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
    void updatePeSdsRoundTrip(@ForAll("sdEntries") List<SdEntry> entries, @ForAll boolean valid,
                              @ForAll @IntRange(max = 63) int fn, @ForAll long buffer) {
        int count = entries.size();
        long[] cmds = new long[count];
        long[] datas = new long[count];
        for (int i = 0; i < count; i++) {
            SdEntry e = entries.get(i);
            cmds[i] = SegmentDescriptor.command(e.index());
            long page = e.direct() ? (e.page() & 0xffff_ffe0_0000L) : addr(e.page());
            datas[i] = e.set() ? SegmentDescriptor.setData(page, e.direct()) : SegmentDescriptor.clearData(e.direct());
        }
        long bufPa = (buffer & 0xffff_ffff_ff80L) | 0x80;
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
    void flippedBitsAreCaughtOrHarmless(@ForAll @IntRange(max = (1 << 18) - 1) int qpNumber, @ForAll int destIp,
                                        @ForAll @IntRange(max = 0xffff) int destPort,
                                        @ForAll @IntRange(max = 511) int bitIndex) {
        QhashFields f = new QhashFields();
        f.qpNumber = qpNumber;
        f.ipv4 = true;
        f.destIp[0] = destIp;
        f.destPort = destPort;
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

    /** verbs.c irdma_hwreg_mr: no PBL, one level, two levels. */
    @Provide
    Arbitrary<Integer> pblChunkSizes() {
        return Arbitraries.of(0, 1, 3);
    }

    /** One Update PE SDs entry: SD {@code index}, a direct (2 MiB) or paged SD, set at {@code page} or cleared. */
    record SdEntry(int index, boolean direct, long page, boolean set) {
    }

    /** 1 to 11 entries (3 in the WQE, the rest in the buffer). */
    @Provide
    Arbitrary<List<SdEntry>> sdEntries() {
        return Combinators.combine(Arbitraries.integers().between(0, 8191), Arbitraries.of(true, false),
                Arbitraries.longs(), Arbitraries.of(true, false)).as(SdEntry::new).list().ofMinSize(1).ofMaxSize(11)
                .withSizeDistribution(RandomDistribution.uniform());
    }
}
