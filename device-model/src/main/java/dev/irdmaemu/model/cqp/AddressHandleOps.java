package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.ah.AddressHandleTable;
import dev.irdmaemu.model.hmc.HmcFunction;

/**
 * The address-handle CQP ops (uda.c irdma_sc_access_ah: Create, Modify and Destroy Address Handle): the
 * {@link AddressHandleTable} bounded by the committed FSIAV count, each table result answered with its CQP error
 * code.
 */
final class AddressHandleOps {
    private final HmcFunction hmc;
    private final AddressHandleTable ahs;

    AddressHandleOps(HmcFunction hmc, AddressHandleTable ahs) {
        this.hmc = hmc;
        this.ahs = ahs;
    }

    /**
     * Create / Modify / Destroy Address Handle (uda.c irdma_sc_access_ah): the AH index must lie below the
     * committed FSIAV count (the driver's rf->max_ah, hw.c irdma_initialize_hw_rsrc); create needs a free index,
     * modify and destroy an existing AH. Success completes with op_ret_val 0, which utils.c irdma_ilq_ah_cb /
     * irdma_ieq_ah_cb read as "AH valid".
     */
    void access(CqpOpcode op, CqpWqe w, CqpResult r) {
        long committed = hmc.count(HmcObjectType.FSIAV);
        AddressHandleTable.Result res = switch (op) {
            case CREATE_ADDR_HANDLE -> ahs.create(w, committed);
            case MODIFY_ADDR_HANDLE -> ahs.modify(w, committed);
            default -> ahs.destroy(w.ahIndex(), committed);
        };
        switch (res) {
            case OK -> r.returnValue(0);
            case OUT_OF_RANGE -> r.fail(CqpFault.INDEX_OUT_OF_RANGE, res.describe());
            case EXISTS -> r.fail(CqpFault.OBJECT_IN_USE, res.describe());
            case NO_SUCH_AH -> r.fail(CqpFault.NO_SUCH_OBJECT, res.describe());
        }
    }

}
