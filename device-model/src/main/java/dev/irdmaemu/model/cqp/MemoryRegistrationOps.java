package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.mr.MemoryRegionTable;
import dev.irdmaemu.model.mr.RegistrationFault;

/**
 * The memory-registration family of CQP ops (ctrl.c irdma_sc_alloc_stag / irdma_sc_mw_alloc,
 * irdma_sc_mr_reg_non_shared, irdma_sc_dealloc_stag): the checks and the STag table are model.mr's
 * ({@link MemoryRegionTable}); here the HMC MR object the index must resolve to and the CQP error code of each
 * {@link RegistrationFault}.
 */
final class MemoryRegistrationOps {
    private final MemoryRegionTable stags;
    private final HmcOps hmcOps;

    MemoryRegistrationOps(MemoryRegionTable stags, HmcOps hmcOps) {
        this.stags = stags;
        this.hmcOps = hmcOps;
    }

    void allocateOrRegister(CqpWqe w, CqpResult r, boolean register) {
        // verbs.c irdma_create_stag: the index field carries the driver key above the MR index
        int idx = stags.indexOf(w.stagIndex());
        if (!hmcOps.objectResolves(HmcObjectType.MR, idx, r)) {
            return;
        }
        stagResult(register ? stags.register(w) : stags.allocate(w), r);
    }

    void deallocate(CqpWqe w, CqpResult r) {
        stagResult(stags.deallocate(w), r);
    }

    private static void stagResult(RegistrationFault f, CqpResult r) {
        CqpFault c = switch (f) {
            case NONE -> CqpFault.NONE;
            case INDEX_OUT_OF_RANGE, PBL_INDEX_OUT_OF_RANGE -> CqpFault.INDEX_OUT_OF_RANGE;
            case IN_USE -> CqpFault.OBJECT_IN_USE;
            case NO_SUCH_STAG -> CqpFault.NO_SUCH_OBJECT;
            case PBLE_NOT_RESOLVED -> CqpFault.HMC_NOT_READY;
            case BUFFER_NOT_MAPPED -> CqpFault.DMA_FAULT;
            default -> CqpFault.INVALID_FIELD;
        };
        if (c.isError()) {
            r.fail(c, f.describe());
        }
    }

}
