package dev.irdmaemu.fw.cqp;

import static dev.irdmaemu.fw.cqp.Wqes.assertQwords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * One WQE per op, its expected quadwords written by hand from the defs.h / icrdma_hw.h masks named in each test
 * (bit positions spelled out as shifts), for the ctrl.c writer named in each test. The WQE sits at a non-zero
 * offset of a store pre-filled with 0xee, so the writer's zeroing (IRDMA_CQP_INIT_WQE) is checked too.
 */
class CqpWqeKnownBytesTest {
    private static final long VALID = 1L << 63; // IRDMA_CQPSQ_WQEVALID BIT_ULL(63)
    private static final int AT = 64;

    private final BytesStore<?, ?> s = Wqes.heap(256);
    private final CqpWqe w = new CqpWqe();

    private static long op(int code) { // IRDMA_CQPSQ_OPCODE GENMASK_ULL(37, 32)
        return (long) code << 32;
    }

    private CqpWqe fresh() {
        for (int i = 0; i < 256; i++) {
            s.writeByte(i, (byte) 0xee);
        }
        return w;
    }

    private void accepted() {
        w.wrap(s, AT);
        assertEquals(CqpWqeCheck.ACCEPTED, w.validate(), () -> "failed at " + w.failedAt());
        assertEquals(0xeeeeeeeeeeeeeeeeL, s.readLong(AT + 64), "nothing written past the WQE");
        assertEquals(0xeeeeeeeeeeeeeeeeL, s.readLong(AT - 8), "nothing written before the WQE");
    }

    /** irdma_sc_qp_create: QPID 23:0, ORDVALID 42, TOECTXVALID 43, CQNUMVALID 47, QPTYPE 50:48, MACVALID 51,
     * ARPTABIDXVALID 59, NEXTIWSTATE 62:60; host context pa at byte 16, shadow area pa at 40. */
    @Test
    void createQp() {
        fresh();
        QpOpFields f = new QpOpFields();
        f.qpId = 0x1234;
        f.qpType = 1;
        f.hostContextAddress = 0x0000_0001_2345_6000L;
        f.shadowAreaAddress = 0x0000_0001_2345_7040L;
        f.ordValid = true;
        f.tcpContextValid = true;
        f.cqNumValid = true;
        f.macValid = true;
        f.arpIndexValid = true;
        f.nextIwarpState = 1;
        CqpWqeWriter.createQp(s, AT, f, true);
        assertQwords(new long[] {0, 0, 0x0000_0001_2345_6000L,
            0x1234L | op(0x00) | 1L << 42 | 1L << 43 | 1L << 47 | 1L << 48 | 1L << 51 | 1L << 59 | 1L << 60 | VALID,
            0, 0x0000_0001_2345_7040L, 0, 0}, s, AT);
        accepted();
        assertSame(CqpOpcode.CREATE_QP, w.opcode());
        assertEquals(0x1234, w.qpId());
        assertTrue(w.valid());
        assertTrue(w.postedFor(true));
        assertFalse(w.postedFor(false));
    }

    /** irdma_sc_qp_modify: NEWMSS 45:32 and TERMLEN 51:48 at byte 8; header adds CACHEDVARVALID 44, MSSCHANGE 52,
     * REMOVEHASHENTRY 55, TERMACT 57:56, RESETCON 58. Next state TERMINATE (5) with termlen 28. */
    @Test
    void modifyQp() {
        fresh();
        QpOpFields f = new QpOpFields();
        f.qpId = 3;
        f.qpType = 1;
        f.hostContextAddress = 0x10_0000L;
        f.shadowAreaAddress = 0x10_1000L;
        f.newMss = 1460;
        f.termLength = 7;
        f.mssChange = true;
        f.cachedVarValid = true;
        f.removeHashEntry = true;
        f.termActions = 1;
        f.resetConnection = true;
        f.nextIwarpState = 5;
        CqpWqeWriter.modifyQp(s, AT, f, false);
        assertQwords(new long[] {0, 1460L << 32 | 7L << 48, 0x10_0000L,
            3L | op(0x01) | 1L << 44 | 1L << 48 | 1L << 52 | 1L << 55 | 1L << 56 | 1L << 58 | 5L << 60,
            0, 0x10_1000L, 0, 0}, s, AT);
        accepted();
        assertEquals(5, w.qpNextIwarpState());
        assertEquals(1460, w.qpNewMss());
        assertFalse(w.valid(), "polarity 0");
    }

    /** irdma_sc_qp_destroy: QPTYPE, IGNOREMWBOUND 54, REMOVEHASHENTRY 55. */
    @Test
    void destroyQp() {
        fresh();
        QpOpFields f = new QpOpFields();
        f.qpId = 0xffffff;
        f.qpType = 2;
        f.ignoreMwBound = true;
        f.hostContextAddress = 0x2000;
        f.shadowAreaAddress = 0x3000;
        CqpWqeWriter.destroyQp(s, AT, f, true);
        assertQwords(new long[] {0, 0, 0x2000, 0xffffffL | op(0x02) | 2L << 48 | 1L << 54 | VALID, 0, 0x3000, 0, 0},
                s, AT);
        accepted();
    }

    /** irdma_sc_cq_create: cq size at 0, cq id at 8, SHADOW_READ_THRESHOLD 17:0 at 16, pa at 32, shadow at 40,
     * FIRSTPMPBLIDX at 48, TPHVAL 7:0 / VSIIDX 23:8 at 56; header ICRDMA_CQPSQ_CQ_CQID 18:0, ICRDMA_CQPSQ_CQ_CEQID
     * 31:22, CHKOVERFLOW 46, ENCEQEMASK 48, CEQIDVALID 49, CQID_HIGH 52:50, CEQID_HIGH 59:54, AVOIDMEMCNFLCT 61. */
    @Test
    void createCq() {
        fresh();
        CqOpFields f = new CqOpFields();
        f.cqSize = 4096;
        f.cqId = 0x401; // above 1024 so the low/high split of CEQ id below is exercised separately
        f.ceqId = 0x7ff; // 10 bits low (0x3ff) and CEQID_HIGH = 1
        f.ceqIdValid = true;
        f.shadowReadThreshold = 0x3ffff;
        f.cqAddress = 0x4_0000L;
        f.shadowAreaAddress = 0x4_1000L;
        f.tphValue = 0xab;
        f.vsiIndex = 0x0102;
        f.checkOverflow = true;
        f.ceqeMask = true;
        f.avoidMemConflict = true;
        CqpWqeWriter.createCq(s, AT, f, true);
        assertQwords(new long[] {4096, 0x401, 0x3ffff, 0x401L | 0x3ffL << 22 | op(0x03) | 1L << 46 | 1L << 48
                | 1L << 49 | 1L << 54 | 1L << 61 | VALID, 0x4_0000L, 0x4_1000L, 0, 0xabL | 0x0102L << 8}, s, AT);
        accepted();
        assertEquals(0x7ff, w.cqCeqId());
        assertEquals(0x401, w.cqId());
    }

    /** irdma_sc_cq_create with virtual_map: pa written 0, FIRSTPMPBLIDX 27:0, LPBLSIZE 45:44, VIRTMAP 47. */
    @Test
    void createCqVirtual() {
        fresh();
        CqOpFields f = new CqOpFields();
        f.cqSize = 256;
        f.cqId = 2;
        f.cqAddress = 0x9000; // ignored: virtually mapped
        f.virtualMap = true;
        f.pblChunkSize = 1;
        f.firstPmPblIndex = 0xfffffff;
        CqpWqeWriter.createCq(s, AT, f, true);
        assertQwords(new long[] {256, 2, 0, 2L | op(0x03) | 1L << 44 | 1L << 47 | VALID, 0, 0, 0xfffffffL, 0}, s,
                AT);
        accepted();
    }

    /** irdma_sc_cq_modify: raw cq id in the header, CQRESIZE 43; irdma_sc_cq_destroy; irdma_sc_ccq_destroy. */
    @Test
    void modifyAndDestroyCq() {
        CqOpFields f = new CqOpFields();
        f.cqSize = 512;
        f.cqId = 9;
        f.cqAddress = 0x8000;
        f.shadowAreaAddress = 0x8800;
        f.resize = true;
        f.vsiIndex = 1;
        fresh();
        CqpWqeWriter.modifyCq(s, AT, f, true);
        assertQwords(new long[] {512, 9, 0, 9L | op(0x04) | 1L << 43 | VALID, 0x8000, 0x8800, 0, 1L << 8}, s, AT);
        accepted();
        f.ceqId = 5;
        f.ceqIdValid = true;
        fresh();
        CqpWqeWriter.destroyCq(s, AT, f, false);
        assertQwords(new long[] {512, 9, 0, 9L | 5L << 22 | op(0x05) | 1L << 49, 0, 0x8800, 0, 0}, s, AT);
        accepted();
        assertEquals(5, w.cqCeqId());
        fresh();
        CqpWqeWriter.destroyCcq(s, AT, f, true);
        assertQwords(new long[] {512, 9, 0, 9L | 5L << 22 | op(0x05) | 1L << 49 | VALID, 0, 0x8800, 0, 0}, s, AT);
        accepted();
    }

    /** irdma_sc_ceq_create: elem_cnt at 16 (CEQSIZE 21:0), pa at 32, TPHVAL / PASID 51:32 / VSIIDX at 56; header
     * CEQID 9:0, CEQID_HIGH 15:10, ITRNOEXPIRE 46, TPHEN 60, PASID_VALID 62. irdma_sc_ceq_destroy: raw id. */
    @Test
    void ceq() {
        EqOpFields f = new EqOpFields();
        f.ceqId = 0x401;
        f.elementCount = 0x3fffff;
        f.address = 0x5_0000L;
        f.tphValue = 1;
        f.pasid = 0xfffff;
        f.vsiIndex = 2;
        f.itrNoExpire = true;
        f.tphEnable = true;
        f.pasidValid = true;
        fresh();
        CqpWqeWriter.createCeq(s, AT, f, true);
        assertQwords(new long[] {0, 0, 0x3fffff, 0x1L | 1L << 10 | op(0x16) | 1L << 46 | 1L << 60 | 1L << 62 | VALID,
            0x5_0000L, 0, 0, 1L | 0xfffffL << 32 | 2L << 8}, s, AT);
        accepted();
        assertEquals(0x401, w.eqId());
        fresh();
        CqpWqeWriter.destroyCeq(s, AT, f, true);
        assertQwords(new long[] {0, 0, 0x3fffff, 0x401L | op(0x18) | 1L << 60 | 1L << 62 | VALID, 0, 0, 0,
            0xfffffL << 32}, s, AT);
        accepted();
        assertEquals(0x401, w.eqId());
    }

    /** irdma_sc_aeq_create / _destroy: elem_cnt (AEQECNT 18:0) at 16, pa at 32, PASID at 56; LPBLSIZE, VMAP 47. */
    @Test
    void aeq() {
        EqOpFields f = new EqOpFields();
        f.elementCount = 0x7ffff;
        f.address = 0x6_0000L;
        fresh();
        CqpWqeWriter.createAeq(s, AT, f, true);
        assertQwords(new long[] {0, 0, 0x7ffff, op(0x19) | VALID, 0x6_0000L, 0, 0, 0}, s, AT);
        accepted();
        f.virtualMap = true;
        f.pblChunkSize = 2;
        f.firstPmPblIndex = 77;
        fresh();
        CqpWqeWriter.destroyAeq(s, AT, f, false);
        assertQwords(new long[] {0, 0, 0x7ffff, op(0x1b) | 2L << 44 | 1L << 47, 0, 0, 77, 0}, s, AT);
        accepted();
    }

    /** irdma_sc_manage_qhash_table_entry, IPv4 TCP_ESTABLISHED to QP 5 with VLAN: mac at 0 (ether_addr_to_u64),
     * QPN 49:32 / SRC_PORT 31:16 / DEST_PORT 15:0 at 8, QS_HANDLE 9:0 / VLANID 43:32 at 16, src ip ADDR3 31:0 at 32,
     * dest ip at 48; header MANAGE 62:61, IPV4VALID 60, VLANVALID 59, ENTRYTYPE 44:42. 192.0.2.1 local :4791... */
    @Test
    void qhashIpv4Established() {
        QhashFields f = new QhashFields();
        f.mac = 0x02_00_00_00_00_01L;
        f.qpNumber = 5;
        f.destPort = 20049;
        f.srcPort = 50000;
        f.qsHandle = 0x3ff;
        f.vlanValid = true;
        f.vlanId = 100;
        f.ipv4 = true;
        f.destIp[0] = 0xc000_0201; // 192.0.2.1
        f.srcIp[0] = 0xc000_0202; // 192.0.2.2
        f.manage = CqpWqe.QHASH_MANAGE_ADD;
        f.entryType = CqpWqe.QHASH_TYPE_TCP_ESTABLISHED;
        fresh();
        CqpWqeWriter.manageQhash(s, AT, f, true);
        assertQwords(new long[] {0x0200_0000_0001L, 5L << 32 | 50000L << 16 | 20049L, 0x3ffL | 100L << 32,
            op(0x25) | 1L << 61 | 1L << 60 | 1L << 59 | 1L << 42 | VALID, 0xc000_0202L, 0, 0xc000_0201L, 0}, s, AT);
        accepted();
        assertEquals(0xc000_0201, w.qhashDestIp(0));
        assertEquals(0xc000_0202, w.qhashSrcIp(0));
        assertEquals(50000, w.qhashSrcPort());
    }

    /** The listen entry (TCP_SYN, 2) to the ILQ (QP 1), IPv6 2001:db8::1: dest_ip[0..1] in ADDR0 63:32 / ADDR1
     * 31:0 at 56, [2..3] in ADDR2 / ADDR3 at 48; no source, no VLAN id without VLANVALID. */
    @Test
    void qhashIpv6Listen() {
        QhashFields f = new QhashFields();
        f.qpNumber = 1;
        f.destPort = 4791;
        f.vlanId = 7; // not written: vlan_valid is false
        f.destIp[0] = 0x2001_0db8;
        f.destIp[3] = 1;
        f.srcPort = 999; // not written for a listen entry
        f.manage = CqpWqe.QHASH_MANAGE_ADD;
        f.entryType = CqpWqe.QHASH_TYPE_TCP_SYN;
        fresh();
        CqpWqeWriter.manageQhash(s, AT, f, false);
        assertQwords(new long[] {0, 1L << 32 | 4791, 0, op(0x25) | 1L << 61 | 2L << 42, 0, 0, 1L,
            0x2001_0db8L << 32}, s, AT);
        accepted();
        assertEquals(0x2001_0db8, w.qhashDestIp(0));
        assertEquals(1, w.qhashDestIp(3));
        assertFalse(w.qhashIpv4());
    }

    /** irdma_sc_manage_apbvt_entry: port at 16, ADDPORT 62. */
    @Test
    void apbvt() {
        fresh();
        CqpWqeWriter.manageApbvt(s, AT, 20049, true, true);
        assertQwords(new long[] {0, 0, 20049, op(0x23) | 1L << 62 | VALID, 0, 0, 0, 0}, s, AT);
        accepted();
        assertEquals(20049, w.apbvtPort());
        assertTrue(w.apbvtAdd());
    }

    /** irdma_sc_add_arp_cache_entry: reach_max at 8, mac at 16, header arp_index, ENTRYVALID 42, PERMANENT 43;
     * irdma_sc_del_arp_cache_entry: header arp_index only. */
    @Test
    void arp() {
        fresh();
        CqpWqeWriter.addArpEntry(s, AT, 0x12, 0, 0x02_11_22_33_44_55L, true, true);
        assertQwords(new long[] {0, 0, 0x0211_2233_4455L, 0x12L | op(0x0f) | 1L << 42 | 1L << 43 | VALID, 0, 0, 0,
            0}, s, AT);
        accepted();
        assertEquals(0x0211_2233_4455L, w.arpMac());
        fresh();
        CqpWqeWriter.deleteArpEntry(s, AT, 0x12, true);
        assertQwords(new long[] {0, 0, 0, 0x12L | op(0x0f) | VALID, 0, 0, 0, 0}, s, AT);
        accepted();
        assertFalse(w.arpEntryValid());
    }

    /** irdma_sc_alloc_stag: ICRDMA_CQPSQ_STAG_PDID 63:46 with STAGLEN 45:0 at 8, STAG_IDX 31:8 / PDID_HI 59:54 at 16,
     * HMCFNIDX at 40, FIRSTPMPBLIDX at 48 (chunked); header MR 43, ARIGHTS 52:48, LPBLSIZE, HPAGESIZE 47:46,
     * REMACCENABLED 53, USEHMCFNIDX 60, USEPFRID / REMOTE_ATOMIC_EN 61. PD 0x40001: low 18 bits 1, high 1. */
    @Test
    void allocStag() {
        StagFields f = new StagFields();
        f.pdId = 0x40001;
        f.length = 0x1000;
        f.stagIndex = 0xabcd;
        f.hmcFcnIndex = 0;
        f.pblChunkSize = 1;
        f.firstPmPblIndex = 0x100;
        f.pageSize = 1;
        f.accessRights = 0x0f;
        f.remoteAccess = true;
        fresh();
        CqpWqeWriter.allocStag(s, AT, f, true);
        assertQwords(new long[] {0, 1L << 46 | 0x1000, 0xabcdL << 8 | 1L << 54, op(0x09) | 1L << 43 | 0xfL << 48
                | 1L << 44 | 1L << 46 | 1L << 53 | VALID, 0, 0, 0x100, 0}, s, AT);
        accepted();
        assertEquals(0x40001, w.stagPdId());
    }

    /** irdma_sc_mr_reg_non_shared, VA based, no PBL chunks: va at 0, len / PDID at 8, KEY 7:0 / IDX / PDID_HI at 16,
     * reg_addr_pa at 32, hmc_fcn_index at 40; header VABASEDTO 59. Then irdma_sc_dealloc_stag. */
    @Test
    void registerAndDeallocMr() {
        StagFields f = new StagFields();
        f.vaOrFbo = 0x7f00_1234_5000L;
        f.length = 8192;
        f.pdId = 7;
        f.stagKey = 0x5a;
        f.stagIndex = 0x42;
        f.regAddress = 0x7_0000L;
        f.vaBased = true;
        f.accessRights = 0x03;
        f.pageSize = 0;
        fresh();
        CqpWqeWriter.registerMr(s, AT, f, true);
        assertQwords(new long[] {0x7f00_1234_5000L, 8192L | 7L << 46, 0x5aL | 0x42L << 8,
            op(0x0a) | 1L << 43 | 3L << 48 | 1L << 59 | VALID, 0x7_0000L, 0, 0, 0}, s, AT);
        accepted();
        f.mr = true;
        fresh();
        CqpWqeWriter.deallocStag(s, AT, f, false);
        assertQwords(new long[] {0, 7L << 46, 0x42L << 8, op(0x0d) | 1L << 43, 0, 0, 0, 0}, s, AT);
        accepted();
    }

    /** irdma_sc_query_fpm_val: hmc_fn_id at 16, buffer pa at 32. irdma_sc_commit_fpm_val adds BUFSIZE 31:0 = 208
     * (IRDMA_COMMIT_FPM_BUF_SIZE) and FW_SCRATCH_BUF_PRESENT 38. */
    @Test
    void fpm() {
        fresh();
        CqpWqeWriter.queryFpm(s, AT, 0, 0x8_0000L, true);
        assertQwords(new long[] {0, 0, 0, op(0x20) | VALID, 0x8_0000L, 0, 0, 0}, s, AT);
        accepted();
        fresh();
        CqpWqeWriter.commitFpm(s, AT, 2, 0x8_1000L, false, true);
        assertQwords(new long[] {0, 0, 2, 208L | op(0x21) | VALID, 0x8_1000L, 0, 0, 0}, s, AT);
        accepted();
        assertEquals(208, w.fpmBufferSize());
    }

    /** cqp_sds_wqe_fill with one entry (irdma_hmc_sd_one, a paged SD at index 3): SDCMD at 0 (no valid bit), data
     * at 8, hmc fn id (ICRDMA_CQPSQ_UPESD_HMCFNID 5:0) at 16, ENTRY_COUNT 3:0 = 0. The entry as irdma_set_sd_entry
     * makes it: cmd = 3 | BIT(15) | PMSDWR BIT(31); data = pa | BPCOUNT(512) 11:2 | TYPE 0 | VALID BIT(0). */
    @Test
    void updatePeSdsOne() {
        long cmd = 3L | 1L << 15 | 1L << 31;
        long data = 0x9_0000L | 512L << 2 | 1L;
        fresh();
        CqpWqeWriter.updatePeSds(s, AT, 0, new long[] {cmd}, new long[] {data}, 1, 0, null, 0, true);
        assertQwords(new long[] {cmd, data, 0, op(0x1f) | VALID, 0, 0, 0, 0}, s, AT);
        accepted();
        assertEquals(1, w.sdInlineCount());
        assertEquals(1, w.sdTotalCount());
    }

    /** cqp_sds_wqe_fill with five entries: entries 1 and 2 at 32/40 and 48/56 with UPESD_ENTRY_VALID 63, entries 3..4
     * in the buffer (16 bytes each), whose pa is ORed with the fn id at 16; ENTRY_COUNT = 2. Direct SDs (TYPE 1). */
    @Test
    void updatePeSdsWithBuffer() {
        long[] cmds = new long[5];
        long[] datas = new long[5];
        for (int i = 0; i < 5; i++) {
            cmds[i] = (10 + i) | 1L << 15 | 1L << 31;
            datas[i] = (0x4000_0000L + i * 0x20_0000L) | 512L << 2 | 1L << 1 | 1L;
        }
        BytesStore<?, ?> buf = Wqes.heap(128);
        fresh();
        CqpWqeWriter.updatePeSds(s, AT, 1, cmds, datas, 5, 0xa_0080L, buf, 0, true);
        assertQwords(new long[] {cmds[0], datas[0], 0xa_0080L | 1, op(0x1f) | 2 | VALID, cmds[1] | VALID, datas[1],
            cmds[2] | VALID, datas[2]}, s, AT);
        assertQwords(new long[] {cmds[3], datas[3], cmds[4], datas[4]}, buf, 0);
        accepted();
        assertEquals(3, w.sdInlineCount());
        assertEquals(5, w.sdTotalCount());
        assertEquals(0xa_0080L, w.sdBufferAddress());
        assertEquals(1, w.sdHmcFnId());
        assertEquals(cmds[2], w.sdEntryCommand(2));
    }

    /** NOP: IRDMA_CQP_OP_NOP 0x24 and the valid bit. */
    @Test
    void nop() {
        fresh();
        CqpWqeWriter.nop(s, AT, true);
        assertQwords(new long[] {0, 0, 0, op(0x24) | VALID, 0, 0, 0, 0}, s, AT);
        accepted();
    }

    /** irdma_sc_query_rdma_features: buffer pa at 32, BUF_LEN 31:0 and IRDMA_CQPSQ_UP_OP 37:32 = 0x12. */
    @Test
    void queryRdmaFeatures() {
        fresh();
        CqpWqeWriter.queryRdmaFeatures(s, AT, 0xb_0000L, 272, true);
        assertQwords(new long[] {0, 0, 0, 272L | op(0x12) | VALID, 0xb_0000L, 0, 0, 0}, s, AT);
        accepted();
        assertEquals(272, w.featuresBufferLength());
        assertEquals(0xb_0000L, w.featuresBufferAddress());
    }

    /** irdma_sc_static_hmc_pages_allocated: IRDMA_SHMC_PAGE_ALLOCATED_HMC_FN_ID 5:0 at 16, opcode 0x2b. */
    @Test
    void staticHmcPagesAllocated() {
        fresh();
        CqpWqeWriter.staticHmcPagesAllocated(s, AT, 0x3f, false);
        assertQwords(new long[] {0, 0, 0x3f, op(0x2b), 0, 0, 0, 0}, s, AT);
        accepted();
        assertEquals(0x3f, w.shmcHmcFnId());
    }

    /**
     * irdma_sc_manage_ws_node for ws.c's leaf add: IRDMA_CQPSQ_WS_VSI 63:48 and _WEIGHT 38:32 at 32; in the header
     * _NODEOP 55:52, _ENABLENODE 62, _NODETYPE 61, _PRIOTYPE 60:59, _TC 58:56, _PARENTID 29:16, _NODEID 13:0,
     * opcode 0x2c.
     */
    @Test
    void workSchedNode() {
        fresh();
        CqpWqeWriter.workSchedNode(s, AT, 2, 0x3fe, 0x155, true, true, 3, 5, 0xabcd, 0x7f, true);
        long hdr = 2L << 52 | 1L << 62 | 1L << 61 | 3L << 59 | 5L << 56 | 0x155L << 16 | 0x3fe | op(0x2c) | VALID;
        assertQwords(new long[] {0, 0, 0, hdr, 0xabcdL << 48 | 0x7fL << 32, 0, 0, 0}, s, AT);
        accepted();
        assertEquals(2, w.wsNodeOp());
        assertEquals(0x3fe, w.wsNodeId());
        assertEquals(0x155, w.wsParentId());
        assertTrue(w.wsLeaf());
        assertTrue(w.wsEnable());
        assertEquals(3, w.wsPrioType());
        assertEquals(5, w.wsTrafficClass());
        assertEquals(0xabcd, w.wsVsi());
        assertEquals(0x7f, w.wsWeight());
        // IRDMA_CQPSQ_WS_VMVFNUM (51:42) is never written by the driver: reserved for this op
        s.writeLong(AT + 24, hdr | 1L << 42);
        assertEquals(CqpWqeCheck.RESERVED_BITS_SET, w.wrap(s, AT).validate());
    }

    /**
     * uda.c irdma_sc_access_ah, IPv6: MAC << 16; PDINDEXLO 63:48, TC 39:32, VLAN tag 15:0; ARPINDEX 63:48,
     * HOPLIMIT 39:32, PDINDEXHI 27:20, FLOWLABEL 19:0; dest words 0/1 at quadword 5, 2/3 at 4, source at 7 and 6;
     * header LOOPBACK 62, INSERTVLANTAG 60, IPV4VALID 59, AVIDX 23:0.
     */
    @Test
    void addressHandleIpv6() {
        fresh();
        int[] dest = {0xfe800000, 0x00000001, 0x02030405, 0x06070809};
        int[] src = {0x20010db8, 0x0000000a, 0x0b0c0d0e, 0x0f101112};
        CqpWqeWriter.addressHandle(s, AT, CqpOpcode.CREATE_ADDR_HANDLE, 0xabcdef, 0x0011_2233_4455L, 0x12_3456,
                0xb8, 0x6005, true, 0x1ff, 0xfedcb, 64, false, true, dest, src, true);
        long hdr = 1L << 62 | 1L << 60 | 0xabcdefL | op(0x1c) | VALID;
        assertQwords(new long[] {0x0011_2233_4455L << 16, 0x3456L << 48 | 0xb8L << 32 | 0x6005L,
                0x1ffL << 48 | 64L << 32 | 0x12L << 20 | 0xfedcbL, hdr, 0x02030405_06070809L, 0xfe800000_00000001L,
                0x0b0c0d0e_0f101112L, 0x20010db8_0000000aL}, s, AT);
        accepted();
        assertEquals(0xabcdef, w.ahIndex());
        assertEquals(0x0011_2233_4455L, w.ahMac());
        assertEquals(0x12_3456, w.ahPdIndex());
        assertEquals(0xb8, w.ahTcTos());
        assertEquals(0x6005, w.ahVlanTag());
        assertTrue(w.ahInsertVlanTag());
        assertTrue(w.ahLoopback());
        assertFalse(w.ahIpv4());
        assertEquals(0x1ff, w.ahArpIndex());
        assertEquals(0xfedcb, w.ahFlowLabel());
        assertEquals(64, w.ahHopLimit());
        for (int i = 0; i < 4; i++) {
            assertEquals(dest[i], w.ahDestIp(i));
            assertEquals(src[i], w.ahSrcIp(i));
        }
        // IRDMA_UDA_CQPSQ_MAV_SRCMACADDRINDEX (29:24 of quadword 2; 27:24 overlap PDINDEXHI) is never written
        s.writeLong(AT + 16, s.readLong(AT + 16) | 1L << 28);
        assertEquals(CqpWqeCheck.RESERVED_BITS_SET, w.wrap(s, AT).validate());
    }

    /** irdma_sc_access_ah, IPv4 (irdma_cm_create_ah's shape): addresses in ADDR3 of quadwords 4 and 6 only. */
    @Test
    void addressHandleIpv4() {
        fresh();
        CqpWqeWriter.addressHandle(s, AT, CqpOpcode.DESTROY_ADDR_HANDLE, 7, 0xa0b0_c0d0_e0f0L, 1, 0, 0, false, 3,
                0, 64, true, false, new int[] {0xc0a80102}, new int[] {0xc0a80101}, true);
        assertQwords(new long[] {0xa0b0_c0d0_e0f0L << 16, 1L << 48, 3L << 48 | 64L << 32, 1L << 59 | 7 | op(0x1e)
                | VALID, 0xc0a80102L, 0, 0xc0a80101L, 0}, s, AT);
        accepted();
        assertTrue(w.ahIpv4());
        assertEquals(0xc0a80102, w.ahDestIp(0));
        assertEquals(0, w.ahDestIp(1));
        assertEquals(0xc0a80101, w.ahSrcIp(0));
        assertEquals(7, w.ahIndex());
        // an IPv4 AH leaves the address words other than ADDR3 of quadwords 4 and 6 empty
        s.writeLong(AT + 40, 1);
        assertEquals(CqpWqeCheck.RESERVED_BITS_SET, w.wrap(s, AT).validate());
    }

    /** ctrl.c irdma_sc_gather_stats: HMC_FCN_INDEX 15:0 at quadword 5, buffer at 4, USE_INST 61, USE_HMC_FCN 60. */
    @Test
    void gatherStats() {
        fresh();
        CqpWqeWriter.gatherStats(s, AT, 0x1234_5000L, 0x2a, true, true, 0x55, true);
        assertQwords(new long[] {0, 0, 0, 1L << 61 | 1L << 60 | 0x55 | op(0x2e) | VALID, 0x1234_5000L, 0x2a, 0, 0},
                s, AT);
        accepted();
        assertEquals(0x1234_5000L, w.statsBufferAddress());
        assertEquals(0x2a, w.statsHmcFnIndex());
        assertTrue(w.statsUseHmcFnIndex());
        assertTrue(w.statsUseInstance());
        assertEquals(0x55, w.statsInstanceIndex());
        // quadword 5 carries only the 16-bit function index; bits above it are reserved
        s.writeLong(AT + 40, 1L << 16 | 0x2a);
        assertEquals(CqpWqeCheck.RESERVED_BITS_SET, w.wrap(s, AT).validate());
    }

    /** irdma_get_rdma_features: IRDMA_FEATURE_CNT 47:32 of entry 0, IRDMA_FEATURE_TYPE 63:48 of each entry. */
    @Test
    void featureBuffer() {
        BytesStore<?, ?> b = Wqes.heap(272);
        assertTrue(RdmaFeatureBuffer.write(b, 0, 272, 0, RdmaFeatureBuffer.firstEntry(3, 1, 7)));
        assertTrue(RdmaFeatureBuffer.write(b, 0, 272, 1, RdmaFeatureBuffer.entry(RdmaFeatureBuffer.HW_VERSION_INFO,
                0x1_0002)));
        assertTrue(RdmaFeatureBuffer.write(b, 0, 272, 2, RdmaFeatureBuffer.entry(RdmaFeatureBuffer.FTN_FLAGS,
                RdmaFeatureBuffer.FLAG_MANAGE_RSRC_VER2)));
        assertFalse(RdmaFeatureBuffer.write(b, 0, 272, 34, 1), "past the driver's buffer");
        assertEquals(3L << 32 | 1L << 16 | 7, b.readLong(0));
        assertEquals(1L << 48 | 0x1_0002L, b.readLong(8));
        assertEquals(32L << 48 | 4L, b.readLong(16));
        RdmaFeatureBuffer f = new RdmaFeatureBuffer().wrap(b, 0, 272);
        assertEquals(3, f.count());
        assertEquals(3, f.readableCount());
        assertEquals(RdmaFeatureBuffer.FTN_FLAGS, f.type(2));
        assertEquals(4, f.info(2));
        assertEquals(0, new RdmaFeatureBuffer().wrap(b, 300, 8).count(), "outside the store");
    }

    /**
     * irdma_sc_qp_flush_wqes as hw.c irdma_flush_wqes calls it (gen2): both queues, user flush codes
     * IRDMA_FLUSH_MAJOR_ERR (1) / FLUSH_GENERAL_ERR (1) and a minor of FLUSH_REM_ACCESS_ERR (3) on the RQ; quadword 2
     * RQMNERR 15:0, RQMJERR 31:16, SQMNERR 47:32, SQMJERR 63:48; header QPID 23:0, opcode 0x22, USERFLCODE 60,
     * FLUSHSQ 61, FLUSHRQ 62; quadword 1 (the AE word) stays 0 without GENERATE_AE.
     */
    @Test
    void flushWqes() {
        fresh();
        QpFlushFields f = new QpFlushFields();
        f.qpId = 0x2a;
        f.flushSq = true;
        f.flushRq = true;
        f.userFlushCode = true;
        f.sqMajor = 1;
        f.sqMinor = 1;
        f.rqMajor = 1;
        f.rqMinor = 3;
        f.aeCode = 0x0505; // not written: generateAe is false
        CqpWqeWriter.flushWqes(s, AT, f, true);
        assertQwords(new long[] {0, 0, 3L | 1L << 16 | 1L << 32 | 1L << 48,
            0x2aL | op(0x22) | 1L << 60 | 1L << 61 | 1L << 62 | VALID, 0, 0, 0, 0}, s, AT);
        accepted();
        assertSame(CqpOpcode.FLUSH_WQES, w.opcode());
        assertEquals(0x2a, w.fwqeQpId());
        assertTrue(w.fwqeFlushSq() && w.fwqeFlushRq() && w.fwqeUserFlushCode());
        assertFalse(w.fwqeGenerateAe());
        assertEquals(3, w.fwqeRqMinor());
        assertEquals(1, w.fwqeRqMajor());
        assertEquals(1, w.fwqeSqMinor());
        assertEquals(1, w.fwqeSqMajor());
        // Only the SQ: the RQ's codes are not written even with user flush codes.
        fresh();
        f.flushRq = false;
        CqpWqeWriter.flushWqes(s, AT, f, false);
        assertQwords(new long[] {0, 0, 1L << 32 | 1L << 48, 0x2aL | op(0x22) | 1L << 60 | 1L << 61, 0, 0, 0, 0},
                s, AT);
        accepted();
        // An RQ code without FLUSHRQ is something the driver never writes.
        s.writeLong(AT + 16, s.readLong(AT + 16) | 5);
        w.wrap(s, AT);
        assertEquals(CqpWqeCheck.RESERVED_BITS_SET, w.validate());
    }

    /**
     * irdma_sc_qp_flush_wqes with generate_ae: quadword 1 carries the AE (AECODE 15:0, AESOURCE 19:16) next to the
     * RQ's codes; GENERATE_AE 59 joins USERFLCODE and FLUSHRQ in the header. What the device reads back through
     * {@link QpFlushFields#readFrom} is what the driver wrote.
     */
    @Test
    void flushWqesWithAnAe() {
        fresh();
        QpFlushFields f = new QpFlushFields();
        f.qpId = 0x1234;
        f.flushRq = true;
        f.userFlushCode = true;
        f.sqMajor = 1; // not written: the SQ is not flushed
        f.sqMinor = 2;
        f.rqMajor = 1;
        f.rqMinor = 6;
        f.generateAe = true;
        f.aeCode = 0x0505;
        f.aeSource = 1;
        CqpWqeWriter.flushWqes(s, AT, f, true);
        assertQwords(new long[] {0, 0x0505L | 1L << 16, 6L | 1L << 16,
            0x1234L | op(0x22) | 1L << 59 | 1L << 60 | 1L << 62 | VALID, 0, 0, 0, 0}, s, AT);
        accepted();
        QpFlushFields back = new QpFlushFields().readFrom(w);
        assertEquals(0x1234, back.qpId);
        assertTrue(back.flushRq && back.userFlushCode && back.generateAe);
        assertFalse(back.flushSq);
        assertEquals(6, back.rqMinor);
        assertEquals(1, back.rqMajor);
        assertEquals(0, back.sqMinor, "the SQ's codes were not written");
        assertEquals(0x0505, back.aeCode);
        assertEquals(1, back.aeSource);
    }

    /**
     * irdma_sc_gen_ae: quadword 1 IRDMA_CQPSQ_FWQE_AECODE 15:0 and AESOURCE 19:16, header QPID, opcode
     * IRDMA_CQP_OP_GEN_AE (0x22) and GENERATE_AE 59. IRDMA_AE_BAD_CLOSE (0x201) with source 0, as
     * irdma_hw_modify_qp raises it.
     */
    @Test
    void generateAe() {
        fresh();
        CqpWqeWriter.generateAe(s, AT, 9, 0x0201, 0, true);
        assertQwords(new long[] {0, 0x0201L, 0, 9L | op(0x22) | 1L << 59 | VALID, 0, 0, 0, 0}, s, AT);
        accepted();
        assertTrue(w.fwqeGenerateAe());
        assertFalse(w.fwqeFlushSq() || w.fwqeFlushRq());
        assertEquals(0x0201, w.fwqeAeCode());
        assertEquals(0, w.fwqeAeSource());
        // An AE word without GENERATE_AE is refused.
        s.writeLong(AT + 24, s.readLong(AT + 24) & ~(1L << 59));
        w.wrap(s, AT);
        assertEquals(CqpWqeCheck.RESERVED_BITS_SET, w.validate());
    }
}
