package dev.irdmaemu.driver;

import static dev.irdmaemu.driver.IrdmaDriver.CCQ_ID;
import static dev.irdmaemu.driver.IrdmaDriver.CEQ0_VECTOR;
import static dev.irdmaemu.driver.IrdmaDriver.IEQ_QP;
import static dev.irdmaemu.driver.IrdmaDriver.ILQ_QP;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.EqOpFields;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;

/**
 * CEQ 0 as hw.c keeps it: set up with its vector routed and enabled (irdma_setup_ceq_0, icrdma_cfg_ceq,
 * irdma_ena_intr, irdma_create_ceq: Create CEQ), drained CEQE by CEQE (irdma_process_ceq), destroyed at remove
 * (irdma_del_ceq_0 -> irdma_destroy_ceq). Each CEQE is acknowledged (PFPE_CQACK, the CQ's id) and handed to its CQ's
 * handler alone: the CCQ's (irdma_cqp_ce_handler), a PUDA CQ's (irdma_puda_ce_handler), or the consumer's
 * (irdma_iwarp_ce_handler).
 */
final class Ceq {
    /** user.h IRDMA_MAX_CEQ_ENTRIES: the CEQ never exceeds it. */
    static final int MAX_CEQ_ENTRIES = 262143;

    private final IrdmaHw hw;
    private final CqpChannel cqp;
    private final CqpRequests requests;
    private final PudaQueues puda;
    private final EqOpFields eqf = new EqOpFields();
    private final Ceqe ceqe = new Ceqe();
    private IrdmaDriver.DeviceEvents events;
    private long ring;
    private int entries;
    private int head;
    private boolean polarity = true;
    private boolean live;
    /** The committed CQ count: CEQEs naming a CQ at or beyond it are skipped. */
    private long cqCount;

    Ceq(IrdmaHw hw, CqpChannel cqp, CqpRequests requests, PudaQueues puda) {
        this.hw = hw;
        this.cqp = cqp;
        this.requests = requests;
        this.puda = puda;
    }

    void events(IrdmaDriver.DeviceEvents e) {
        this.events = e;
    }

    boolean live() {
        return live;
    }

    /** hw.c irdma_setup_ceq_0 / icrdma_cfg_ceq (route to the vector) / irdma_ena_intr, then Create CEQ. */
    void setup(long committedCqs) {
        cqCount = committedCqs;
        hw.write(Gen2Register.GLINT_CEQCTL, 0, Gen2Registers.ceqCtl(true, CEQ0_VECTOR));
        hw.write(Gen2Register.GLINT_DYN_CTL, CEQ0_VECTOR, Gen2Registers.dynCtlEnable(0));
        // hw.c irdma_create_ceq: one entry per committed CQ, at most the hardware's maximum
        entries = (int) Math.min(committedCqs, MAX_CEQ_ENTRIES);
        ring = hw.allocate((long) entries * Ceqe.SIZE);
        eqf.clear();
        eqf.ceqId = 0;
        eqf.elementCount = entries;
        eqf.address = ring;
        cqp.op("CREATE_CEQ", (o, v) -> CqpWqeWriter.createCeq(hw.store, o, eqf, v));
        live = true;
    }

    /**
     * hw.c irdma_del_ceq_0 (vectors not shared: only the IRQ is freed, GLINT_CEQCTL is left) -> irdma_destroy_ceq:
     * without a reset, ctrl.c irdma_sc_ceq_destroy posted and irdma_sc_cceq_destroy_done polling the CCQ for it.
     */
    void destroy(boolean reset) {
        live = false;
        if (!reset) {
            eqf.clear();
            eqf.ceqId = 0;
            eqf.elementCount = entries;
            cqp.teardownOp("DESTROY_CEQ", (o, v) -> CqpWqeWriter.destroyCeq(hw.store, o, eqf, v));
        }
        entries = 0;
    }

    /**
     * hw.c irdma_process_ceq: each CEQE to its CQ's handler, acknowledged first with PFPE_CQACK (the CQ's id, as
     * irdma_process_reserved_ceqe and irdma_process_normal_ceqe write it). The CCQ's completions go to their
     * requests and only the CCQ is re-armed (irdma_cqp_ce_handler); a PUDA CQ is polled and re-armed when its own
     * CEQE comes (irdma_puda_ce_handler); every other CQ below the committed count goes to its consumer
     * (irdma_iwarp_ce_handler). IRDMA_INVALID_CQ_IDX and ids beyond the count are skipped (irdma_sc_process_ceq).
     */
    void drain() {
        for (int n = 0; n < entries; n++) {
            ceqe.wrap(hw.store, hw.off(ring + (long) head * Ceqe.SIZE), Ceqe.SIZE);
            if (ceqe.valid() != polarity) {
                return;
            }
            long cq = ceqe.cqIndex();
            head++;
            if (head == entries) {
                head = 0;
                polarity = !polarity;
            }
            if (cq < cqCount) {
                dispatch((int) cq);
            }
        }
    }

    private void dispatch(int id) {
        if (id == CCQ_ID) {
            if (!cqp.ccqLive()) {
                return;
            }
            hw.write(Gen2Register.CQACK, id);
            // irdma_cqp_ce_handler: each completion to its request, the callbacks of those posted without waiting
            // run (irdma_complete_cqp_request), then the CCQ is armed again: the CEQE used its arm (a waited op may
            // have polled the CQE itself already)
            cqp.takeCcqCompletions();
            requests.runDue();
            cqp.armCcq();
        } else if (id == ILQ_QP || id == IEQ_QP) {
            if (!puda.exists(id)) {
                // hw.c: "Stale ILQ/IEQ CEQE"
                return;
            }
            hw.write(Gen2Register.CQACK, id);
            puda.ceHandler(id);
        } else if (events != null) {
            hw.write(Gen2Register.CQACK, id);
            events.completionEvent(id);
        }
    }
}
