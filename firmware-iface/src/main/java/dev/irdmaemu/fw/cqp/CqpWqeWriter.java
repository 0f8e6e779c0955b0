package dev.irdmaemu.fw.cqp;

import static dev.irdmaemu.fw.cqp.CqpWqe.*;

import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.Gen2HwMask;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The driver's side of the CQP SQ: each method writes one 64-byte WQE at absolute {@code offset} of a caller's
 * store with exactly the quadwords its ctrl.c function writes for the given fields, gen2 masks. Like
 * irdma_sc_cqp_get_next_send_wqe_idx it zeroes the WQE first (IRDMA_CQP_INIT_WQE); like every ctrl.c writer it
 * writes the header (quadword 3, with the valid bit {@code valid} = cqp->polarity) last. Static, no allocation.
 */
public final class CqpWqeWriter {
    private CqpWqeWriter() {
    }

    private static void begin(BytesStore<?, ?> dst, long offset) {
        QuadwordView.requireRoom(dst, offset, SIZE, "CQP WQE");
        dst.zeroOut(offset, offset + SIZE);
    }

    private static void q(BytesStore<?, ?> dst, long offset, int byteIndex, long value) {
        dst.writeLong(offset + byteIndex, value);
    }

    private static void header(BytesStore<?, ?> dst, long offset, CqpOpcode op, long fields, boolean valid) {
        dst.writeLong(offset + OFF_HEADER, fields | Bits.prep(OPCODE, op.code()) | Bits.prep(WQEVALID, valid));
    }

    // --- QP (irdma_sc_qp_create / irdma_sc_qp_modify / irdma_sc_qp_destroy)

    public static void createQp(BytesStore<?, ?> dst, long offset, QpOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, f.hostContextAddress);
        q(dst, offset, 40, f.shadowAreaAddress);
        header(dst, offset, CqpOpcode.CREATE_QP, Bits.prep(QP_QPID, f.qpId) | Bits.prep(QP_ORDVALID, f.ordValid)
                | Bits.prep(QP_TOECTXVALID, f.tcpContextValid) | Bits.prep(QP_MACVALID, f.macValid)
                | Bits.prep(QP_QPTYPE, f.qpType) | Bits.prep(QP_VQ, f.virtualMap)
                | Bits.prep(QP_FORCELOOPBACK, f.forceLoopback) | Bits.prep(QP_CQNUMVALID, f.cqNumValid)
                | Bits.prep(QP_ARPTABIDXVALID, f.arpIndexValid) | Bits.prep(QP_NEXTIWSTATE, f.nextIwarpState),
                valid);
    }

    public static void modifyQp(BytesStore<?, ?> dst, long offset, QpOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 8, Bits.prep(QP_NEWMSS, f.newMss) | Bits.prep(QP_TERMLEN, f.termLength));
        q(dst, offset, 16, f.hostContextAddress);
        q(dst, offset, 40, f.shadowAreaAddress);
        header(dst, offset, CqpOpcode.MODIFY_QP, Bits.prep(QP_QPID, f.qpId) | Bits.prep(QP_ORDVALID, f.ordValid)
                | Bits.prep(QP_TOECTXVALID, f.tcpContextValid) | Bits.prep(QP_CACHEDVARVALID, f.cachedVarValid)
                | Bits.prep(QP_VQ, f.virtualMap) | Bits.prep(QP_FORCELOOPBACK, f.forceLoopback)
                | Bits.prep(QP_CQNUMVALID, f.cqNumValid) | Bits.prep(QP_MACVALID, f.macValid)
                | Bits.prep(QP_QPTYPE, f.qpType) | Bits.prep(QP_MSSCHANGE, f.mssChange)
                | Bits.prep(QP_REMOVEHASHENTRY, f.removeHashEntry) | Bits.prep(QP_TERMACT, f.termActions)
                | Bits.prep(QP_RESETCON, f.resetConnection) | Bits.prep(QP_ARPTABIDXVALID, f.arpIndexValid)
                | Bits.prep(QP_NEXTIWSTATE, f.nextIwarpState), valid);
    }

    public static void destroyQp(BytesStore<?, ?> dst, long offset, QpOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, f.hostContextAddress);
        q(dst, offset, 40, f.shadowAreaAddress);
        header(dst, offset, CqpOpcode.DESTROY_QP, Bits.prep(QP_QPID, f.qpId) | Bits.prep(QP_QPTYPE, f.qpType)
                | Bits.prep(QP_IGNOREMWBOUND, f.ignoreMwBound) | Bits.prep(QP_REMOVEHASHENTRY, f.removeHashEntry),
                valid);
    }

    /**
     * irdma_sc_qp_flush_wqes (gen2): the AE word only with {@code generateAe}, each queue's codes only with
     * {@code userFlushCode} and that queue's flush flag. (The driver also drops a flag for a queue it already
     * flushed, qp->flush_sq / flush_rq; the caller passes the flags it wants written.)
     */
    public static void flushWqes(BytesStore<?, ?> dst, long offset, QpFlushFields f, boolean valid) {
        begin(dst, offset);
        long codes = 0;
        if (f.userFlushCode) {
            if (f.flushRq) {
                codes |= Bits.prep(FWQE_RQMNERR, f.rqMinor) | Bits.prep(FWQE_RQMJERR, f.rqMajor);
            }
            if (f.flushSq) {
                codes |= Bits.prep(FWQE_SQMNERR, f.sqMinor) | Bits.prep(FWQE_SQMJERR, f.sqMajor);
            }
        }
        q(dst, offset, 16, codes);
        q(dst, offset, 8, f.generateAe ? Bits.prep(FWQE_AECODE, f.aeCode) | Bits.prep(FWQE_AESOURCE, f.aeSource) : 0);
        header(dst, offset, CqpOpcode.FLUSH_WQES, Bits.prep(FWQE_QPID, f.qpId)
                | Bits.prep(FWQE_GENERATE_AE, f.generateAe) | Bits.prep(FWQE_USERFLCODE, f.userFlushCode)
                | Bits.prep(FWQE_FLUSHSQ, f.flushSq) | Bits.prep(FWQE_FLUSHRQ, f.flushRq), valid);
    }

    /** irdma_sc_gen_ae: opcode IRDMA_CQP_OP_GEN_AE (= FLUSH_WQES) with GENERATE_AE and the AE word only. */
    public static void generateAe(BytesStore<?, ?> dst, long offset, int qpId, int aeCode, int aeSource,
                                  boolean valid) {
        begin(dst, offset);
        q(dst, offset, 8, Bits.prep(FWQE_AECODE, aeCode) | Bits.prep(FWQE_AESOURCE, aeSource));
        header(dst, offset, CqpOpcode.GEN_AE, Bits.prep(FWQE_QPID, qpId) | Bits.prep(FWQE_GENERATE_AE, true), valid);
    }

    // --- CQ (irdma_sc_cq_create / irdma_sc_cq_modify / irdma_sc_cq_destroy / irdma_sc_ccq_destroy)

    public static void createCq(BytesStore<?, ?> dst, long offset, CqOpFields f, boolean valid) {
        begin(dst, offset);
        int ceq = f.ceqIdValid ? f.ceqId : 0;
        q(dst, offset, 0, f.cqSize);
        q(dst, offset, 8, f.cqId & 0xffff_ffffL);
        q(dst, offset, 16, Bits.prep(CQ_SHADOW_READ_THRESHOLD, f.shadowReadThreshold));
        q(dst, offset, 32, f.virtualMap ? 0 : f.cqAddress);
        q(dst, offset, 40, f.shadowAreaAddress);
        q(dst, offset, 48, Bits.prep(CQ_FIRSTPMPBLIDX, f.virtualMap ? f.firstPmPblIndex : 0));
        q(dst, offset, 56, Bits.prep(TPHVAL, f.tphValue) | Bits.prep(VSIIDX, f.vsiIndex));
        header(dst, offset, CqpOpcode.CREATE_CQ, Gen2HwMask.CQPSQ_CQ_CQID.prep(f.cqId)
                | Gen2HwMask.CQPSQ_CQ_CEQID.prep(ceq) | Bits.prep(LPBLSIZE, f.pblChunkSize)
                | Bits.prep(CQ_CHKOVERFLOW, f.checkOverflow) | Bits.prep(CQ_VIRTMAP, f.virtualMap)
                | Bits.prep(CQ_CQID_HIGH, (f.cqId & 0xffff_ffffL) >>> 22) | Bits.prep(CQ_CEQID_HIGH, ceq >>> 10)
                | Bits.prep(CQ_ENCEQEMASK, f.ceqeMask) | Bits.prep(CQ_CEQIDVALID, f.ceqIdValid)
                | Bits.prep(TPHEN, f.tphEnable) | Bits.prep(CQ_AVOIDMEMCNFLCT, f.avoidMemConflict), valid);
    }

    public static void modifyCq(BytesStore<?, ?> dst, long offset, CqOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 0, f.cqSize);
        q(dst, offset, 8, f.cqId & 0xffff_ffffL);
        q(dst, offset, 16, Bits.prep(CQ_SHADOW_READ_THRESHOLD, f.shadowReadThreshold));
        q(dst, offset, 32, f.cqAddress);
        q(dst, offset, 40, f.shadowAreaAddress);
        q(dst, offset, 48, f.firstPmPblIndex & 0xffff_ffffL);
        q(dst, offset, 56, Bits.prep(TPHVAL, f.tphValue) | Bits.prep(VSIIDX, f.vsiIndex));
        header(dst, offset, CqpOpcode.MODIFY_CQ, (f.cqId & CQ_HDR_RAW_CQID) | Bits.prep(CQ_CQRESIZE, f.resize)
                | Bits.prep(LPBLSIZE, f.pblChunkSize) | Bits.prep(CQ_CHKOVERFLOW, f.checkOverflow)
                | Bits.prep(CQ_VIRTMAP, f.virtualMap) | Bits.prep(CQ_ENCEQEMASK, f.ceqeMask)
                | Bits.prep(TPHEN, f.tphEnable) | Bits.prep(CQ_AVOIDMEMCNFLCT, f.avoidMemConflict), valid);
    }

    public static void destroyCq(BytesStore<?, ?> dst, long offset, CqOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 0, f.cqSize);
        q(dst, offset, 8, f.cqId & 0xffff_ffffL);
        q(dst, offset, 40, f.shadowAreaAddress);
        q(dst, offset, 48, f.virtualMap ? f.firstPmPblIndex & 0xffff_ffffL : 0);
        header(dst, offset, CqpOpcode.DESTROY_CQ, (f.cqId & CQ_HDR_RAW_CQID)
                | Gen2HwMask.CQPSQ_CQ_CEQID.prep(f.ceqIdValid ? f.ceqId : 0) | Bits.prep(LPBLSIZE, f.pblChunkSize)
                | Bits.prep(CQ_VIRTMAP, f.virtualMap) | Bits.prep(CQ_ENCEQEMASK, f.ceqeMask)
                | Bits.prep(CQ_CEQIDVALID, f.ceqIdValid) | Bits.prep(TPHEN, f.tphEnable)
                | Bits.prep(CQ_AVOIDMEMCNFLCT, f.avoidMemConflict), valid);
    }

    /** irdma_sc_ccq_destroy: Destroy CQ without PBL fields (the CCQ is never virtually mapped). */
    public static void destroyCcq(BytesStore<?, ?> dst, long offset, CqOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 0, f.cqSize);
        q(dst, offset, 8, f.cqId & 0xffff_ffffL);
        q(dst, offset, 40, f.shadowAreaAddress);
        header(dst, offset, CqpOpcode.DESTROY_CQ, (f.cqId & CQ_HDR_RAW_CQID)
                | Gen2HwMask.CQPSQ_CQ_CEQID.prep(f.ceqIdValid ? f.ceqId : 0) | Bits.prep(CQ_ENCEQEMASK, f.ceqeMask)
                | Bits.prep(CQ_CEQIDVALID, f.ceqIdValid) | Bits.prep(TPHEN, f.tphEnable)
                | Bits.prep(CQ_AVOIDMEMCNFLCT, f.avoidMemConflict), valid);
    }

    // --- CEQ / AEQ (irdma_sc_ceq_create / _destroy, irdma_sc_aeq_create / _destroy)

    public static void createCeq(BytesStore<?, ?> dst, long offset, EqOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, f.elementCount & 0xffff_ffffL);
        q(dst, offset, 32, f.virtualMap ? 0 : f.address);
        q(dst, offset, 48, f.virtualMap ? f.firstPmPblIndex & 0xffff_ffffL : 0);
        q(dst, offset, 56, Bits.prep(TPHVAL, f.tphValue) | Bits.prep(PASID, f.pasid) | Bits.prep(VSIIDX, f.vsiIndex));
        header(dst, offset, CqpOpcode.CREATE_CEQ, Bits.prep(CEQ_CEQID, f.ceqId)
                | Bits.prep(CEQ_CEQID_HIGH, f.ceqId >>> 10) | Bits.prep(LPBLSIZE, f.pblChunkSize)
                | Bits.prep(EQ_VMAP, f.virtualMap) | Bits.prep(EQ_ITRNOEXPIRE, f.itrNoExpire)
                | Bits.prep(TPHEN, f.tphEnable) | Bits.prep(PASID_VALID, f.pasidValid), valid);
    }

    public static void destroyCeq(BytesStore<?, ?> dst, long offset, EqOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, f.elementCount & 0xffff_ffffL);
        q(dst, offset, 48, f.firstPmPblIndex & 0xffff_ffffL);
        q(dst, offset, 56, Bits.prep(PASID, f.pasid));
        header(dst, offset, CqpOpcode.DESTROY_CEQ, (f.ceqId & 0xffff_ffffL) | Bits.prep(LPBLSIZE, f.pblChunkSize)
                | Bits.prep(EQ_VMAP, f.virtualMap) | Bits.prep(TPHEN, f.tphEnable)
                | Bits.prep(PASID_VALID, f.pasidValid), valid);
    }

    public static void createAeq(BytesStore<?, ?> dst, long offset, EqOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, f.elementCount & 0xffff_ffffL);
        q(dst, offset, 32, f.virtualMap ? 0 : f.address);
        q(dst, offset, 48, f.virtualMap ? f.firstPmPblIndex & 0xffff_ffffL : 0);
        q(dst, offset, 56, Bits.prep(PASID, f.pasid));
        header(dst, offset, CqpOpcode.CREATE_AEQ, Bits.prep(LPBLSIZE, f.pblChunkSize)
                | Bits.prep(EQ_VMAP, f.virtualMap) | Bits.prep(PASID_VALID, f.pasidValid), valid);
    }

    public static void destroyAeq(BytesStore<?, ?> dst, long offset, EqOpFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, f.elementCount & 0xffff_ffffL);
        q(dst, offset, 48, f.firstPmPblIndex & 0xffff_ffffL);
        q(dst, offset, 56, Bits.prep(PASID, f.pasid));
        header(dst, offset, CqpOpcode.DESTROY_AEQ, Bits.prep(LPBLSIZE, f.pblChunkSize)
                | Bits.prep(EQ_VMAP, f.virtualMap) | Bits.prep(PASID_VALID, f.pasidValid), valid);
    }

    // --- Manage quad-hash entry (irdma_sc_manage_qhash_table_entry)

    public static void manageQhash(BytesStore<?, ?> dst, long offset, QhashFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 0, f.mac & MAC48);
        long qw1 = Bits.prep(QHASH_QPN, f.qpNumber) | Bits.prep(QHASH_DEST_PORT, f.destPort);
        if (f.ipv4) {
            q(dst, offset, 48, Bits.prep(ADDR_LO, f.destIp[0]));
        } else {
            q(dst, offset, 56, Bits.prep(ADDR_HI, f.destIp[0]) | Bits.prep(ADDR_LO, f.destIp[1]));
            q(dst, offset, 48, Bits.prep(ADDR_HI, f.destIp[2]) | Bits.prep(ADDR_LO, f.destIp[3]));
        }
        long qw2 = Bits.prep(QHASH_QS_HANDLE, f.qsHandle);
        if (f.vlanValid) {
            qw2 |= Bits.prep(QHASH_VLANID, f.vlanId);
        }
        q(dst, offset, 16, qw2);
        if (f.entryType == QHASH_TYPE_TCP_ESTABLISHED) {
            qw1 |= Bits.prep(QHASH_SRC_PORT, f.srcPort);
            if (!f.ipv4) {
                q(dst, offset, 40, Bits.prep(ADDR_HI, f.srcIp[0]) | Bits.prep(ADDR_LO, f.srcIp[1]));
                q(dst, offset, 32, Bits.prep(ADDR_HI, f.srcIp[2]) | Bits.prep(ADDR_LO, f.srcIp[3]));
            } else {
                q(dst, offset, 32, Bits.prep(ADDR_LO, f.srcIp[0]));
            }
        }
        q(dst, offset, 8, qw1);
        header(dst, offset, CqpOpcode.MANAGE_QUAD_HASH_TABLE_ENTRY, Bits.prep(QHASH_MANAGE, f.manage)
                | Bits.prep(QHASH_IPV4VALID, f.ipv4) | Bits.prep(QHASH_VLANVALID, f.vlanValid)
                | Bits.prep(QHASH_ENTRYTYPE, f.entryType), valid);
    }

    // --- Manage APBVT (irdma_sc_manage_apbvt_entry)

    public static void manageApbvt(BytesStore<?, ?> dst, long offset, int port, boolean add, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, port & 0xffffL);
        header(dst, offset, CqpOpcode.MANAGE_APBVT, Bits.prep(MAPT_ADDPORT, add), valid);
    }

    // --- Manage ARP (irdma_sc_add_arp_cache_entry / irdma_sc_del_arp_cache_entry)

    public static void addArpEntry(BytesStore<?, ?> dst, long offset, int arpIndex, long reachMax, long mac,
                                   boolean permanent, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 8, reachMax);
        q(dst, offset, 16, mac & MAC48);
        header(dst, offset, CqpOpcode.MANAGE_ARP, (arpIndex & 0xffffL) | Bits.prep(MAT_PERMANENT, permanent)
                | MAT_ENTRYVALID, valid);
    }

    public static void deleteArpEntry(BytesStore<?, ?> dst, long offset, int arpIndex, boolean valid) {
        begin(dst, offset);
        header(dst, offset, CqpOpcode.MANAGE_ARP, arpIndex & 0xffffL, valid);
    }

    // --- STags (irdma_sc_alloc_stag / irdma_sc_mr_reg_non_shared / irdma_sc_dealloc_stag)

    private static long stagPd(StagFields f) {
        return Gen2HwMask.CQPSQ_STAG_PDID.prep(f.pdId);
    }

    public static void allocStag(BytesStore<?, ?> dst, long offset, StagFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 8, stagPd(f) | Bits.prep(STAG_STAGLEN, f.length));
        q(dst, offset, 16, Bits.prep(STAG_IDX, f.stagIndex) | Bits.prep(STAG_PDID_HI, f.pdId >>> STAG_PDID_LOW_BITS));
        q(dst, offset, 40, Bits.prep(STAG_HMCFNIDX, f.hmcFcnIndex));
        if (f.pblChunkSize != 0) {
            q(dst, offset, 48, Bits.prep(STAG_FIRSTPMPBLIDX, f.firstPmPblIndex));
        }
        header(dst, offset, CqpOpcode.ALLOC_STAG, STAG_MR | Bits.prep(STAG_ARIGHTS, f.accessRights)
                | Bits.prep(LPBLSIZE, f.pblChunkSize) | Bits.prep(STAG_HPAGESIZE, f.pageSize)
                | Bits.prep(STAG_REMACCENABLED, f.remoteAccess) | Bits.prep(STAG_USEHMCFNIDX, f.useHmcFcnIndex)
                | Bits.prep(STAG_USEPFRID, f.usePfRid), valid);
    }

    /** irdma_sc_mw_alloc: Alloc STag with MR clear: PD, STag index, MWTYPE (42), MW1_BIND_DONT_VLDT_KEY (58). */
    public static void allocMw(BytesStore<?, ?> dst, long offset, StagFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 8, stagPd(f));
        q(dst, offset, 16, Bits.prep(STAG_IDX, f.stagIndex) | Bits.prep(STAG_PDID_HI, f.pdId >>> STAG_PDID_LOW_BITS));
        header(dst, offset, CqpOpcode.ALLOC_STAG, Bits.prep(STAG_MWTYPE, f.mwWide)
                | Bits.prep(STAG_MW1_BIND_DONT_VLDT_KEY, f.mw1BindDontValidateKey), valid);
    }

    public static void registerMr(BytesStore<?, ?> dst, long offset, StagFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 0, f.vaOrFbo);
        q(dst, offset, 8, Bits.prep(STAG_STAGLEN, f.length) | stagPd(f));
        q(dst, offset, 16, Bits.prep(STAG_KEY, f.stagKey) | Bits.prep(STAG_PDID_HI, f.pdId >>> STAG_PDID_LOW_BITS)
                | Bits.prep(STAG_IDX, f.stagIndex));
        if (f.pblChunkSize == 0) {
            q(dst, offset, 32, f.regAddress);
        } else {
            q(dst, offset, 48, Bits.prep(STAG_FIRSTPMPBLIDX, f.firstPmPblIndex));
        }
        q(dst, offset, 40, f.hmcFcnIndex & 0xffffL);
        header(dst, offset, CqpOpcode.REG_MR, STAG_MR | Bits.prep(LPBLSIZE, f.pblChunkSize)
                | Bits.prep(STAG_HPAGESIZE, f.pageSize) | Bits.prep(STAG_ARIGHTS, f.accessRights)
                | Bits.prep(STAG_REMACCENABLED, f.remoteAccess) | Bits.prep(STAG_VABASEDTO, f.vaBased)
                | Bits.prep(STAG_USEHMCFNIDX, f.useHmcFcnIndex) | Bits.prep(STAG_USEPFRID, f.usePfRid), valid);
    }

    public static void deallocStag(BytesStore<?, ?> dst, long offset, StagFields f, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 8, stagPd(f));
        q(dst, offset, 16, Bits.prep(STAG_IDX, f.stagIndex) | Bits.prep(STAG_PDID_HI, f.pdId >>> STAG_PDID_LOW_BITS));
        header(dst, offset, CqpOpcode.DEALLOC_STAG, Bits.prep(STAG_MR, f.mr), valid);
    }

    // --- FPM (irdma_sc_query_fpm_val / irdma_sc_commit_fpm_val)

    public static void queryFpm(BytesStore<?, ?> dst, long offset, int hmcFnId, long bufferAddress, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, Bits.prep(CFPM_HMCFNID, hmcFnId));
        q(dst, offset, 32, bufferAddress);
        header(dst, offset, CqpOpcode.QUERY_FPM_VAL, 0, valid);
    }

    public static void commitFpm(BytesStore<?, ?> dst, long offset, int hmcFnId, long bufferAddress,
                                 boolean scratchBufferPresent, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, Bits.prep(CFPM_HMCFNID, hmcFnId));
        q(dst, offset, 32, bufferAddress);
        header(dst, offset, CqpOpcode.COMMIT_FPM_VAL, Bits.prep(BUFSIZE, COMMIT_FPM_BUF_SIZE)
                | Bits.prep(CFPM_FW_SCRATCH_BUF_PRESENT, scratchBufferPresent), valid);
    }

    // --- Update PE SDs (cqp_sds_wqe_fill)

    /**
     * Writes an Update PE SDs WQE for {@code count} (1..11) entries {@code commands[i]} / {@code data[i]}: the first
     * three inline, the rest as 16-byte entries at {@code bufOffset} of {@code buf} (the driver's per-WQE slot of
     * its sdbuf), whose guest-physical address {@code bufferAddress} (0x80-aligned) goes in quadword 2.
     */
    public static void updatePeSds(BytesStore<?, ?> dst, long offset, int hmcFnId, long[] commands, long[] data,
                                   int count, long bufferAddress, BytesStore<?, ?> buf, long bufOffset,
                                   boolean valid) {
        if (count < 1 || count > SD_INLINE_MAX + SD_BUFFER_MAX || commands.length < count || data.length < count) {
            throw new IllegalArgumentException("Update PE SDs with " + count + " entries");
        }
        begin(dst, offset);
        int inline = Math.min(count, SD_INLINE_MAX);
        int buffered = count - inline;
        long qw2 = 0;
        if (buffered > 0) {
            QuadwordView.requireRoom(buf, bufOffset, (long) buffered * 16, "SD buffer");
            for (int i = 0; i < buffered; i++) {
                buf.writeLong(bufOffset + i * 16L, commands[SD_INLINE_MAX + i]);
                buf.writeLong(bufOffset + i * 16L + 8, data[SD_INLINE_MAX + i]);
            }
            qw2 = bufferAddress;
        }
        q(dst, offset, 16, qw2 | Gen2HwMask.CQPSQ_UPESD_HMCFNID.prep(hmcFnId));
        if (inline == 3) {
            q(dst, offset, 48, Bits.prep(UPESD_SDCMD, commands[2]) | UPESD_ENTRY_VALID);
            q(dst, offset, 56, data[2]);
        }
        if (inline >= 2) {
            q(dst, offset, 32, Bits.prep(UPESD_SDCMD, commands[1]) | UPESD_ENTRY_VALID);
            q(dst, offset, 40, data[1]);
        }
        q(dst, offset, 0, Bits.prep(UPESD_SDCMD, commands[0]));
        q(dst, offset, 8, data[0]);
        header(dst, offset, CqpOpcode.UPDATE_PE_SDS, Bits.prep(UPESD_ENTRY_COUNT, buffered), valid);
    }

    // --- NOP

    /** A NOP: opcode and valid bit only. Linux 7.3's ctrl.c has no writer for IRDMA_CQP_OP_NOP; this is its layout. */
    public static void nop(BytesStore<?, ?> dst, long offset, boolean valid) {
        begin(dst, offset);
        header(dst, offset, CqpOpcode.NOP, 0, valid);
    }

    // --- Query RDMA features / Static HMC pages allocated

    /** irdma_sc_query_rdma_features: the buffer at quadword 4, its length in BUF_LEN (31:0) of the header. */
    public static void queryRdmaFeatures(BytesStore<?, ?> dst, long offset, long bufferAddress, int bufferLength,
                                         boolean valid) {
        begin(dst, offset);
        q(dst, offset, 32, bufferAddress);
        header(dst, offset, CqpOpcode.QUERY_RDMA_FEATURES, Bits.prep(FEATURES_BUF_LEN, bufferLength), valid);
    }

    /** irdma_sc_static_hmc_pages_allocated: the HMC function id (5:0) at quadword 2. */
    public static void staticHmcPagesAllocated(BytesStore<?, ?> dst, long offset, int hmcFnId, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 16, Bits.prep(SHMC_HMC_FN_ID, hmcFnId));
        header(dst, offset, CqpOpcode.SHMC_PAGES_ALLOCATED, 0, valid);
    }

    // --- Work scheduler node

    /**
     * irdma_sc_manage_ws_node: VSI and weight at quadword 4; node op, enable, leaf, priority type, TC, parent and
     * node id in the header. {@code nodeOp} is enum irdma_ws_node_op (0 add, 1 modify, 2 delete).
     */
    public static void workSchedNode(BytesStore<?, ?> dst, long offset, int nodeOp, int nodeId, int parentId,
                                     boolean leaf, boolean enable, int prioType, int tc, int vsi, int weight,
                                     boolean valid) {
        begin(dst, offset);
        q(dst, offset, 32, Bits.prep(WS_VSI, vsi) | Bits.prep(WS_WEIGHT, weight));
        header(dst, offset, CqpOpcode.WORK_SCHED_NODE, Bits.prep(WS_NODEOP, nodeOp) | Bits.prep(WS_ENABLENODE, enable)
                | Bits.prep(WS_NODETYPE, leaf) | Bits.prep(WS_PRIOTYPE, prioType) | Bits.prep(WS_TC, tc)
                | Bits.prep(WS_PARENTID, parentId) | Bits.prep(WS_NODEID, nodeId), valid);
    }

    // --- Address handle

    /**
     * uda.c irdma_sc_access_ah for {@code op} (CREATE, MODIFY or DESTROY_ADDR_HANDLE): MAC << 16 at quadword 0;
     * PD low, TC/TOS and VLAN tag at 1; ARP index, flow label, hop limit and PD high at 2; the destination address
     * at 4 (and 5 for IPv6), the source at 6 (and 7); index, IPv4-valid, insert-VLAN and loopback in the header.
     * {@code dest} / {@code src} are irdma_ah_info.dest_ip_addr / src_ip_addr (only word 0 for IPv4).
     */
    public static void addressHandle(BytesStore<?, ?> dst, long offset, CqpOpcode op, int ahIndex, long mac,
                                     int pdIndex, int tcTos, int vlanTag, boolean insertVlanTag, int arpIndex,
                                     int flowLabel, int hopLimit, boolean ipv4, boolean loopback, int[] dest,
                                     int[] src, boolean valid) {
        if (op != CqpOpcode.CREATE_ADDR_HANDLE && op != CqpOpcode.MODIFY_ADDR_HANDLE
                && op != CqpOpcode.DESTROY_ADDR_HANDLE) {
            throw new IllegalArgumentException("not an address-handle op: " + op);
        }
        begin(dst, offset);
        q(dst, offset, 0, Bits.prep(AH_MAC, mac));
        q(dst, offset, 8, Bits.prep(AH_PDINDEXLO, pdIndex & 0xffff) | Bits.prep(AH_TC, tcTos)
                | Bits.prep(AH_VLANTAG, vlanTag));
        q(dst, offset, 16, Bits.prep(AH_ARPINDEX, arpIndex) | Bits.prep(AH_FLOWLABEL, flowLabel)
                | Bits.prep(AH_HOPLIMIT, hopLimit) | Bits.prep(AH_PDINDEXHI, pdIndex >>> 16));
        if (ipv4) {
            q(dst, offset, 32, Integer.toUnsignedLong(dest[0]));
            q(dst, offset, 48, Integer.toUnsignedLong(src[0]));
        } else {
            q(dst, offset, 40, (long) dest[0] << 32 | Integer.toUnsignedLong(dest[1]));
            q(dst, offset, 32, (long) dest[2] << 32 | Integer.toUnsignedLong(dest[3]));
            q(dst, offset, 56, (long) src[0] << 32 | Integer.toUnsignedLong(src[1]));
            q(dst, offset, 48, (long) src[2] << 32 | Integer.toUnsignedLong(src[3]));
        }
        header(dst, offset, op, Bits.prep(AH_DOLOOPBACK, loopback) | Bits.prep(AH_IPV4VALID, ipv4)
                | Bits.prep(AH_AVIDX, ahIndex) | Bits.prep(AH_INSERTVLANTAG, insertVlanTag), valid);
    }

    // --- Gather stats

    /** ctrl.c irdma_sc_gather_stats: HMC fn index at quadword 5, buffer PA at 4, instance flags in the header. */
    public static void gatherStats(BytesStore<?, ?> dst, long offset, long bufferPa, int hmcFnIndex,
                                   boolean useHmcFnIndex, boolean useInstance, int instanceIndex, boolean valid) {
        begin(dst, offset);
        q(dst, offset, 40, Bits.prep(STATS_HMC_FCN_INDEX, hmcFnIndex));
        q(dst, offset, 32, bufferPa);
        header(dst, offset, CqpOpcode.GATHER_STATS, Bits.prep(STATS_USE_INST, useInstance)
                | Bits.prep(STATS_INST_INDEX, instanceIndex) | Bits.prep(STATS_USE_HMC_FCN_INDEX, useHmcFnIndex),
                valid);
    }
}
