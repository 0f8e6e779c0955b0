package dev.irdmaemu.driver;

import static dev.irdmaemu.driver.IrdmaDriver.AEQ_VECTOR;

import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.EqOpFields;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AEQ as hw.c keeps it: sized and created with its vector routed (irdma_setup_aeq, ctrl.c irdma_cfg_aeq,
 * irdma_create_aeq, on single pages through a level-1 PBL when asked: irdma_create_virt_aeq), drained AEQE by AEQE
 * with each event decoded and handed up (irdma_process_aeq, ctrl.c irdma_sc_get_next_aeqe and
 * irdma_sc_repost_aeq_entries), destroyed at remove (irdma_destroy_aeq). Callers reach it as
 * {@link IrdmaDriver#aeq()}; its size and mapping are chosen before the bring-up
 * ({@link IrdmaDriver#withAeqEntries}, {@link IrdmaDriver#withVirtualAeq}).
 */
public final class Aeq {
    private static final Logger LOG = LoggerFactory.getLogger(IrdmaDriver.class);
    /** user.h IRDMA_MAX_AEQ_ENTRIES and IRDMA_MIN_AEQ_ENTRIES (hw_attrs.min_hw_aeq_size). */
    static final int MAX_AEQ_ENTRIES = 524287;
    static final int MIN_AEQ_ENTRIES = 1;

    private final IrdmaHw hw;
    private final CqpChannel cqp;
    private final ResetRequests resets;
    private final EqOpFields eqf = new EqOpFields();
    private final Aeqe aeqe = new Aeqe();
    private final AsyncEvent asyncEvent = new AsyncEvent();
    private IrdmaDriver.DeviceEvents events;
    private IrdmaDriver.Upcalls upcalls;
    private long ring;
    /** A virtual AEQ's pages (hw.c irdma_create_virt_aeq), in ring order; null for a coherent ring. */
    private long[] pages;
    private PbleResource.Allocation pbl;
    private boolean virtual;
    private int entries;
    /** {@link #chooseEntries}: 0 for irdma's own sizing. */
    private int entriesChosen;
    private int head;
    private boolean polarity = true;
    private boolean live;
    private long overflows;

    Aeq(IrdmaHw hw, CqpChannel cqp, ResetRequests resets) {
        this.hw = hw;
        this.cqp = cqp;
        this.resets = resets;
    }

    void events(IrdmaDriver.DeviceEvents e) {
        this.events = e;
    }

    void upcalls(IrdmaDriver.Upcalls u) {
        this.upcalls = u;
    }

    /** An AEQ of {@code n} entries instead of irdma's size (ctrl.c irdma_sc_aeq_init's bounds). */
    void chooseEntries(int n) {
        if (n < MIN_AEQ_ENTRIES || n > MAX_AEQ_ENTRIES) {
            throw new IllegalArgumentException("AEQ of " + n + " entries: irdma_sc_aeq_init takes "
                    + MIN_AEQ_ENTRIES + ".." + MAX_AEQ_ENTRIES);
        }
        entriesChosen = n;
    }

    void makeVirtual() {
        virtual = true;
    }

    /** The AEQ's size in entries, once brought up. */
    public int entries() {
        return entries;
    }

    boolean live() {
        return live;
    }

    /** Overflowed AEQEs the driver read (each one a reset request, hw.c irdma_process_aeq). */
    public long overflows() {
        return overflows;
    }

    /** The first PBLE index of a PBL-mapped AEQ ({@link IrdmaDriver#withVirtualAeq}); empty for a coherent ring. */
    public OptionalInt firstPbleIndex() {
        return pbl == null ? OptionalInt.empty() : OptionalInt.of(pbl.first);
    }

    private long aeqeAddress(int index) {
        long offset = (long) index * Aeqe.SIZE;
        return pages == null ? ring + offset
                : pages[(int) (offset / HostRam.PAGE_SIZE)] + offset % HostRam.PAGE_SIZE;
    }

    /**
     * hw.c irdma_setup_aeq / ctrl.c irdma_cfg_aeq (PFINT_AEQCTL), arm the vector, then Create AEQ. hw.c
     * irdma_create_aeq sizes it at two entries per committed QP for iWARP and one per CQ, at most the hardware's
     * maximum (a burst of connections each raising LLP_CONNECTION_ESTABLISHED must not overflow it).
     */
    void setup(long committedQps, long committedCqs, PbleResource pbles) {
        hw.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(true, AEQ_VECTOR));
        hw.write(Gen2Register.GLINT_DYN_CTL, AEQ_VECTOR, Gen2Registers.dynCtlEnable(0));
        entries = entriesChosen > 0 ? entriesChosen
                : (int) Math.min(2 * committedQps + committedCqs, MAX_AEQ_ENTRIES);
        eqf.clear();
        eqf.elementCount = entries;
        if (virtual) {
            mapVirtual(pbles);
        } else {
            ring = hw.allocate((long) entries * Aeqe.SIZE);
            eqf.address = ring;
        }
        cqp.op("CREATE_AEQ", (o, v) -> CqpWqeWriter.createAeq(hw.store, o, eqf, v));
        live = true;
    }

    /** hw.c irdma_create_virt_aeq: vmalloc'd pages (single pages, not contiguous), a level-1 PBL of them. */
    private void mapVirtual(PbleResource pbles) {
        int n = (int) (((long) entries * Aeqe.SIZE + HostRam.PAGE_SIZE - 1) / HostRam.PAGE_SIZE);
        pages = new long[n];
        for (int i = 0; i < n; i++) {
            pages[n - 1 - i] = hw.allocate(HostRam.PAGE_SIZE);
        }
        pbl = pbles.allocate(n, false);
        if (pbl == null) {
            throw new IllegalStateException("no PBLEs for a virtual AEQ of " + n + " pages");
        }
        for (int i = 0; i < n; i++) {
            pbles.writePage(pbl, i, pages[i]);
        }
        eqf.virtualMap = true;
        eqf.pblChunkSize = PbleLayout.CHUNK_LEVEL_1;
        eqf.firstPmPblIndex = pbl.first;
    }

    /**
     * hw.c irdma_destroy_aeq (vectors not shared): irdma_cfg_aeq disables PFINT_AEQCTL, the IRQ is freed, then
     * (without a reset) Destroy AEQ with the create's fields (ctrl.c irdma_sc_aeq_destroy), waited for.
     */
    void destroy(boolean reset) {
        hw.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(false, AEQ_VECTOR));
        live = false;
        if (!reset) {
            eqf.clear();
            eqf.elementCount = entries;
            if (pbl != null) {
                eqf.virtualMap = true;
                eqf.pblChunkSize = PbleLayout.CHUNK_LEVEL_1;
                eqf.firstPmPblIndex = pbl.first;
            }
            cqp.teardownOp("DESTROY_AEQ", (o, v) -> CqpWqeWriter.destroyAeq(hw.store, o, eqf, v));
        }
        entries = 0;
    }

    /**
     * hw.c irdma_process_aeq: each valid AEQE decoded and handed up, then the consumed count written to
     * PFPE_AEQALLOC (ctrl.c irdma_sc_repost_aeq_entries). An AEQE with the overflow bit ends the pass at once: irdma
     * logs "AEQ has overflowed", sets rf->reset, asks for a reset (without testing rf->reset first) and returns
     * before the repost, so neither that AEQE's event nor the entries consumed before it in the pass are handed
     * back to the device. The ring's head has moved past the overflowed AEQE (irdma_sc_get_next_aeqe moves it
     * before the caller looks at the bit).
     */
    void drain() {
        int consumed = 0;
        for (int n = 0; n < entries; n++) {
            aeqe.wrap(hw.store, hw.off(aeqeAddress(head)), Aeqe.SIZE);
            if (aeqe.valid() != polarity) {
                break;
            }
            asyncEvent.decode(aeqe);
            head++;
            if (head == entries) {
                head = 0;
                polarity = !polarity;
            }
            if (asyncEvent.overflow) {
                overflows++;
                LOG.error("AEQ has overflowed ({} AEQEs of this pass not reposted); requesting a reset", consumed);
                resets.request(ResetCause.aeqOverflow(), false);
                return;
            }
            consumed++;
            if (events != null) {
                events.asyncEvent(asyncEvent);
            }
            upcalls.asyncEvent(asyncEvent.qpCqId, asyncEvent.aeCode);
        }
        if (consumed > 0) {
            hw.write(Gen2Register.AEQALLOC, Gen2Registers.aeqAllocDoorbell(consumed));
        }
    }
}
