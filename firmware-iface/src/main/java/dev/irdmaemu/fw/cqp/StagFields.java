package dev.irdmaemu.fw.cqp;

/**
 * The fields of an Alloc STag, Register MR (non-shared) or Dealloc STag WQE (ctrl.c irdma_sc_alloc_stag,
 * irdma_sc_mr_reg_non_shared, irdma_sc_dealloc_stag, irdma_sc_mw_alloc, from struct irdma_allocate_stag_info /
 * irdma_reg_ns_stag_info / irdma_dealloc_stag_info). {@link #pageSize} is the encoded enum irdma_page_size the
 * driver derives from info->page_size; {@link #vaOrFbo} is what Register MR puts in quadword 0 (the VA when
 * VA-based, else va &amp; (page_size - 1)).
 */
public final class StagFields {
    /**
     * verbs.c irdma_create_stag: a STag is the index shifted by IRDMA_CQPSQ_STAG_IDX_S (8) with the key in the low
     * byte, the same split as the WQE's IRDMA_CQPSQ_STAG_IDX / IRDMA_CQPSQ_STAG_KEY fields ({@link CqpWqe#STAG_IDX},
     * {@link CqpWqe#STAG_KEY}).
     */
    public static final int STAG_IDX_SHIFT = 8;

    /** The STag of index {@code index} and key {@code key} (irdma_create_stag). */
    public static int stag(int index, int key) {
        return index << STAG_IDX_SHIFT | key & (int) CqpWqe.STAG_KEY;
    }

    /** The index part of {@code stag}. */
    public static int stagIndexOf(int stag) {
        return stag >>> STAG_IDX_SHIFT;
    }

    /** The key part (low byte) of {@code stag}. */
    public static int stagKeyOf(int stag) {
        return stag & (int) CqpWqe.STAG_KEY;
    }

    public int stagIndex;
    public int stagKey;
    public int pdId;
    public long length;
    public int hmcFcnIndex;
    public int firstPmPblIndex;
    public int pblChunkSize;
    public int pageSize;
    public int accessRights;
    public boolean remoteAccess;
    public boolean vaBased;
    public boolean useHmcFcnIndex;
    /** use_pf_rid | remote_atomics_en: the same bit. */
    public boolean usePfRid;
    /** Dealloc STag: info->mr; Alloc / Register always write 1. */
    public boolean mr;
    public long vaOrFbo;
    /** Memory-window Alloc STag (irdma_sc_mw_alloc): info->mw_wide and info->mw1_bind_dont_vldt_key. */
    public boolean mwWide;
    public boolean mw1BindDontValidateKey;
    /** Register MR without PBL chunks: the buffer's physical address (reg_addr_pa). */
    public long regAddress;

    public StagFields clear() {
        stagIndex = stagKey = pdId = hmcFcnIndex = firstPmPblIndex = pblChunkSize = pageSize = accessRights = 0;
        length = vaOrFbo = regAddress = 0;
        remoteAccess = vaBased = useHmcFcnIndex = usePfRid = mr = mwWide = mw1BindDontValidateKey = false;
        return this;
    }

    public StagFields readFrom(CqpWqe w) {
        stagIndex = w.stagIndex();
        stagKey = w.stagKey();
        pdId = w.stagPdId();
        length = w.stagLength();
        hmcFcnIndex = w.stagHmcFcnIndex();
        firstPmPblIndex = w.stagFirstPmPblIndex();
        pblChunkSize = w.pblChunkSize();
        pageSize = w.stagPageSize();
        accessRights = w.stagAccessRights();
        remoteAccess = w.stagRemoteAccess();
        vaBased = w.stagVaBased();
        useHmcFcnIndex = w.stagUseHmcFcnIndex();
        usePfRid = w.stagUsePfRid();
        mr = w.stagMr();
        vaOrFbo = w.stagVaOrFbo();
        regAddress = w.stagRegAddress();
        mwWide = w.stagMwWide();
        mw1BindDontValidateKey = w.stagMw1BindDontValidateKey();
        return this;
    }
}
