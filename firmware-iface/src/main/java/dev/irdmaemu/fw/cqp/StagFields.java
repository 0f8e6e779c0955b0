package dev.irdmaemu.fw.cqp;

/**
 * The fields of an Alloc STag, Register MR (non-shared) or Dealloc STag WQE (ctrl.c irdma_sc_alloc_stag,
 * irdma_sc_mr_reg_non_shared, irdma_sc_dealloc_stag, irdma_sc_mw_alloc, from struct irdma_allocate_stag_info /
 * irdma_reg_ns_stag_info / irdma_dealloc_stag_info). {@link #pageSize} is the encoded enum irdma_page_size the
 * driver derives from info->page_size; {@link #vaOrFbo} is what Register MR puts in quadword 0 (the VA when
 * VA-based, else va &amp; (page_size - 1)).
 */
public final class StagFields {
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
