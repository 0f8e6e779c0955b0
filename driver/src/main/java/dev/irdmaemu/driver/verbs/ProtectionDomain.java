package dev.irdmaemu.driver.verbs;

/**
 * A protection domain (verbs.c irdma_alloc_pd): an id from irdma's allocated_pds bitmap, where ids 0, 1 and 2 are
 * reserved at probe (hw.c irdma_initialize_hw_rsrc). QPs and memory regions of one PD may be used together; the
 * device checks it on every tagged access (the QP context's IRDMAQPC_PDIDX against the STag's PD).
 */
public final class ProtectionDomain {
    private final IrdmaVerbs verbs;
    private final int id;
    boolean deallocated;

    ProtectionDomain(IrdmaVerbs verbs, int id) {
        this.verbs = verbs;
        this.id = id;
    }

    public int id() {
        return id;
    }

    public IrdmaVerbs verbs() {
        return verbs;
    }

    public boolean isDeallocated() {
        return deallocated;
    }

    @Override
    public String toString() {
        return "PD " + id;
    }
}
