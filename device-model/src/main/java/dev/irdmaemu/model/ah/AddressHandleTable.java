package dev.irdmaemu.model.ah;

import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.hmc.HmcLimits;

/**
 * The address handles of one function, by AH index (IRDMA_UDA_CQPSQ_MAV_AVIDX). The driver allocates the indexes
 * below rf->max_ah, which hw.c irdma_initialize_hw_rsrc takes from the HMC's FSIAV object count
 * (hmc_obj[IRDMA_HMC_IW_FSIAV].cnt); the table refuses an index at or above the committed FSIAV count the caller
 * passes, and never holds more than {@link HmcLimits#maxCount} FSIAV objects. Slots are allocated once.
 */
public final class AddressHandleTable {
    /** How an op on the table ended. */
    public enum Result {
        OK("done"),
        OUT_OF_RANGE("AH index at or above the committed FSIAV count"),
        EXISTS("an AH with this index exists"),
        NO_SUCH_AH("no AH with this index");

        private final String text;

        Result(String text) {
            this.text = text;
        }

        public String describe() {
            return text;
        }
    }

    private final AddressHandle[] slots;
    private final boolean[] valid;
    private int live;

    public AddressHandleTable() {
        this((int) HmcLimits.maxCount(HmcObjectType.FSIAV));
    }

    public AddressHandleTable(int capacity) {
        slots = new AddressHandle[capacity];
        valid = new boolean[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = new AddressHandle(i);
        }
    }

    private boolean inRange(int index, long committed) {
        return index >= 0 && index < committed && index < slots.length;
    }

    /** Create Address Handle: stores the WQE's fields under its index, which must be in range and free. */
    public Result create(CqpWqe w, long committedCount) {
        int i = w.ahIndex();
        if (!inRange(i, committedCount)) {
            return Result.OUT_OF_RANGE;
        }
        if (valid[i]) {
            return Result.EXISTS;
        }
        slots[i].load(w);
        valid[i] = true;
        live++;
        return Result.OK;
    }

    /** Modify Address Handle: replaces the fields of an existing AH. */
    public Result modify(CqpWqe w, long committedCount) {
        int i = w.ahIndex();
        if (!inRange(i, committedCount)) {
            return Result.OUT_OF_RANGE;
        }
        if (!valid[i]) {
            return Result.NO_SUCH_AH;
        }
        slots[i].load(w);
        return Result.OK;
    }

    /** Destroy Address Handle: only the index counts (irdma_sc_access_ah repeats the rest of the AH). */
    public Result destroy(int index, long committedCount) {
        if (!inRange(index, committedCount)) {
            return Result.OUT_OF_RANGE;
        }
        if (!valid[index]) {
            return Result.NO_SUCH_AH;
        }
        valid[index] = false;
        slots[index].clear();
        live--;
        return Result.OK;
    }

    /** The AH at {@code index}, or null when none exists there. */
    public AddressHandle get(int index) {
        return index >= 0 && index < slots.length && valid[index] ? slots[index] : null;
    }

    /** The AHs that exist. */
    public int liveCount() {
        return live;
    }

    public int capacity() {
        return slots.length;
    }
}
