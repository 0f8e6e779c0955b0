package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Each typed rejection of a WQE from a hostile host, with the byte it points at. */
class CqpWqeValidationTest {
    private final BytesStore<?, ?> s = Wqes.heap(64);
    private final CqpWqe w = new CqpWqe();

    private void orQword(int byteIndex, long bits) {
        s.writeLong(byteIndex, s.readLong(byteIndex) | bits);
    }

    private void setHeaderField(long mask, long value) {
        long h = s.readLong(24);
        s.writeLong(24, h & ~mask | value << Long.numberOfTrailingZeros(mask) & mask);
    }

    private void expect(CqpWqeCheck check, int at) {
        assertEquals(check, w.wrap(s, 0).validate());
        assertEquals(at, w.failedAt());
    }

    private QpOpFields qp() {
        QpOpFields f = new QpOpFields();
        f.qpId = 4;
        f.qpType = 1;
        f.hostContextAddress = 0x1000;
        return f;
    }

    @Test
    void opcodes() {
        s.writeLong(24, 0x17L << 32);
        expect(CqpWqeCheck.UNKNOWN_OPCODE, 28);
        s.writeLong(24, 0x06L << 32); // Create SRQ: defined, gen3, not decoded
        expect(CqpWqeCheck.UNSUPPORTED_OPCODE, 28);
        assertEquals(CqpWqeCheck.TRUNCATED, w.wrap(s, 8).validate());
        assertEquals(56, w.failedAt());
        assertEquals(CqpWqeCheck.TRUNCATED, w.wrap(null, 0, 64).validate());
        assertEquals(CqpWqeCheck.TRUNCATED, w.wrap(s, -1, 64).validate());
    }

    @Test
    void reservedBits() {
        CqpWqeWriter.createQp(s, 0, qp(), true);
        orQword(8, 1L << 33); // Create QP writes nothing at byte 8 (NEWMSS is Modify's)
        expect(CqpWqeCheck.RESERVED_BITS_SET, 12);
        CqpWqeWriter.createQp(s, 0, qp(), true);
        orQword(24, CqpWqe.QP_MSSCHANGE); // a Modify-only flag on Create
        expect(CqpWqeCheck.RESERVED_BITS_SET, 30);
        CqpWqeWriter.manageApbvt(s, 0, 80, true, true);
        orQword(16, 1L << 16); // port is 16 bits
        expect(CqpWqeCheck.RESERVED_BITS_SET, 18);
        CqpWqeWriter.addArpEntry(s, 0, 0xfff, 0, 2, false, true);
        orQword(24, 1L << 12); // ARPENTRYIDX is 11:0
        expect(CqpWqeCheck.RESERVED_BITS_SET, 25);
    }

    @Test
    void qpFields() {
        QpOpFields f = qp();
        f.qpType = 0;
        CqpWqeWriter.modifyQp(s, 0, f, true);
        expect(CqpWqeCheck.BAD_QP_TYPE, 30);
        f.qpType = 5;
        CqpWqeWriter.destroyQp(s, 0, f, true);
        expect(CqpWqeCheck.BAD_QP_TYPE, 30);
        f.qpType = 1;
        f.nextIwarpState = 7;
        CqpWqeWriter.modifyQp(s, 0, f, true);
        expect(CqpWqeCheck.BAD_IWARP_STATE, 31);
    }

    @Test
    void cqFields() {
        CqOpFields f = new CqOpFields();
        f.cqId = 12;
        f.cqSize = 64;
        CqpWqeWriter.createCq(s, 0, f, true);
        setHeaderField(CqpWqe.CQ_CQID, 13);
        expect(CqpWqeCheck.CQ_ID_MISMATCH, 24);
        CqpWqeWriter.modifyCq(s, 0, f, true);
        s.writeLong(8, 13);
        expect(CqpWqeCheck.CQ_ID_MISMATCH, 24);
        CqpWqeWriter.destroyCq(s, 0, f, true);
        setHeaderField(CqpWqe.LPBLSIZE, 3);
        expect(CqpWqeCheck.BAD_PBL_CHUNK_SIZE, 29);
        EqOpFields e = new EqOpFields();
        e.elementCount = 8;
        e.pblChunkSize = 3;
        CqpWqeWriter.createAeq(s, 0, e, true);
        expect(CqpWqeCheck.BAD_PBL_CHUNK_SIZE, 29);
    }

    @Test
    void qhashFields() {
        QhashFields f = new QhashFields();
        f.ipv4 = true;
        f.manage = 3;
        f.entryType = 2;
        CqpWqeWriter.manageQhash(s, 0, f, true);
        expect(CqpWqeCheck.BAD_QHASH_MANAGE, 31);
        f.manage = 1;
        f.entryType = 0;
        CqpWqeWriter.manageQhash(s, 0, f, true);
        expect(CqpWqeCheck.BAD_QHASH_ENTRY_TYPE, 29);
        f.entryType = 7;
        CqpWqeWriter.manageQhash(s, 0, f, true);
        expect(CqpWqeCheck.BAD_QHASH_ENTRY_TYPE, 29);
        f.entryType = 2;
        CqpWqeWriter.manageQhash(s, 0, f, true);
        orQword(48, 1L << 40); // an IPv4 address has no high word
        expect(CqpWqeCheck.RESERVED_BITS_SET, 52);
        CqpWqeWriter.manageQhash(s, 0, f, true);
        orQword(32, 5); // a listen entry carries no remote address
        expect(CqpWqeCheck.RESERVED_BITS_SET, 32);
        CqpWqeWriter.manageQhash(s, 0, f, true);
        orQword(8, 80L << 16); // nor a remote port
        expect(CqpWqeCheck.RESERVED_BITS_SET, 10);
    }

    @Test
    void stagFields() {
        StagFields f = new StagFields();
        f.pageSize = 3;
        f.mr = true;
        CqpWqeWriter.registerMr(s, 0, f, true);
        expect(CqpWqeCheck.BAD_PAGE_SIZE, 29);
        f.pageSize = 0;
        f.pblChunkSize = 2;
        CqpWqeWriter.allocStag(s, 0, f, true);
        expect(CqpWqeCheck.BAD_PBL_CHUNK_SIZE, 29);
        // verbs.c irdma_hwreg_mr: a two-level PBL is chunk size 3
        f.pblChunkSize = 3;
        f.length = 1L << 24;
        f.firstPmPblIndex = 17;
        CqpWqeWriter.registerMr(s, 0, f, true);
        assertEquals(CqpWqeCheck.ACCEPTED, w.wrap(s, 0).validate());
    }

    /** irdma_sc_alloc_stag always sets MR; irdma_sc_mw_alloc clears it and writes only PD, index and MW flags. */
    @Test
    void stagFlagCombinations() {
        StagFields f = new StagFields();
        f.stagIndex = 9;
        f.pdId = 2;
        f.mwWide = true;
        CqpWqeWriter.allocMw(s, 0, f, true);
        assertEquals(CqpWqeCheck.ACCEPTED, w.wrap(s, 0).validate());
        assertEquals(false, w.stagMr());
        assertEquals(true, w.stagMwWide());
        orQword(8, 0x1000); // a length on a window
        expect(CqpWqeCheck.INCONSISTENT_FLAGS, 29);
        CqpWqeWriter.allocStag(s, 0, f, true);
        assertEquals(CqpWqeCheck.ACCEPTED, w.wrap(s, 0).validate(), "allocStag ignores the window flags");
        orQword(24, CqpWqe.STAG_MWTYPE);
        expect(CqpWqeCheck.INCONSISTENT_FLAGS, 29);
        CqpWqeWriter.registerMr(s, 0, f, true);
        s.writeLong(24, s.readLong(24) & ~CqpWqe.STAG_MR);
        expect(CqpWqeCheck.INCONSISTENT_FLAGS, 29);
    }

    @Test
    void conditionallyUnwrittenFields() {
        CqOpFields c = new CqOpFields();
        c.cqId = 1;
        CqpWqeWriter.createCq(s, 0, c, true);
        orQword(24, 3L << 22); // a CEQ id without CEQIDVALID
        expect(CqpWqeCheck.RESERVED_BITS_SET, 26);
        c.virtualMap = true;
        c.pblChunkSize = 1;
        CqpWqeWriter.createCq(s, 0, c, true);
        s.writeLong(32, 0x1000); // a ring address on a virtually mapped CQ
        expect(CqpWqeCheck.RESERVED_BITS_SET, 32);
        EqOpFields e = new EqOpFields();
        e.elementCount = 1;
        CqpWqeWriter.createCeq(s, 0, e, true);
        s.writeLong(48, 5); // a PBL index on a physically contiguous CEQ
        expect(CqpWqeCheck.RESERVED_BITS_SET, 48);
        CqpWqeWriter.deleteArpEntry(s, 0, 3, true);
        s.writeLong(16, 0x0200_0000_0001L); // a MAC on a delete
        expect(CqpWqeCheck.RESERVED_BITS_SET, 16);
        QhashFields q = new QhashFields();
        q.entryType = 2;
        q.ipv4 = true;
        CqpWqeWriter.manageQhash(s, 0, q, true);
        orQword(16, 5L << 32); // a VLAN id without VLANVALID
        expect(CqpWqeCheck.RESERVED_BITS_SET, 20);
    }

    @Test
    void fpmFields() {
        CqpWqeWriter.commitFpm(s, 0, 0, 0x1000, false, true);
        setHeaderField(CqpWqe.BUFSIZE, 200);
        expect(CqpWqeCheck.BAD_BUFFER_SIZE, 24);
    }

    @Test
    void sdFields() {
        long cmd = SegmentDescriptor.command(1);
        long data = SegmentDescriptor.setData(0x10_0000, false);
        long[] c = {cmd, cmd, cmd, cmd};
        long[] d = {data, data, data, data};
        BytesStore<?, ?> buf = Wqes.heap(64);
        CqpWqeWriter.updatePeSds(s, 0, 0, c, d, 4, 0x2000, buf, 0, true);
        setHeaderField(CqpWqe.UPESD_ENTRY_COUNT, 9);
        expect(CqpWqeCheck.BAD_SD_COUNT, 24);
        CqpWqeWriter.updatePeSds(s, 0, 0, c, d, 4, 0, buf, 0, true);
        expect(CqpWqeCheck.SD_BUFFER_MISSING, 16);
        CqpWqeWriter.updatePeSds(s, 0, 0, c, d, 2, 0, null, 0, true);
        setHeaderField(CqpWqe.UPESD_ENTRY_COUNT, 1); // buffer entries with only two inline
        expect(CqpWqeCheck.SD_ENTRY_GAP, 48);
        CqpWqeWriter.updatePeSds(s, 0, 0, c, d, 3, 0, null, 0, true);
        s.writeLong(32, 0); // entry 2 valid, entry 1 absent
        s.writeLong(40, 0);
        expect(CqpWqeCheck.SD_ENTRY_GAP, 32);
        CqpWqeWriter.updatePeSds(s, 0, 0, new long[] {1}, d, 1, 0, null, 0, true); // not a write command
        expect(CqpWqeCheck.BAD_SD_ENTRY, 0);
        CqpWqeWriter.updatePeSds(s, 0, 0, c, new long[] {data, data, 0x20_1000L | 512 << 2 | 3}, 3, 0, null, 0,
                true); // direct SD at an address that is not 2 MiB aligned
        expect(CqpWqeCheck.BAD_SD_ENTRY, 48);
    }
}
