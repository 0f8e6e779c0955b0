package dev.irdmaemu.fw.cqp;

import static dev.irdmaemu.fw.reg.Bits.bit;
import static dev.irdmaemu.fw.reg.Bits.genmask;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.Gen2HwMask;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over one CQP SQ WQE: 64 bytes, eight little-endian quadwords (IRDMA_CQP_WQE_SIZE, user.h), as the
 * device fetches it from the CQP ring. Quadword 3 (byte 24) is the header: IRDMA_CQPSQ_OPCODE (37:32) and
 * IRDMA_CQPSQ_WQEVALID (63). The valid bit is the ring's polarity: the driver starts at polarity 0 and flips it
 * each time its head wraps to index 0 (ctrl.c irdma_sc_cqp_get_next_send_wqe_idx), so the first pass round the ring
 * carries valid = 1; the device owns a WQE only when {@link #valid()} equals the polarity it expects. ctrl.c writes
 * the header last, after dma_wmb(); {@link CqpWqeWriter} does the same.
 *
 * <p>Accessors are grouped by op, prefixed with the op family ({@code qp*}, {@code cq*}, {@code eq*} for CEQ and
 * AEQ, {@code qhash*}, {@code apbvt*}, {@code arp*}, {@code stag*}, {@code fpm*}, {@code sd*}); each reads the
 * layout the named ctrl.c writer produces and is meaningful only for that op. {@link #validate()} checks the
 * opcode, that no bit outside the op's fields is set, and the fields' ranges. Gen2 field widths (icrdma_masks[]).
 */
public final class CqpWqe extends QuadwordView implements Flyweight<CqpWqe> {
    public static final int SIZE = 64;
    public static final int QWORDS = 8;
    public static final int OFF_HEADER = 24;

    // --- common header (defs.h)
    public static final long OPCODE = genmask(37, 32);
    public static final long WQEVALID = bit(63);

    // --- Create/Modify/Destroy QP (ctrl.c irdma_sc_qp_create / _modify / _destroy)
    /** IRDMA_CQPSQ_QP_QPID_M. */
    public static final long QP_QPID = genmask(23, 0);
    public static final long QP_NEWMSS = genmask(45, 32);
    public static final long QP_TERMLEN = genmask(51, 48);
    public static final long QP_ORDVALID = bit(42);
    public static final long QP_TOECTXVALID = bit(43);
    public static final long QP_CACHEDVARVALID = bit(44);
    public static final long QP_VQ = bit(45);
    public static final long QP_FORCELOOPBACK = bit(46);
    public static final long QP_CQNUMVALID = bit(47);
    public static final long QP_QPTYPE = genmask(50, 48);
    public static final long QP_MACVALID = bit(51);
    public static final long QP_MSSCHANGE = bit(52);
    public static final long QP_IGNOREMWBOUND = bit(54);
    public static final long QP_REMOVEHASHENTRY = bit(55);
    public static final long QP_TERMACT = genmask(57, 56);
    public static final long QP_RESETCON = bit(58);
    public static final long QP_ARPTABIDXVALID = bit(59);
    public static final long QP_NEXTIWSTATE = genmask(62, 60);

    // --- Flush WQEs / Generate AE, both opcode 0x22 (ctrl.c irdma_sc_qp_flush_wqes / irdma_sc_gen_ae; gen2)
    /** IRDMA_CQPSQ_FWQE_AECODE / _AESOURCE (quadword 1). */
    public static final long FWQE_AECODE = genmask(15, 0);
    public static final long FWQE_AESOURCE = genmask(19, 16);
    /** IRDMA_CQPSQ_FWQE_RQMNERR / RQMJERR / SQMNERR / SQMJERR (quadword 2). */
    public static final long FWQE_RQMNERR = genmask(15, 0);
    public static final long FWQE_RQMJERR = genmask(31, 16);
    public static final long FWQE_SQMNERR = genmask(47, 32);
    public static final long FWQE_SQMJERR = genmask(63, 48);
    /** IRDMA_CQPSQ_FWQE_QPID and the header flags. */
    public static final long FWQE_QPID = genmask(23, 0);
    public static final long FWQE_GENERATE_AE = bit(59);
    public static final long FWQE_USERFLCODE = bit(60);
    public static final long FWQE_FLUSHSQ = bit(61);
    public static final long FWQE_FLUSHRQ = bit(62);

    // --- Create/Modify/Destroy CQ (ctrl.c irdma_sc_cq_create / _modify / _destroy, irdma_sc_ccq_destroy)
    public static final long CQ_CQSIZE = genmask(20, 0);
    /** Quadword 1 of the CQ ops: the whole CQ id (CQID in the header plus CQID_HIGH = id >> 22). */
    public static final long CQ_QW1_CQID = genmask(24, 0);
    public static final long CQ_SHADOW_READ_THRESHOLD = genmask(17, 0);
    public static final long CQ_FIRSTPMPBLIDX = genmask(27, 0);
    public static final long TPHVAL = genmask(7, 0);
    public static final long VSIIDX = genmask(23, 8);
    public static final long CQ_CQID = Gen2HwMask.CQPSQ_CQ_CQID.mask();
    public static final long CQ_CEQID = Gen2HwMask.CQPSQ_CQ_CEQID.mask();
    /** Modify/Destroy CQ put the raw CQ id in the header's low bits (below CEQID at 22). */
    public static final long CQ_HDR_RAW_CQID = genmask(21, 0);
    public static final long CQ_CQID_HIGH = genmask(52, 50);
    public static final long CQ_CEQID_HIGH = genmask(59, 54);
    public static final long CQ_CQRESIZE = bit(43);
    public static final long LPBLSIZE = genmask(45, 44);
    public static final long CQ_CHKOVERFLOW = bit(46);
    public static final long CQ_VIRTMAP = bit(47);
    public static final long CQ_ENCEQEMASK = bit(48);
    public static final long CQ_CEQIDVALID = bit(49);
    public static final long TPHEN = bit(60);
    public static final long CQ_AVOIDMEMCNFLCT = bit(61);

    // --- Create/Destroy CEQ and AEQ (ctrl.c irdma_sc_ceq_create / _destroy, irdma_sc_aeq_create / _destroy)
    public static final long CEQ_CEQSIZE = genmask(21, 0);
    public static final long CEQ_CEQID = genmask(9, 0);
    public static final long CEQ_CEQID_HIGH = genmask(15, 10);
    /** Destroy CEQ ORs the raw CEQ id into the header (CEQID plus CEQID_HIGH positions). */
    public static final long CEQ_HDR_RAW_ID = genmask(15, 0);
    public static final long EQ_ITRNOEXPIRE = bit(46);
    public static final long EQ_VMAP = bit(47);
    public static final long AEQ_AEQECNT = genmask(18, 0);
    public static final long EQ_FIRSTPMPBLIDX = genmask(27, 0);
    public static final long PASID = genmask(51, 32);
    public static final long PASID_VALID = bit(62);

    // --- Manage quad-hash table entry (ctrl.c irdma_sc_manage_qhash_table_entry)
    public static final long MAC48 = genmask(47, 0);
    public static final long QHASH_QPN = genmask(49, 32);
    public static final long QHASH_SRC_PORT = genmask(31, 16);
    public static final long QHASH_DEST_PORT = genmask(15, 0);
    public static final long QHASH_QS_HANDLE = genmask(9, 0);
    public static final long QHASH_VLANID = genmask(43, 32);
    public static final long ADDR_HI = genmask(63, 32);
    public static final long ADDR_LO = genmask(31, 0);
    public static final long QHASH_MANAGE = genmask(62, 61);
    public static final long QHASH_IPV4VALID = bit(60);
    public static final long QHASH_VLANVALID = bit(59);
    public static final long QHASH_ENTRYTYPE = genmask(44, 42);
    /** enum irdma_quad_entry_type / irdma_quad_hash_manage_type (type.h). */
    public static final int QHASH_TYPE_TCP_ESTABLISHED = 1;
    public static final int QHASH_TYPE_TCP_SYN = 2;
    public static final int QHASH_MANAGE_DELETE = 0;
    public static final int QHASH_MANAGE_ADD = 1;
    public static final int QHASH_MANAGE_MODIFY = 2;

    // --- Manage APBVT (ctrl.c irdma_sc_manage_apbvt_entry)
    public static final long MAPT_PORT = genmask(15, 0);
    public static final long MAPT_ADDPORT = bit(62);

    // --- Manage ARP (ctrl.c irdma_sc_add_arp_cache_entry / irdma_sc_del_arp_cache_entry)
    public static final long MAT_REACHMAX = genmask(31, 0);
    public static final long MAT_ARPENTRYIDX = genmask(11, 0);
    public static final long MAT_ENTRYVALID = bit(42);
    public static final long MAT_PERMANENT = bit(43);

    // --- Alloc STag / Register MR / Dealloc STag (ctrl.c irdma_sc_alloc_stag / _mr_reg_non_shared / _dealloc_stag)
    public static final long STAG_STAGLEN = genmask(45, 0);
    public static final long STAG_PDID = Gen2HwMask.CQPSQ_STAG_PDID.mask();
    public static final long STAG_KEY = genmask(7, 0);
    public static final long STAG_IDX = genmask(31, 8);
    public static final long STAG_PDID_HI = genmask(59, 54);
    public static final long STAG_HMCFNIDX = genmask(15, 0);
    public static final long STAG_FIRSTPMPBLIDX = genmask(27, 0);
    public static final long STAG_MR = bit(43);
    /** Alloc STag for a memory window (irdma_sc_mw_alloc, MR clear): type 2 window, and bind without key check. */
    public static final long STAG_MWTYPE = bit(42);
    public static final long STAG_MW1_BIND_DONT_VLDT_KEY = bit(58);
    public static final long STAG_HPAGESIZE = genmask(47, 46);
    public static final long STAG_ARIGHTS = genmask(52, 48);
    public static final long STAG_REMACCENABLED = bit(53);
    public static final long STAG_VABASEDTO = bit(59);
    public static final long STAG_USEHMCFNIDX = bit(60);
    /** IRDMA_CQPSQ_STAG_USEPFRID and IRDMA_CQPSQ_STAG_REMOTE_ATOMIC_EN are both BIT_ULL(61) in defs.h. */
    public static final long STAG_USEPFRID = bit(61);
    /** The STag ops' LPBLSIZE codes (verbs.c irdma_hwreg_mr): 0 no PBL, 1 one level, 3 two levels; 2 unused. */
    public static final int STAG_PBL_CHUNK_UNUSED = 2;
    /** Bits of the PD id held in quadword 1 (the gen2 IRDMA_CQPSQ_STAG_PDID field); the rest go to PDID_HI. */
    public static final int STAG_PDID_LOW_BITS = 18;

    // --- Query / Commit FPM values (ctrl.c irdma_sc_query_fpm_val / irdma_sc_commit_fpm_val)
    public static final long CFPM_HMCFNID = genmask(15, 0);
    public static final long BUFSIZE = genmask(31, 0);
    public static final long CFPM_FW_SCRATCH_BUF_PRESENT = bit(38);
    /** IRDMA_COMMIT_FPM_BUF_SIZE (user.h). */
    public static final int COMMIT_FPM_BUF_SIZE = 208;

    // --- Update PE SDs (ctrl.c cqp_sds_wqe_fill)
    public static final long UPESD_SDCMD = genmask(31, 0);
    public static final long UPESD_ENTRY_VALID = bit(63);
    public static final long UPESD_HMCFNID = Gen2HwMask.CQPSQ_UPESD_HMCFNID.mask();
    /** The SD buffer address in quadword 2: the buffer is IRDMA_SD_BUF_ALIGNMENT (0x80) aligned. */
    public static final long UPESD_BUFFER = genmask(63, 7);
    public static final long UPESD_ENTRY_COUNT = genmask(3, 0);
    /** Entries carried in the WQE itself; the rest (up to IRDMA_MAX_SD_ENTRIES = 11) in the buffer. */
    public static final int SD_INLINE_MAX = 3;
    public static final int SD_BUFFER_MAX = 8;

    // --- Query RDMA features (ctrl.c irdma_sc_query_rdma_features) and Static HMC pages allocated
    // (ctrl.c irdma_sc_static_hmc_pages_allocated): both in the gen2 probe (hw.c irdma_ctrl_init_hw queries the
    // features right after CQP creation; irdma_create_hmc_objs ends with the static-pages op).
    /** IRDMA_CQPSQ_QUERY_RDMA_FEATURES_BUF_LEN. */
    public static final long FEATURES_BUF_LEN = genmask(31, 0);
    /** IRDMA_SHMC_PAGE_ALLOCATED_HMC_FN_ID. */
    public static final long SHMC_HMC_FN_ID = genmask(5, 0);

    // --- Work scheduler node (ctrl.c irdma_sc_manage_ws_node; ws.c irdma_ws_cqp_cmd fills it): header and
    // quadword 4 only. IRDMA_CQPSQ_WS_VMVFTYPE / _VMVFNUM exist in defs.h but the writer never sets them.
    /** IRDMA_CQPSQ_WS_NODEOP: enum irdma_ws_node_op (defs.h) IRDMA_ADD_NODE 0, IRDMA_MODIFY_NODE 1, IRDMA_DEL_NODE 2. */
    public static final long WS_NODEOP = genmask(55, 52);
    public static final long WS_ENABLENODE = bit(62);
    /** IRDMA_CQPSQ_WS_NODETYPE: 1 for a leaf (irdma_ws_node_info.type_leaf). */
    public static final long WS_NODETYPE = bit(61);
    /** IRDMA_CQPSQ_WS_PRIOTYPE: enum irdma_sched_prio_type (type.h), 1..3. */
    public static final long WS_PRIOTYPE = genmask(60, 59);
    public static final long WS_TC = genmask(58, 56);
    public static final long WS_PARENTID = genmask(29, 16);
    public static final long WS_NODEID = genmask(13, 0);
    /** Quadword 4: IRDMA_CQPSQ_WS_VSI and IRDMA_CQPSQ_WS_WEIGHT. */
    public static final long WS_VSI = genmask(63, 48);
    public static final long WS_WEIGHT = genmask(38, 32);
    public static final int WS_NODE_OP_ADD = 0;
    public static final int WS_NODE_OP_MODIFY = 1;
    public static final int WS_NODE_OP_DELETE = 2;


    // --- Address handle (uda.c irdma_sc_access_ah, one layout for CREATE / MODIFY / DESTROY_ADDR_HANDLE; uda_d.h
    // IRDMA_UDA_CQPSQ_MAV_*). Quadword 0 carries the destination MAC shifted left by 16 (ether_addr_to_u64 << 16).
    /** Quadword 0: the next-hop MAC, bits 63:16. */
    public static final long AH_MAC = genmask(63, 16);
    /** Quadword 1: IRDMA_UDA_CQPSQ_MAV_PDINDEXLO, the PD index's low 16 bits. */
    public static final long AH_PDINDEXLO = genmask(63, 48);
    /** Quadword 1: IRDMA_UDA_CQPSQ_MAV_TC (irdma_ah_info.tc_tos, the IPv4 TOS / IPv6 traffic class). */
    public static final long AH_TC = genmask(39, 32);
    /** Quadword 1: IRDMA_UDAQPC_VLANTAG (the 802.1Q TCI: PCP and VLAN id). */
    public static final long AH_VLANTAG = genmask(15, 0);
    /** Quadword 2: IRDMA_UDA_CQPSQ_MAV_ARPINDEX (irdma_ah_info.dst_arpindex). */
    public static final long AH_ARPINDEX = genmask(63, 48);
    /** Quadword 2: IRDMA_UDA_CQPSQ_MAV_HOPLIMIT (TTL / hop limit). */
    public static final long AH_HOPLIMIT = genmask(39, 32);
    /** Quadword 2: IRDMA_UDA_CQPSQ_MAV_PDINDEXHI, the PD index's bits 23:16. */
    public static final long AH_PDINDEXHI = genmask(27, 20);
    /** Quadword 2: IRDMA_UDA_CQPSQ_MAV_FLOWLABEL. */
    public static final long AH_FLOWLABEL = genmask(19, 0);
    /** Header: IRDMA_UDA_CQPSQ_MAV_DOLOOPBACKK. */
    public static final long AH_DOLOOPBACK = bit(62);
    /** Header: IRDMA_UDA_CQPSQ_MAV_INSERTVLANTAG. */
    public static final long AH_INSERTVLANTAG = bit(60);
    /** Header: IRDMA_UDA_CQPSQ_MAV_IPV4VALID. */
    public static final long AH_IPV4VALID = bit(59);
    /** Header: IRDMA_UDA_CQPSQ_MAV_AVIDX, the AH index (irdma_ah_info.ah_idx). */
    public static final long AH_AVIDX = genmask(23, 0);

    // --- Gather stats (ctrl.c irdma_sc_gather_stats; defs.h IRDMA_CQPSQ_STATS_*)
    /** Header: IRDMA_CQPSQ_STATS_USE_INST. */
    public static final long STATS_USE_INST = bit(61);
    /** Header: IRDMA_CQPSQ_STATS_USE_HMC_FCN_INDEX. */
    public static final long STATS_USE_HMC_FCN_INDEX = bit(60);
    /** Header: IRDMA_CQPSQ_STATS_INST_INDEX. */
    public static final long STATS_INST_INDEX = genmask(6, 0);
    /** Quadword 5: IRDMA_CQPSQ_STATS_HMC_FCN_INDEX. */
    public static final long STATS_HMC_FCN_INDEX = genmask(15, 0);

    /** The bits the ctrl.c writer of {@code op} can set in quadword {@code qword}; 0 for ops not decoded. */
    public static long usedBits(CqpOpcode op, int qword) {
        return CqpWqeRules.usedBits(op, qword);
    }

    /** Wraps the 64-byte WQE at {@code offset}. */
    public CqpWqe wrap(BytesStore<?, ?> store, long offset) {
        return wrap(store, offset, SIZE);
    }

    /** Checks the WQE against what irdma's ctrl.c writers may set ({@link CqpWqeRules}). */
    public CqpWqeCheck validate() {
        return CqpWqeRules.check(this);
    }

    CqpWqeCheck reject(CqpWqeCheck check, long rel) {
        return fail(check, rel);
    }

    void clearFailure() {
        failedAt = -1;
    }

    // --- common

    public long header() {
        return qword(OFF_HEADER);
    }

    public int opcodeCode() {
        return Bits.getInt(header(), OPCODE);
    }

    /** The opcode, null when defs.h defines none. */
    public CqpOpcode opcode() {
        return CqpOpcode.of(opcodeCode());
    }

    /** IRDMA_CQPSQ_WQEVALID: the polarity the driver wrote this WQE with. */
    public boolean valid() {
        return (header() & WQEVALID) != 0;
    }

    /** True when the WQE's valid bit equals the polarity the device expects at this ring position. */
    public boolean postedFor(boolean expectedPolarity) {
        return has(0, SIZE) && valid() == expectedPolarity;
    }

    /**
     * The valid bit the driver writes on the {@code n}-th WQE it posts (counting from 0 since CQP creation) in a
     * ring of {@code ringSize} WQEs: polarity starts at 0 and flips on every wrap to index 0 before the WQE is
     * written (irdma_sc_cqp_init, irdma_sc_cqp_get_next_send_wqe_idx), so pass 0 carries 1, pass 1 carries 0, ...
     */
    public static boolean expectedValid(long n, int ringSize) {
        return ringSize > 0 && n >= 0 && (n / ringSize & 1) == 0;
    }

    /**
     * LPBLSIZE (45:44) of the CQ, CEQ, AEQ and STag ops: PBL levels, 0 when physically contiguous. The STag ops
     * write 3 for two levels (verbs.c irdma_hwreg_mr), the queue ops 1 or 2.
     */
    public int pblChunkSize() {
        return Bits.getInt(header(), LPBLSIZE);
    }

    // --- QP ops

    public int qpId() {
        return Bits.getInt(header(), QP_QPID);
    }

    /** Quadword 2: guest-physical address of the QP host context (qp->hw_host_ctx_pa). */
    public long qpHostContextAddress() {
        return qword(16);
    }

    /** Quadword 5: the QP doorbell shadow area (qp->shadow_area_pa). */
    public long qpShadowAreaAddress() {
        return qword(40);
    }

    public int qpNewMss() {
        return Bits.getInt(qword(8), QP_NEWMSS);
    }

    public int qpTermLength() {
        return Bits.getInt(qword(8), QP_TERMLEN);
    }

    public boolean qpOrdValid() {
        return Bits.flag(header(), QP_ORDVALID);
    }

    public boolean qpTcpContextValid() {
        return Bits.flag(header(), QP_TOECTXVALID);
    }

    public boolean qpCachedVarValid() {
        return Bits.flag(header(), QP_CACHEDVARVALID);
    }

    public boolean qpVirtualMap() {
        return Bits.flag(header(), QP_VQ);
    }

    public boolean qpForceLoopback() {
        return Bits.flag(header(), QP_FORCELOOPBACK);
    }

    public boolean qpCqNumValid() {
        return Bits.flag(header(), QP_CQNUMVALID);
    }

    /** IRDMA_QP_TYPE_*: 1 iWARP, 2 UDA, 3 RoCE RC, 4 RoCE UD (defs.h). */
    public int qpType() {
        return Bits.getInt(header(), QP_QPTYPE);
    }

    public boolean qpMacValid() {
        return Bits.flag(header(), QP_MACVALID);
    }

    public boolean qpMssChange() {
        return Bits.flag(header(), QP_MSSCHANGE);
    }

    public boolean qpIgnoreMwBound() {
        return Bits.flag(header(), QP_IGNOREMWBOUND);
    }

    public boolean qpRemoveHashEntry() {
        return Bits.flag(header(), QP_REMOVEHASHENTRY);
    }

    /** IRDMAQP_TERM_*: 0 send TERM and FIN, 1 TERM only, 2 FIN only, 3 neither (defs.h). */
    public int qpTermActions() {
        return Bits.getInt(header(), QP_TERMACT);
    }

    public boolean qpResetConnection() {
        return Bits.flag(header(), QP_RESETCON);
    }

    public boolean qpArpIndexValid() {
        return Bits.flag(header(), QP_ARPTABIDXVALID);
    }

    /** IRDMA_QP_STATE_* (defs.h): 1 IDLE, 2 RTS, 3 CLOSING, 4 RTR, 5 TERMINATE, 6 ERROR. */
    public int qpNextIwarpState() {
        return Bits.getInt(header(), QP_NEXTIWSTATE);
    }

    // --- CQ ops

    public long cqSize() {
        return Bits.get(qword(0), CQ_CQSIZE);
    }

    /** The CQ id as quadword 1 carries it. */
    public int cqId() {
        return Bits.getInt(qword(8), CQ_QW1_CQID);
    }

    /** The CQ id bits of the header in the form this op puts them there (see {@link #cqHeaderCqIdFor}). */
    public long cqHeaderCqId() {
        long h = header();
        return opcode() == CqpOpcode.CREATE_CQ ? h & (CQ_CQID | CQ_CQID_HIGH) : h & CQ_HDR_RAW_CQID;
    }

    /** The header CQ id bits {@code op}'s writer produces for {@code cqId}. */
    public static long cqHeaderCqIdFor(CqpOpcode op, long cqId) {
        if (op == CqpOpcode.CREATE_CQ) {
            return Bits.prep(CQ_CQID, cqId) | Bits.prep(CQ_CQID_HIGH, cqId >>> 22);
        }
        return cqId & CQ_HDR_RAW_CQID;
    }

    /** The CEQ id: CEQID (31:22), plus CEQID_HIGH (59:54) above bit 10 for Create CQ. */
    public int cqCeqId() {
        long h = header();
        int id = (int) Bits.get(h, CQ_CEQID);
        return opcode() == CqpOpcode.CREATE_CQ ? id | (int) Bits.get(h, CQ_CEQID_HIGH) << 10 : id;
    }

    public boolean cqCeqIdValid() {
        return Bits.flag(header(), CQ_CEQIDVALID);
    }

    public int cqShadowReadThreshold() {
        return Bits.getInt(qword(16), CQ_SHADOW_READ_THRESHOLD);
    }

    /** Quadword 4: the CQ ring's address (0 when virtually mapped). */
    public long cqAddress() {
        return qword(32);
    }

    public long cqShadowAreaAddress() {
        return qword(40);
    }

    public int cqFirstPmPblIndex() {
        return Bits.getInt(qword(48), CQ_FIRSTPMPBLIDX);
    }

    public int cqTphValue() {
        return Bits.getInt(qword(56), TPHVAL);
    }

    public int cqVsiIndex() {
        return Bits.getInt(qword(56), VSIIDX);
    }

    public boolean cqResize() {
        return Bits.flag(header(), CQ_CQRESIZE);
    }

    public boolean cqCheckOverflow() {
        return Bits.flag(header(), CQ_CHKOVERFLOW);
    }

    public boolean cqVirtualMap() {
        return Bits.flag(header(), CQ_VIRTMAP);
    }

    public boolean cqCeqeMask() {
        return Bits.flag(header(), CQ_ENCEQEMASK);
    }

    public boolean tphEnable() {
        return Bits.flag(header(), TPHEN);
    }

    public boolean cqAvoidMemConflict() {
        return Bits.flag(header(), CQ_AVOIDMEMCNFLCT);
    }

    // --- CEQ / AEQ ops

    /** The CEQ id (CEQ ops only; the AEQ has none): CEQID | CEQID_HIGH << 10, the raw id for Destroy CEQ. */
    public int eqId() {
        return Bits.getInt(header(), CEQ_HDR_RAW_ID);
    }

    /** Quadword 2: number of CEQ / AEQ elements. */
    public int eqElementCount() {
        return Bits.getInt(qword(16), opcode() == CqpOpcode.CREATE_AEQ || opcode() == CqpOpcode.DESTROY_AEQ
                ? AEQ_AEQECNT : CEQ_CEQSIZE);
    }

    /** Quadword 4: the ring's address (0 when virtually mapped). */
    public long eqAddress() {
        return qword(32);
    }

    public int eqFirstPmPblIndex() {
        return Bits.getInt(qword(48), EQ_FIRSTPMPBLIDX);
    }

    public int eqTphValue() {
        return Bits.getInt(qword(56), TPHVAL);
    }

    public int eqVsiIndex() {
        return Bits.getInt(qword(56), VSIIDX);
    }

    public int eqPasid() {
        return Bits.getInt(qword(56), PASID);
    }

    public boolean eqVirtualMap() {
        return Bits.flag(header(), EQ_VMAP);
    }

    public boolean eqItrNoExpire() {
        return Bits.flag(header(), EQ_ITRNOEXPIRE);
    }

    public boolean eqPasidValid() {
        return Bits.flag(header(), PASID_VALID);
    }

    // --- Manage quad-hash entry. "dest" is the local end (the frame's destination), "src" the remote end.

    /** Quadword 0: the MAC as ether_addr_to_u64 packs it (first octet most significant). */
    public long qhashMac() {
        return Bits.get(qword(0), MAC48);
    }

    /** The QP the entry steers to; 1 is the ILQ (the listen and pre-offload entries of cm.c). */
    public int qhashQpNumber() {
        return Bits.getInt(qword(8), QHASH_QPN);
    }

    public int qhashDestPort() {
        return Bits.getInt(qword(8), QHASH_DEST_PORT);
    }

    /** Only in TCP_ESTABLISHED entries. */
    public int qhashSrcPort() {
        return Bits.getInt(qword(8), QHASH_SRC_PORT);
    }

    public int qhashQsHandle() {
        return Bits.getInt(qword(16), QHASH_QS_HANDLE);
    }

    public int qhashVlanId() {
        return Bits.getInt(qword(16), QHASH_VLANID);
    }

    /**
     * Word {@code i} (0..3, host order, as the u32 dest_ip[] of struct irdma_qhash_table_info) of the local
     * address; an IPv4 address is word 0 (quadword 6, low half).
     */
    public int qhashDestIp(int i) {
        return ipWord(qhashIpv4(), 48, i);
    }

    /** Word {@code i} of the remote address (quadwords 4 and 5); only in TCP_ESTABLISHED entries. */
    public int qhashSrcIp(int i) {
        return ipWord(qhashIpv4(), 32, i);
    }

    /**
     * Word {@code i} of an address laid out as the qhash and AH WQEs lay it out: IPv4 in the low half of quadword
     * {@code lowQword}; IPv6 words 0/1 in the quadword after it, 2/3 in it.
     */
    private int ipWord(boolean ipv4, int lowQword, int i) {
        if (ipv4) {
            return i == 0 ? (int) qword(lowQword) : 0;
        }
        return switch (i) {
            case 0 -> (int) (qword(lowQword + 8) >>> 32);
            case 1 -> (int) qword(lowQword + 8);
            case 2 -> (int) (qword(lowQword) >>> 32);
            case 3 -> (int) qword(lowQword);
            default -> 0;
        };
    }

    /** enum irdma_quad_hash_manage_type: 0 delete, 1 add, 2 modify. */
    public int qhashManage() {
        return Bits.getInt(header(), QHASH_MANAGE);
    }

    public boolean qhashIpv4() {
        return Bits.flag(header(), QHASH_IPV4VALID);
    }

    public boolean qhashVlanValid() {
        return Bits.flag(header(), QHASH_VLANVALID);
    }

    /** enum irdma_quad_entry_type: 1 TCP established (4-tuple), 2 TCP SYN (listen: local address and port). */
    public int qhashEntryType() {
        return Bits.getInt(header(), QHASH_ENTRYTYPE);
    }

    // --- Manage APBVT

    public int apbvtPort() {
        return Bits.getInt(qword(16), MAPT_PORT);
    }

    public boolean apbvtAdd() {
        return Bits.flag(header(), MAPT_ADDPORT);
    }

    // --- Manage ARP

    public long arpReachMax() {
        return Bits.get(qword(8), MAT_REACHMAX);
    }

    public long arpMac() {
        return Bits.get(qword(16), MAC48);
    }

    public int arpIndex() {
        return Bits.getInt(header(), MAT_ARPENTRYIDX);
    }

    public boolean arpPermanent() {
        return Bits.flag(header(), MAT_PERMANENT);
    }

    /** Set by an add (irdma_sc_add_arp_cache_entry), clear for a delete. */
    public boolean arpEntryValid() {
        return Bits.flag(header(), MAT_ENTRYVALID);
    }

    // --- STag ops

    /** The PD id: its low 18 bits in quadword 1 (gen2 STAG_PDID), the rest in PDID_HI of quadword 2. */
    public int stagPdId() {
        return (int) Bits.get(qword(8), STAG_PDID) | (int) Bits.get(qword(16), STAG_PDID_HI) << STAG_PDID_LOW_BITS;
    }

    public long stagLength() {
        return Bits.get(qword(8), STAG_STAGLEN);
    }

    public int stagIndex() {
        return Bits.getInt(qword(16), STAG_IDX);
    }

    public int stagKey() {
        return Bits.getInt(qword(16), STAG_KEY);
    }

    /** Register MR quadword 0: the VA when VA-based, else the first-byte offset in the first page. */
    public long stagVaOrFbo() {
        return qword(0);
    }

    /** Register MR quadword 4: the physical address of the (single-page) buffer or PBL when no PBL chunks. */
    public long stagRegAddress() {
        return qword(32);
    }

    public int stagHmcFcnIndex() {
        return Bits.getInt(qword(40), STAG_HMCFNIDX);
    }

    public int stagFirstPmPblIndex() {
        return Bits.getInt(qword(48), STAG_FIRSTPMPBLIDX);
    }

    public boolean stagMr() {
        return Bits.flag(header(), STAG_MR);
    }

    /** IRDMA_ACCESS_FLAGS_* bits (user.h), 5 bits. */
    public int stagAccessRights() {
        return Bits.getInt(header(), STAG_ARIGHTS);
    }

    /** enum irdma_page_size: 0 4 KiB, 1 2 MiB, 2 1 GiB. */
    public int stagPageSize() {
        return Bits.getInt(header(), STAG_HPAGESIZE);
    }

    public boolean stagRemoteAccess() {
        return Bits.flag(header(), STAG_REMACCENABLED);
    }

    public boolean stagVaBased() {
        return Bits.flag(header(), STAG_VABASEDTO);
    }

    public boolean stagUseHmcFcnIndex() {
        return Bits.flag(header(), STAG_USEHMCFNIDX);
    }

    /** Alloc STag with MR clear: a type 2 (wide) memory window. */
    public boolean stagMwWide() {
        return Bits.flag(header(), STAG_MWTYPE);
    }

    public boolean stagMw1BindDontValidateKey() {
        return Bits.flag(header(), STAG_MW1_BIND_DONT_VLDT_KEY);
    }

    /** Bit 61: use_pf_rid or remote_atomics_en (the same bit in defs.h). */
    public boolean stagUsePfRid() {
        return Bits.flag(header(), STAG_USEPFRID);
    }

    // --- Query / Commit FPM

    public int fpmHmcFnId() {
        return Bits.getInt(qword(16), CFPM_HMCFNID);
    }

    /** Quadword 4: the FPM buffer the device writes (query) or reads and writes back (commit). */
    public long fpmBufferAddress() {
        return qword(32);
    }

    /** Commit only: IRDMA_CQPSQ_BUFSIZE (IRDMA_COMMIT_FPM_BUF_SIZE). */
    public int fpmBufferSize() {
        return Bits.getInt(header(), BUFSIZE);
    }

    public boolean fpmScratchBufferPresent() {
        return Bits.flag(header(), CFPM_FW_SCRATCH_BUF_PRESENT);
    }

    // --- Update PE SDs

    public int sdHmcFnId() {
        return Bits.getInt(qword(16), UPESD_HMCFNID);
    }

    /** The host buffer of entries 4.. (16 bytes each; 0 when none). */
    public long sdBufferAddress() {
        return qword(16) & UPESD_BUFFER;
    }

    /** IRDMA_CQPSQ_UPESD_ENTRY_COUNT: entries in the buffer (not in the WQE). */
    public int sdBufferEntryCount() {
        return Bits.getInt(header(), UPESD_ENTRY_COUNT);
    }

    /** Entries in the WQE: entry 0 always (it has no valid bit), 1 and 2 when their ENTRY_VALID is set. */
    public int sdInlineCount() {
        return 1 + (sdEntryValid(1) ? 1 : 0) + (sdEntryValid(2) ? 1 : 0);
    }

    public int sdTotalCount() {
        return sdInlineCount() + sdBufferEntryCount();
    }

    /** Inline entry {@code i} (0..2) is present. */
    public boolean sdEntryValid(int i) {
        return switch (i) {
            case 0 -> true;
            case 1 -> Bits.flag(qword(32), UPESD_ENTRY_VALID);
            case 2 -> Bits.flag(qword(48), UPESD_ENTRY_VALID);
            default -> false;
        };
    }

    /** Byte offset in the WQE of inline entry {@code i}'s command quadword (0, 32, 48); its data follows. */
    public static int sdCommandOffset(int i) {
        return switch (i) {
            case 0 -> 0;
            case 1 -> 32;
            case 2 -> 48;
            default -> -1;
        };
    }

    public long sdEntryCommand(int i) {
        int off = sdCommandOffset(i);
        return off < 0 ? 0L : Bits.get(qword(off), UPESD_SDCMD);
    }

    public long sdEntryData(int i) {
        int off = sdCommandOffset(i);
        return off < 0 ? 0L : qword(off + 8L);
    }

    // --- Query RDMA features / Static HMC pages allocated

    /** Quadword 4: the feature buffer the device fills ({@link RdmaFeatureBuffer}). */
    public long featuresBufferAddress() {
        return qword(32);
    }

    public int featuresBufferLength() {
        return Bits.getInt(header(), FEATURES_BUF_LEN);
    }

    public int shmcHmcFnId() {
        return Bits.getInt(qword(16), SHMC_HMC_FN_ID);
    }

    // --- Work scheduler node

    /** IRDMA_CQPSQ_WS_NODEOP (0 add, 1 modify, 2 delete; 3..15 name no op). */
    public int wsNodeOp() {
        return Bits.getInt(header(), WS_NODEOP);
    }

    public boolean wsEnable() {
        return Bits.flag(header(), WS_ENABLENODE);
    }

    public boolean wsLeaf() {
        return Bits.flag(header(), WS_NODETYPE);
    }

    public int wsPrioType() {
        return Bits.getInt(header(), WS_PRIOTYPE);
    }

    public int wsTrafficClass() {
        return Bits.getInt(header(), WS_TC);
    }

    public int wsParentId() {
        return Bits.getInt(header(), WS_PARENTID);
    }

    public int wsNodeId() {
        return Bits.getInt(header(), WS_NODEID);
    }

    public int wsVsi() {
        return Bits.getInt(qword(32), WS_VSI);
    }

    public int wsWeight() {
        return Bits.getInt(qword(32), WS_WEIGHT);
    }

    // --- Address handle (CREATE / MODIFY / DESTROY_ADDR_HANDLE)

    /** IRDMA_UDA_CQPSQ_MAV_AVIDX: the AH index. */
    public int ahIndex() {
        return Bits.getInt(header(), AH_AVIDX);
    }

    public boolean ahIpv4() {
        return Bits.flag(header(), AH_IPV4VALID);
    }

    public boolean ahInsertVlanTag() {
        return Bits.flag(header(), AH_INSERTVLANTAG);
    }

    public boolean ahLoopback() {
        return Bits.flag(header(), AH_DOLOOPBACK);
    }

    /** The next-hop MAC (irdma_ah_info.mac_addr as ether_addr_to_u64: first octet most significant). */
    public long ahMac() {
        return Bits.get(qword(0), AH_MAC);
    }

    /** The PD index: PDINDEXHI (quadword 2) above PDINDEXLO (quadword 1), 24 bits. */
    public int ahPdIndex() {
        return Bits.getInt(qword(16), AH_PDINDEXHI) << 16 | Bits.getInt(qword(8), AH_PDINDEXLO);
    }

    public int ahTcTos() {
        return Bits.getInt(qword(8), AH_TC);
    }

    public int ahVlanTag() {
        return Bits.getInt(qword(8), AH_VLANTAG);
    }

    public int ahArpIndex() {
        return Bits.getInt(qword(16), AH_ARPINDEX);
    }

    public int ahHopLimit() {
        return Bits.getInt(qword(16), AH_HOPLIMIT);
    }

    public int ahFlowLabel() {
        return Bits.getInt(qword(16), AH_FLOWLABEL);
    }

    /**
     * Word {@code i} (0..3, irdma_ah_info.dest_ip_addr[i]) of the destination address: IPv6 words 0/1 in quadword
     * 5 (ADDR0 / ADDR1), 2/3 in quadword 4 (ADDR2 / ADDR3); an IPv4 address is word 0, in quadword 4's ADDR3.
     */
    public int ahDestIp(int i) {
        return ipWord(ahIpv4(), 32, i);
    }

    /** As {@link #ahDestIp} for the source address (quadwords 6 and 7). */
    public int ahSrcIp(int i) {
        return ipWord(ahIpv4(), 48, i);
    }

    // --- Gather stats

    /** Quadword 4: the buffer the counters go to (irdma_stats_gather_info.stats_buff_mem.pa). */
    public long statsBufferAddress() {
        return qword(32);
    }

    public int statsHmcFnIndex() {
        return Bits.getInt(qword(40), STATS_HMC_FCN_INDEX);
    }

    public boolean statsUseHmcFnIndex() {
        return Bits.flag(header(), STATS_USE_HMC_FCN_INDEX);
    }

    public boolean statsUseInstance() {
        return Bits.flag(header(), STATS_USE_INST);
    }

    public int statsInstanceIndex() {
        return Bits.getInt(header(), STATS_INST_INDEX);
    }

    // --- Flush WQEs / Generate AE (opcode 0x22)

    /** IRDMA_CQPSQ_FWQE_QPID: the QP whose queues are flushed (or the AE is raised for). */
    public int fwqeQpId() {
        return Bits.getInt(header(), FWQE_QPID);
    }

    public boolean fwqeFlushSq() {
        return Bits.flag(header(), FWQE_FLUSHSQ);
    }

    public boolean fwqeFlushRq() {
        return Bits.flag(header(), FWQE_FLUSHRQ);
    }

    /** IRDMA_CQPSQ_FWQE_USERFLCODE: the completions carry the codes of quadword 2. */
    public boolean fwqeUserFlushCode() {
        return Bits.flag(header(), FWQE_USERFLCODE);
    }

    /** IRDMA_CQPSQ_FWQE_GENERATE_AE: raise the AE of quadword 1 (irdma_sc_gen_ae sets only this flag). */
    public boolean fwqeGenerateAe() {
        return Bits.flag(header(), FWQE_GENERATE_AE);
    }

    public int fwqeAeCode() {
        return Bits.getInt(qword(8), FWQE_AECODE);
    }

    public int fwqeAeSource() {
        return Bits.getInt(qword(8), FWQE_AESOURCE);
    }

    public int fwqeRqMinor() {
        return Bits.getInt(qword(16), FWQE_RQMNERR);
    }

    public int fwqeRqMajor() {
        return Bits.getInt(qword(16), FWQE_RQMJERR);
    }

    public int fwqeSqMinor() {
        return Bits.getInt(qword(16), FWQE_SQMNERR);
    }

    public int fwqeSqMajor() {
        return Bits.getInt(qword(16), FWQE_SQMJERR);
    }
}
