package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.hmc.SdCheck;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.model.hmc.HmcFault;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.port.ArpTable;

/**
 * The HMC family of CQP ops (ctrl.c irdma_sc_query_fpm_val, irdma_sc_commit_fpm_val, irdma_sc_static_hmc_pages_allocated;
 * hmc.c / ctrl.c irdma_update_pe_sds with its inline and buffered SD entries): the function's object layout and the
 * segment descriptors that back it, in {@link HmcFunction}. The ARP cache lives in HMC memory (IRDMA_HMC_IW_ARP),
 * so a new layout, or the last SD cleared, empties it. Also the check the other families make that an object index
 * resolves in the HMC, answered with the CQP error code.
 */
final class HmcOps {
    private final HostMemory memory;
    private final HmcFunction hmc;
    private final ArpTable arp;
    private final int hmcFunctionId;
    private final long[] word = new long[2];

    HmcOps(HostMemory memory, HmcFunction hmc, ArpTable arp, int hmcFunctionId) {
        this.memory = memory;
        this.hmc = hmc;
        this.arp = arp;
        this.hmcFunctionId = hmcFunctionId;
    }

    boolean ownFunction(int fnId, CqpResult r) {
        if (fnId != hmcFunctionId) {
            r.fail(CqpFault.INVALID_FIELD, "HMC function id is not this PF's");
            return false;
        }
        return true;
    }

    void queryFpm(CqpWqe w, CqpResult r) {
        if (!ownFunction(w.fpmHmcFnId(), r)) {
            return;
        }
        if (!hmc.writeQueryBuffer(w.fpmBufferAddress())) {
            r.fail(CqpFault.DMA_FAULT, "query buffer outside mapped memory");
        }
    }

    void commitFpm(CqpWqe w, CqpResult r) {
        if (!ownFunction(w.fpmHmcFnId(), r)) {
            return;
        }
        switch (hmc.commit(w.fpmBufferAddress())) {
            case OK -> {
                // the ARP cache is an HMC object (IRDMA_HMC_IW_ARP): a new layout starts it empty
                arp.clearAll();
                arp.setLimit(hmc.count(HmcObjectType.ARP));
            }
            case DMA_FAULT -> r.fail(CqpFault.DMA_FAULT, "commit buffer outside mapped memory");
            case COUNT_ABOVE_MAX -> r.fail(CqpFault.INDEX_OUT_OF_RANGE, "a count above the queried maximum");
            case TOO_MANY_SDS -> r.fail(CqpFault.INDEX_OUT_OF_RANGE, "objects need more SDs than max_pe_sds");
        }
    }

    /**
     * Static HMC pages allocated (ctrl.c irdma_sc_static_hmc_pages_allocated, the end of hw.c irdma_create_hmc_objs):
     * the model backs nothing statically, so the op only acknowledges; the function id must be this PF's.
     */
    void staticHmcPagesAllocated(CqpWqe w, CqpResult r) {
        ownFunction(w.shmcHmcFnId(), r);
    }

    void updateSds(CqpWqe w, CqpResult r) {
        if (!ownFunction(w.sdHmcFnId(), r)) {
            return;
        }
        int inline = w.sdInlineCount();
        for (int i = 0; i < inline; i++) {
            if (!programSd(w.sdEntryCommand(i), w.sdEntryData(i), r)) {
                return;
            }
        }
        int buffered = w.sdBufferEntryCount();
        long buf = w.sdBufferAddress();
        for (int i = 0; i < buffered; i++) {
            long at = buf + (long) i * SegmentDescriptor.ENTRY_SIZE;
            if (!memory.readLong(at, word, 0) || !memory.readLong(at + 8, word, 1)) {
                r.fail(CqpFault.DMA_FAULT, "SD buffer outside mapped memory");
                return;
            }
            if (!programSd(word[0], word[1], r)) {
                return;
            }
        }
        if (hmc.validSds() == 0) {
            // irdma's teardown cleared the last SD (hmc.c irdma_del_hmc_objects): the HMC memory the ARP cache
            // lived in is gone, and with it the entries irdma never deletes one by one (its own addresses')
            arp.clearAll();
        }
    }

    private boolean programSd(long command, long data, CqpResult r) {
        SdCheck c = hmc.programSd(command, data);
        if (c == null) {
            r.fail(CqpFault.INDEX_OUT_OF_RANGE, "SD index beyond max_pe_sds");
            return false;
        }
        if (!c.accepted()) {
            r.fail(CqpFault.INVALID_FIELD, c.describe());
            return false;
        }
        return true;
    }

    /**
     * Whether object {@code index} of type {@code t} resolves in the HMC ({@link HmcFunction#locate}; its address is
     * then {@link HmcFunction#located()}); if not the op fails: an index beyond the committed count is out of range,
     * anything else (FPM not committed, SD or PD not valid, backing outside host memory) is HMC_NOT_READY.
     */
    boolean objectResolves(HmcObjectType t, long index, CqpResult r) {
        HmcFault f = hmc.locate(t, index);
        if (f == HmcFault.NONE) {
            return true;
        }
        r.fail(f == HmcFault.INDEX_OUT_OF_RANGE ? CqpFault.INDEX_OUT_OF_RANGE : CqpFault.HMC_NOT_READY,
                f.describe());
        return false;
    }
}
