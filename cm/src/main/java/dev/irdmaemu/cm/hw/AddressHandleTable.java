package dev.irdmaemu.cm.hw;

import dev.irdmaemu.cm.AhInfo;
import dev.irdmaemu.cm.AhResult;
import dev.irdmaemu.cm.CmHardwarePort.AhCompletion;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.ArrayDeque;
import java.util.HashMap;

/**
 * The in-memory device's address handles: created waited for (valid at once) or posted (answered at the current
 * instant, after what is already due, as a CQP op completes; refused on request), destroyed, and looked up by the
 * ILQ's sends. What uda.c irdma_sc_access_ah (CREATE_ADDR_HANDLE, DESTROY_ADDR_HANDLE) asks of the device, for the
 * AHs cm.c irdma_cm_create_ah makes with and without waiting (utils.c irdma_puda_create_ah, irdma_ilq_ah_cb).
 */
final class AddressHandleTable {
    private final CallLog log;
    private final HashMap<Integer, AhInfo> ahs = new HashMap<>();
    private int nextAh;
    /** AHs created without waiting whose completion has not run yet, in creation order, and its timer. */
    private final ArrayDeque<PendingAh> pending = new ArrayDeque<>();
    private final SimTimer completionTimer;
    private boolean refuse;
    private long sendsWithoutAh;

    private record PendingAh(int ah, AhCompletion done) {
    }

    AddressHandleTable(SimScheduler scheduler, CallLog log) {
        this.log = log;
        this.completionTimer = scheduler.newTimer("in-memory-ah-completions", this::complete);
    }

    AhResult create(AhInfo info) {
        int index = nextAh++;
        ahs.put(index, info);
        log.record("ah create " + index);
        return new AhResult.Created(index);
    }

    /**
     * The create is recorded now and answered at the current instant, after what is already due (the CQP's
     * completion); when refusing, the answer is "not valid" and the AH does not exist.
     */
    AhResult createNoWait(AhInfo info, AhCompletion done) {
        int index = nextAh++;
        ahs.put(index, info);
        log.record("ah create " + index + " (no wait)");
        pending.add(new PendingAh(index, done));
        if (!completionTimer.isPending()) {
            completionTimer.scheduleIn(0);
        }
        return new AhResult.Created(index);
    }

    private void complete() {
        while (!pending.isEmpty()) {
            PendingAh p = pending.poll();
            if (!ahs.containsKey(p.ah())) {
                continue;
            }
            boolean valid = !refuse;
            if (!valid) {
                ahs.remove(p.ah());
            }
            log.record("ah " + (valid ? "valid " : "refused ") + p.ah());
            p.done().ahCreated(p.ah(), valid);
        }
    }

    /** Refuse (true) or take (false) the AHs created without waiting from now on. */
    void refuse(boolean refuse) {
        this.refuse = refuse;
    }

    void destroy(int ah) {
        if (ahs.remove(ah) != null) {
            log.record("ah destroy " + ah);
        }
    }

    /** The AH an ILQ send names, or null (counted) when it does not exist. */
    AhInfo forSend(int ah) {
        AhInfo a = ahs.get(ah);
        if (a == null) {
            sendsWithoutAh++;
        }
        return a;
    }

    /** Address handles that exist. */
    int count() {
        return ahs.size();
    }

    /** AHs created without waiting whose completion has not come yet. */
    int pending() {
        return pending.size();
    }

    long sendsWithoutAh() {
        return sendsWithoutAh;
    }
}
