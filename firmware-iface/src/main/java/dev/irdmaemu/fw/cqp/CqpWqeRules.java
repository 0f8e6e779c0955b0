package dev.irdmaemu.fw.cqp;

import static dev.irdmaemu.fw.cqp.CqpWqe.*;

import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import java.util.OptionalInt;

/**
 * What a CQP WQE may hold, op by op: for each opcode the bits of each quadword its ctrl.c writer can set, the fields
 * it leaves zero under a condition of the same WQE, and the values it never writes (a QP type outside 1..4, PBL chunk
 * size 3, a quad-hash entry type outside 1..6, ...). {@link CqpWqe#validate()} answers through these rules; the
 * flyweight itself only reads and writes fields. nvme's rule: check every field the guest hands over against what
 * the kernel's writers may set, and name the first one that fails.
 */
final class CqpWqeRules {
    private CqpWqeRules() {
    }

    private static final long ALL = -1L;
    private static final long HDR = OPCODE | WQEVALID;
    /** Per opcode, the bits of each quadword the ctrl.c writer can set; null for ops not decoded. */
    private static final long[][] USED = new long[64][];

    static {
        long qpCommon = HDR | QP_QPID | QP_QPTYPE;
        used(CqpOpcode.CREATE_QP, 0, 0, ALL, qpCommon | QP_ORDVALID | QP_TOECTXVALID | QP_MACVALID | QP_VQ
                | QP_FORCELOOPBACK | QP_CQNUMVALID | QP_ARPTABIDXVALID | QP_NEXTIWSTATE, 0, ALL, 0, 0);
        used(CqpOpcode.MODIFY_QP, 0, QP_NEWMSS | QP_TERMLEN, ALL, qpCommon | QP_ORDVALID | QP_TOECTXVALID
                | QP_CACHEDVARVALID | QP_VQ | QP_FORCELOOPBACK | QP_CQNUMVALID | QP_MACVALID | QP_MSSCHANGE
                | QP_REMOVEHASHENTRY | QP_TERMACT | QP_RESETCON | QP_ARPTABIDXVALID | QP_NEXTIWSTATE, 0, ALL, 0, 0);
        used(CqpOpcode.DESTROY_QP, 0, 0, ALL, qpCommon | QP_IGNOREMWBOUND | QP_REMOVEHASHENTRY, 0, ALL, 0, 0);
        long cqFlags = LPBLSIZE | CQ_CHKOVERFLOW | CQ_VIRTMAP | CQ_ENCEQEMASK | TPHEN | CQ_AVOIDMEMCNFLCT;
        used(CqpOpcode.CREATE_CQ, CQ_CQSIZE, CQ_QW1_CQID, CQ_SHADOW_READ_THRESHOLD, HDR | CQ_CQID | CQ_CEQID
                | cqFlags | CQ_CQID_HIGH | CQ_CEQID_HIGH | CQ_CEQIDVALID, ALL, ALL, CQ_FIRSTPMPBLIDX, TPHVAL | VSIIDX);
        used(CqpOpcode.MODIFY_CQ, CQ_CQSIZE, CQ_QW1_CQID, CQ_SHADOW_READ_THRESHOLD, HDR | CQ_HDR_RAW_CQID
                | cqFlags | CQ_CQRESIZE, ALL, ALL, CQ_FIRSTPMPBLIDX, TPHVAL | VSIIDX);
        used(CqpOpcode.DESTROY_CQ, CQ_CQSIZE, CQ_QW1_CQID, 0, HDR | CQ_HDR_RAW_CQID | CQ_CEQID | cqFlags
                & ~CQ_CHKOVERFLOW | CQ_CEQIDVALID, 0, ALL, CQ_FIRSTPMPBLIDX, 0);
        used(CqpOpcode.CREATE_CEQ, 0, 0, CEQ_CEQSIZE, HDR | CEQ_CEQID | CEQ_CEQID_HIGH | LPBLSIZE | EQ_VMAP
                | EQ_ITRNOEXPIRE | TPHEN | PASID_VALID, ALL, 0, EQ_FIRSTPMPBLIDX, TPHVAL | PASID | VSIIDX);
        used(CqpOpcode.DESTROY_CEQ, 0, 0, CEQ_CEQSIZE, HDR | CEQ_HDR_RAW_ID | LPBLSIZE | EQ_VMAP | TPHEN
                | PASID_VALID, 0, 0, EQ_FIRSTPMPBLIDX, PASID);
        long aeqHdr = HDR | LPBLSIZE | EQ_VMAP | PASID_VALID;
        used(CqpOpcode.CREATE_AEQ, 0, 0, AEQ_AEQECNT, aeqHdr, ALL, 0, EQ_FIRSTPMPBLIDX, PASID);
        used(CqpOpcode.DESTROY_AEQ, 0, 0, AEQ_AEQECNT, aeqHdr, 0, 0, EQ_FIRSTPMPBLIDX, PASID);
        used(CqpOpcode.MANAGE_QUAD_HASH_TABLE_ENTRY, MAC48, QHASH_QPN | QHASH_SRC_PORT | QHASH_DEST_PORT,
                QHASH_QS_HANDLE | QHASH_VLANID, HDR | QHASH_MANAGE | QHASH_IPV4VALID | QHASH_VLANVALID
                        | QHASH_ENTRYTYPE, ALL, ALL, ALL, ALL);
        used(CqpOpcode.MANAGE_APBVT, 0, 0, MAPT_PORT, HDR | MAPT_ADDPORT, 0, 0, 0, 0);
        used(CqpOpcode.MANAGE_ARP, 0, MAT_REACHMAX, MAC48, HDR | MAT_ARPENTRYIDX | MAT_PERMANENT | MAT_ENTRYVALID,
                0, 0, 0, 0);
        long stagHdr = HDR | STAG_MR | STAG_ARIGHTS | LPBLSIZE | STAG_HPAGESIZE | STAG_REMACCENABLED
                | STAG_USEHMCFNIDX | STAG_USEPFRID;
        used(CqpOpcode.ALLOC_STAG, 0, STAG_PDID | STAG_STAGLEN, STAG_IDX | STAG_PDID_HI,
                stagHdr | STAG_MWTYPE | STAG_MW1_BIND_DONT_VLDT_KEY, 0, STAG_HMCFNIDX,
                STAG_FIRSTPMPBLIDX, 0);
        used(CqpOpcode.REG_MR, ALL, STAG_PDID | STAG_STAGLEN, STAG_KEY | STAG_IDX | STAG_PDID_HI,
                stagHdr | STAG_VABASEDTO, ALL, STAG_HMCFNIDX, STAG_FIRSTPMPBLIDX, 0);
        used(CqpOpcode.DEALLOC_STAG, 0, STAG_PDID, STAG_IDX | STAG_PDID_HI, HDR | STAG_MR, 0, 0, 0, 0);
        used(CqpOpcode.QUERY_FPM_VAL, 0, 0, CFPM_HMCFNID, HDR, ALL, 0, 0, 0);
        used(CqpOpcode.COMMIT_FPM_VAL, 0, 0, CFPM_HMCFNID, HDR | BUFSIZE | CFPM_FW_SCRATCH_BUF_PRESENT, ALL, 0, 0,
                0);
        used(CqpOpcode.UPDATE_PE_SDS, UPESD_SDCMD, ALL, UPESD_BUFFER | UPESD_HMCFNID, HDR | UPESD_ENTRY_COUNT,
                UPESD_SDCMD | UPESD_ENTRY_VALID, ALL, UPESD_SDCMD | UPESD_ENTRY_VALID, ALL);
        used(CqpOpcode.NOP, 0, 0, 0, HDR, 0, 0, 0, 0);
        used(CqpOpcode.FLUSH_WQES, 0, FWQE_AECODE | FWQE_AESOURCE, ALL, HDR | FWQE_QPID | FWQE_GENERATE_AE
                | FWQE_USERFLCODE | FWQE_FLUSHSQ | FWQE_FLUSHRQ, 0, 0, 0, 0);
        used(CqpOpcode.QUERY_RDMA_FEATURES, 0, 0, 0, HDR | FEATURES_BUF_LEN, ALL, 0, 0, 0);
        used(CqpOpcode.SHMC_PAGES_ALLOCATED, 0, 0, SHMC_HMC_FN_ID, HDR, 0, 0, 0, 0);
        used(CqpOpcode.WORK_SCHED_NODE, 0, 0, 0, HDR | WS_NODEOP | WS_ENABLENODE | WS_NODETYPE | WS_PRIOTYPE | WS_TC
                | WS_PARENTID | WS_NODEID, WS_VSI | WS_WEIGHT, 0, 0, 0);
        long ahHdr = HDR | AH_DOLOOPBACK | AH_INSERTVLANTAG | AH_IPV4VALID | AH_AVIDX;
        for (CqpOpcode op : new CqpOpcode[] {CqpOpcode.CREATE_ADDR_HANDLE, CqpOpcode.MODIFY_ADDR_HANDLE,
                CqpOpcode.DESTROY_ADDR_HANDLE}) {
            used(op, AH_MAC, AH_PDINDEXLO | AH_TC | AH_VLANTAG, AH_ARPINDEX | AH_HOPLIMIT | AH_PDINDEXHI
                    | AH_FLOWLABEL, ahHdr, ALL, ALL, ALL, ALL);
        }
        used(CqpOpcode.GATHER_STATS, 0, 0, 0, HDR | STATS_USE_INST | STATS_INST_INDEX | STATS_USE_HMC_FCN_INDEX, ALL,
                STATS_HMC_FCN_INDEX, 0, 0);
    }

    private static void used(CqpOpcode op, long... masks) {
        USED[op.code()] = masks;
    }

    /** The bits the ctrl.c writer of {@code op} can set in quadword {@code qword}; 0 for ops not decoded. */
    static long usedBits(CqpOpcode op, int qword) {
        long[] m = USED[op.code()];
        return m == null || qword < 0 || qword >= QWORDS ? 0L : m[qword];
    }

    static CqpWqeCheck check(CqpWqe w) {
        w.clearFailure();
        if (!w.has(0, SIZE)) {
            return w.reject(CqpWqeCheck.TRUNCATED, w.length());
        }
        CqpOpcode op = w.opcode();
        if (op == null) {
            return w.reject(CqpWqeCheck.UNKNOWN_OPCODE, OFF_HEADER + 4);
        }
        long[] used = USED[op.code()];
        if (used == null) {
            return w.reject(CqpWqeCheck.UNSUPPORTED_OPCODE, OFF_HEADER + 4);
        }
        for (int i = 0; i < QWORDS; i++) {
            long stray = w.qword(i * 8L) & ~used[i];
            if (stray != 0) {
                return w.reject(CqpWqeCheck.RESERVED_BITS_SET, i * 8L + Long.numberOfTrailingZeros(stray) / 8);
            }
        }
        OptionalInt reserved = conditionallyReserved(w, op);
        if (reserved.isPresent()) {
            return w.reject(CqpWqeCheck.RESERVED_BITS_SET, reserved.getAsInt());
        }
        return switch (op) {
            case CREATE_QP, MODIFY_QP, DESTROY_QP -> validateQp(w);
            case CREATE_CQ, MODIFY_CQ, DESTROY_CQ -> validateCq(w, op);
            case CREATE_CEQ, DESTROY_CEQ, CREATE_AEQ, DESTROY_AEQ -> w.pblChunkSize() == 3
                    ? w.reject(CqpWqeCheck.BAD_PBL_CHUNK_SIZE, OFF_HEADER + 5) : CqpWqeCheck.ACCEPTED;
            case CREATE_ADDR_HANDLE, MODIFY_ADDR_HANDLE, DESTROY_ADDR_HANDLE -> validateAh(w);
            case MANAGE_QUAD_HASH_TABLE_ENTRY -> validateQhash(w);
            case ALLOC_STAG, REG_MR -> validateStag(w, op);
            case COMMIT_FPM_VAL -> w.fpmBufferSize() != COMMIT_FPM_BUF_SIZE
                    ? w.reject(CqpWqeCheck.BAD_BUFFER_SIZE, OFF_HEADER) : CqpWqeCheck.ACCEPTED;
            case UPDATE_PE_SDS -> validateSds(w);
            default -> CqpWqeCheck.ACCEPTED;
        };
    }

    private static CqpWqeCheck validateQp(CqpWqe w) {
        if (w.qpType() < 1 || w.qpType() > 4) {
            return w.reject(CqpWqeCheck.BAD_QP_TYPE, OFF_HEADER + 6);
        }
        if (w.qpNextIwarpState() == 7) {
            return w.reject(CqpWqeCheck.BAD_IWARP_STATE, OFF_HEADER + 7);
        }
        return CqpWqeCheck.ACCEPTED;
    }

    private static CqpWqeCheck validateCq(CqpWqe w, CqpOpcode op) {
        if (w.pblChunkSize() == 3) {
            return w.reject(CqpWqeCheck.BAD_PBL_CHUNK_SIZE, OFF_HEADER + 5);
        }
        if (w.cqHeaderCqId() != cqHeaderCqIdFor(op, w.cqId())) {
            return w.reject(CqpWqeCheck.CQ_ID_MISMATCH, OFF_HEADER);
        }
        return CqpWqeCheck.ACCEPTED;
    }

    private static CqpWqeCheck validateAh(CqpWqe w) {
        // IPv4 uses only ADDR3 (the low word) of quadwords 4 and 6
        if (w.ahIpv4() && ((w.qword(32) | w.qword(48)) & ADDR_HI | w.qword(40) | w.qword(56)) != 0) {
            int at = (w.qword(32) & ADDR_HI) != 0 ? 36 : w.qword(40) != 0 ? 40 : (w.qword(48) & ADDR_HI) != 0 ? 52 : 56;
            return w.reject(CqpWqeCheck.RESERVED_BITS_SET, at);
        }
        return CqpWqeCheck.ACCEPTED;
    }

    private static CqpWqeCheck validateQhash(CqpWqe w) {
        if (w.qhashManage() == 3) {
            return w.reject(CqpWqeCheck.BAD_QHASH_MANAGE, OFF_HEADER + 7);
        }
        if (w.qhashEntryType() < 1 || w.qhashEntryType() > 6) {
            return w.reject(CqpWqeCheck.BAD_QHASH_ENTRY_TYPE, OFF_HEADER + 5);
        }
        // IPv4 uses only the low word of quadwords 4 and 6; the remote end is only in established entries.
        long v4 = w.qhashIpv4() ? ADDR_HI : 0L;
        boolean remote = w.qhashEntryType() == QHASH_TYPE_TCP_ESTABLISHED;
        if ((w.qword(48) & v4) != 0 || w.qhashIpv4() && w.qword(56) != 0) {
            return w.reject(CqpWqeCheck.RESERVED_BITS_SET, w.qhashIpv4() && w.qword(56) != 0 ? 56 : 52);
        }
        if (remote && ((w.qword(32) & v4) != 0 || w.qhashIpv4() && w.qword(40) != 0)
                || !remote && (w.qword(32) != 0 || w.qword(40) != 0 || w.qhashSrcPort() != 0)) {
            return w.reject(CqpWqeCheck.RESERVED_BITS_SET, w.qword(40) != 0 ? 40 : w.qword(32) != 0 ? 32 : 10);
        }
        return CqpWqeCheck.ACCEPTED;
    }

    private static CqpWqeCheck validateStag(CqpWqe w, CqpOpcode op) {
        if (stagFlagsInconsistent(w, op)) {
            return w.reject(CqpWqeCheck.INCONSISTENT_FLAGS, OFF_HEADER + 5);
        }
        // verbs.c irdma_hwreg_mr: chunk size 1 for one PBL level, 3 for two; 2 is the code never written
        if (w.pblChunkSize() == STAG_PBL_CHUNK_UNUSED) {
            return w.reject(CqpWqeCheck.BAD_PBL_CHUNK_SIZE, OFF_HEADER + 5);
        }
        if (w.stagPageSize() == 3) {
            return w.reject(CqpWqeCheck.BAD_PAGE_SIZE, OFF_HEADER + 5);
        }
        return CqpWqeCheck.ACCEPTED;
    }

    /**
     * Fields the ctrl.c writer leaves 0 under a condition of the same WQE (a CEQ id without CEQIDVALID, a ring
     * address when virtually mapped, a PBL index when not, ...): the byte offset of the first such non-zero field,
     * if any. With these and the per-op masks, an accepted WQE holds nothing its accessors do not read.
     */
    private static OptionalInt conditionallyReserved(CqpWqe w, CqpOpcode op) {
        long h = w.header();
        switch (op) {
            case CREATE_CQ, DESTROY_CQ -> {
                if (!w.cqCeqIdValid() && (h & (CQ_CEQID | CQ_CEQID_HIGH)) != 0) {
                    return OptionalInt.of(OFF_HEADER + 2);
                }
                if (op == CqpOpcode.CREATE_CQ && w.cqVirtualMap() && w.qword(32) != 0) {
                    return OptionalInt.of(32);
                }
                if (!w.cqVirtualMap() && w.qword(48) != 0) {
                    return OptionalInt.of(48);
                }
            }
            case CREATE_CEQ, CREATE_AEQ -> {
                if (w.eqVirtualMap() && w.qword(32) != 0) {
                    return OptionalInt.of(32);
                }
                if (!w.eqVirtualMap() && w.qword(48) != 0) {
                    return OptionalInt.of(48);
                }
            }
            case ALLOC_STAG -> {
                if (w.pblChunkSize() == 0 && w.qword(48) != 0) {
                    return OptionalInt.of(48);
                }
            }
            case REG_MR -> {
                if (w.pblChunkSize() == 0 && w.qword(48) != 0) {
                    return OptionalInt.of(48);
                }
                if (w.pblChunkSize() != 0 && w.qword(32) != 0) {
                    return OptionalInt.of(32);
                }
            }
            case MANAGE_ARP -> {
                if (!w.arpEntryValid() && (w.qword(8) != 0 || w.qword(16) != 0 || w.arpPermanent())) {
                    return OptionalInt.of(w.qword(8) != 0 ? 8 : w.qword(16) != 0 ? 16 : OFF_HEADER + 5);
                }
            }
            case MANAGE_QUAD_HASH_TABLE_ENTRY -> {
                if (!w.qhashVlanValid() && w.qhashVlanId() != 0) {
                    return OptionalInt.of(20);
                }
            }
            case FLUSH_WQES -> {
                // irdma_sc_qp_flush_wqes writes the AE word only with generate_ae, each queue's codes only with
                // userflushcode and that queue's flush flag.
                if (!w.fwqeGenerateAe() && w.qword(8) != 0) {
                    return OptionalInt.of(8);
                }
                long codes = w.qword(16);
                if ((!w.fwqeUserFlushCode() || !w.fwqeFlushRq()) && (codes & (FWQE_RQMNERR | FWQE_RQMJERR)) != 0) {
                    return OptionalInt.of(16);
                }
                if ((!w.fwqeUserFlushCode() || !w.fwqeFlushSq()) && (codes & (FWQE_SQMNERR | FWQE_SQMJERR)) != 0) {
                    return OptionalInt.of(20);
                }
            }
            case UPDATE_PE_SDS -> {
                if (w.sdBufferEntryCount() == 0 && w.sdBufferAddress() != 0) {
                    return OptionalInt.of(16);
                }
                if (!w.sdEntryValid(1) && w.qword(32) != 0 || !w.sdEntryValid(1) && w.qword(40) != 0) {
                    return OptionalInt.of(w.qword(32) != 0 ? 32 : 40);
                }
                if (!w.sdEntryValid(2) && (w.qword(48) != 0 || w.qword(56) != 0)) {
                    return OptionalInt.of(w.qword(48) != 0 ? 48 : 56);
                }
            }
            default -> {
            }
        }
        return OptionalInt.empty();
    }

    private static final long MR_ONLY_HEADER = STAG_ARIGHTS | LPBLSIZE | STAG_HPAGESIZE | STAG_REMACCENABLED
            | STAG_USEHMCFNIDX | STAG_USEPFRID;
    private static final long MW_ONLY_HEADER = STAG_MWTYPE | STAG_MW1_BIND_DONT_VLDT_KEY;

    private static boolean stagFlagsInconsistent(CqpWqe w, CqpOpcode op) {
        long h = w.header();
        if (op == CqpOpcode.REG_MR) {
            return !w.stagMr();
        }
        if (w.stagMr()) {
            return (h & MW_ONLY_HEADER) != 0;
        }
        // irdma_sc_mw_alloc writes only the PD, the STag index and the two window flags
        return (h & MR_ONLY_HEADER) != 0 || w.stagLength() != 0 || w.qword(40) != 0 || w.qword(48) != 0;
    }

    private static CqpWqeCheck validateSds(CqpWqe w) {
        int buffered = w.sdBufferEntryCount();
        if (buffered > SD_BUFFER_MAX) {
            return w.reject(CqpWqeCheck.BAD_SD_COUNT, OFF_HEADER);
        }
        if (w.sdEntryValid(2) && !w.sdEntryValid(1) || buffered > 0 && !w.sdEntryValid(2)) {
            return w.reject(CqpWqeCheck.SD_ENTRY_GAP, w.sdEntryValid(1) ? 48 : 32);
        }
        if (buffered > 0 && w.sdBufferAddress() == 0) {
            return w.reject(CqpWqeCheck.SD_BUFFER_MISSING, 16);
        }
        for (int i = 0; i < w.sdInlineCount(); i++) {
            if (!SegmentDescriptor.check(w.sdEntryCommand(i), w.sdEntryData(i)).accepted()) {
                return w.reject(CqpWqeCheck.BAD_SD_ENTRY, sdCommandOffset(i));
            }
        }
        return CqpWqeCheck.ACCEPTED;
    }
}
