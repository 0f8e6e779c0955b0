package dev.irdmaemu.model;

import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.cqp.CqpEngine;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.eq.InterruptController;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.reg.RegisterFile;

/**
 * The RDMA block's BAR0 register table (icrdma_hw.h, offsets from {@link Gen2Register}): which registers exist and
 * which engine each read and write goes to (the CQP, the interrupt controller, the HMC, the AEQ, the
 * {@link Doorbells}), defined into the function's {@link RegisterFile} once per build of its state.
 */
final class RdmaRegisterTable {
    private final RegisterFile regs;
    private final CqpEngine cqp;
    private final InterruptController irq;
    private final HmcFunction hmc;
    private final AsyncEventQueue aeq;
    private final Doorbells doorbells;

    RdmaRegisterTable(RegisterFile regs, CqpEngine cqp, InterruptController irq, HmcFunction hmc,
                      AsyncEventQueue aeq, Doorbells doorbells) {
        this.regs = regs;
        this.cqp = cqp;
        this.irq = irq;
        this.hmc = hmc;
        this.aeq = aeq;
        this.doorbells = doorbells;
    }

    void define() {
        reg(Gen2Register.CQPTAIL, "cqp_tail", (e, s) -> cqp.readTail(), "cqp_set_tail", (e, v) -> cqp.writeTail(v));
        reg(Gen2Register.CQPDB, "cqp_db_read", (e, s) -> cqp.readDoorbell(), "cqp_doorbell",
                (e, v) -> cqp.doorbell(v));
        reg(Gen2Register.CCQPSTATUS, "cqp_status", (e, s) -> cqp.readStatus(), "cqp_clear_status",
                (e, v) -> cqp.writeStatus(v));
        reg(Gen2Register.CCQPHIGH, "cqp_ctx_high", (e, s) -> cqp.readContextHigh(), "cqp_set_ctx_high",
                (e, v) -> cqp.writeContextHigh(v));
        reg(Gen2Register.CCQPLOW, "cqp_ctx_low", (e, s) -> cqp.readContextLow(), "cqp_set_ctx_low",
                (e, v) -> cqp.writeContextLow(v));
        reg(Gen2Register.CQARM, null, null, "cq_arm", (e, v) -> doorbells.cqArm(v));
        reg(Gen2Register.CQACK, null, null, "cq_ack", (e, v) -> doorbells.cqAck(v));
        reg(Gen2Register.AEQALLOC, null, null, "aeq_alloc", (e, v) -> aeq.allocate(v));
        readOnly(Gen2Register.CQPERRCODES, "cqp_err_codes", (e, s) -> cqp.readErrCodes());
        reg(Gen2Register.WQEALLOC, null, null, "wqe_alloc", (e, v) -> doorbells.wqeAlloc(v));
        // The user doorbell page (verbs.c irdma_alloc_ucontext / irdma_mmap): libirdma rings the same doorbells
        // there as the kernel does through PFPE_WQEALLOC and PFPE_CQARM, with the same values. The rest of the
        // page is not backed (reads 0, writes dropped, each offset traced once as reg_unknown).
        long db = Gen2Register.DB_ADDR_OFFSET.offset();
        regs.define("DB_PAGE_WQEALLOC", db + Gen2Registers.DB_PAGE_WQE_ALLOC, 1, 0, "db_page_read",
                (e, s) -> doorbells.pageRead(), "wqe_alloc", (e, v) -> doorbells.wqeAlloc(v));
        regs.define("DB_PAGE_CQARM", db + Gen2Registers.DB_PAGE_CQ_ARM, 1, 0, "db_page_read",
                (e, s) -> doorbells.pageRead(), "cq_arm", (e, v) -> doorbells.cqArm(v));
        reg(Gen2Register.GLINT_DYN_CTL, "dyn_ctl", (e, s) -> irq.readDynCtl(e), "dyn_ctl_arm",
                (e, v) -> irq.writeDynCtl(e, v));
        int lbar = readOnly(Gen2Register.GLPCI_LBARCTRL, null, null);
        regs.store(lbar, 0, Gen2Registers.lbarCtrl(Gen2Registers.PE_DB_SIZE_8M));
        for (Gen2Register r : new Gen2Register[] {Gen2Register.GLPE_CPUSTATUS0, Gen2Register.GLPE_CPUSTATUS1,
                Gen2Register.GLPE_CPUSTATUS2}) {
            // ctrl.c irdma_wait_pe_ready: the PE firmware is up once all three read 0x80.
            int b = readOnly(r, null, null);
            regs.store(b, 0, Gen2Registers.CPUSTATUS_READY);
        }
        reg(Gen2Register.PFINT_AEQCTL, "aeq_ctl", (e, s) -> irq.readAeqCtl(), "aeq_route",
                (e, v) -> irq.writeAeqCtl(v));
        reg(Gen2Register.GLINT_CEQCTL, "ceq_ctl", (e, s) -> irq.readCeqCtl(e), "ceq_route",
                (e, v) -> irq.writeCeqCtl(e, v));
        reg(Gen2Register.VSIQF_PE_CTL1, null, null, null, null);
        reg(Gen2Register.PFHMC_PDINV, null, null, "pd_invalidate",
                (e, v) -> hmc.invalidatePd(Gen2Registers.pdInvalidateSdIndex(v), Gen2Registers.pdInvalidatePdIndex(v)));
        reg(Gen2Register.GLHMC_VFPDINV, null, null, null, null);
        reg(Gen2Register.GLPE_CRITERR, null, null, null, null);
        reg(Gen2Register.GLINT_RATE, "intrl", (e, s) -> irq.readRate(e), "intrl_set", (e, v) -> irq.writeRate(e, v));
        // GLINT_ITR(i, vector): ice's three throttling intervals per vector (ice_lib.c __ice_write_itr); one array for
        // every vector of the PF, like GLINT_DYN_CTL, so they live with it here.
        for (int i = 0; i < Gen2Registers.GLINT_ITR_INDEXES; i++) {
            int index = i;
            regs.define("GLINT_ITR" + i, Gen2Registers.GLINT_ITR + (long) i * Gen2Registers.GLINT_ITR_INDEX_STRIDE,
                    InterruptController.VECTORS, 4, "itr", (e, s) -> irq.readItr(index, e), "itr_set",
                    (e, v) -> irq.writeItr(index, e, v));
        }
        reg(Gen2Register.PFHMC_ERRORINFO, "hmc_error_info", (e, s) -> hmc.errorInfo(), "hmc_error_clear",
                (e, v) -> hmc.clearError());
        readOnly(Gen2Register.PFHMC_ERRORDATA, "hmc_error_data", (e, s) -> hmc.errorData());
    }

    private int readOnly(Gen2Register r, String readName, RegisterFile.OnRead read) {
        return regs.defineReadOnly(r.name(), r.offset(), r.count(), r.stride(), readName, read);
    }

    private void reg(Gen2Register r, String readName, RegisterFile.OnRead read, String writeName,
                     RegisterFile.OnWrite write) {
        regs.define(r.name(), r.offset(), r.count(), r.stride(), readName, read, writeName, write);
    }
}
