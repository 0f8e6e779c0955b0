package dev.irdmaemu.driver;

import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM's address handles as utils.c keeps them (irdma_puda_create_ah, irdma_puda_free_ah, irdma_ilq_ah_cb): an
 * index from rf->allocated_ahs (irdma_alloc_rsrc from rf->next_ah, below rf->max_ah), the AH's fields for its
 * lifetime, and each create or destroy through the CQP with the whole ah_info (uda.c irdma_sc_access_ah), waited for
 * or posted with a callback.
 */
final class AddressHandles {
    private static final Logger LOG = LoggerFactory.getLogger(IrdmaDriver.class);
    private static final int MAX_AH = 4096;

    private final IrdmaHw hw;
    private final CqpChannel cqp;
    /** The AH bitmap (rf->allocated_ahs) and the next index to try (rf->next_ah). */
    private final boolean[] inUse = new boolean[MAX_AH];
    private int nextAh;
    private final AhFields[] fields = new AhFields[MAX_AH];
    /** irdma_sc_ah.ah_info.ah_valid: the device took the create; only a valid AH is destroyed by a CQP op. */
    private final boolean[] valid = new boolean[MAX_AH];
    /** A create posted without waiting whose completion has not come yet, and its caller's callback. */
    private final IrdmaDriver.AhCompletion[] pending = new IrdmaDriver.AhCompletion[MAX_AH];
    /** Freed while its create was in flight: the completion destroys it (if valid) and frees the index. */
    private final boolean[] freeOnCreate = new boolean[MAX_AH];
    /** Freed while not valid: the index stays taken in the bitmap, as irdma_puda_free_ah leaves it. */
    private final boolean[] leaked = new boolean[MAX_AH];
    private long leakedCount;

    /** struct irdma_ah_info as the driver keeps it for the AH's lifetime (irdma_sc_ah.ah_info). */
    record AhFields(long mac, int tcTos, int vlanTag, boolean insertVlanTag, int arpIndex, int hopLimit,
                    boolean ipv4, boolean loopback, int[] dest, int[] src) {
        /** The fields with the caller's address arrays copied, as the AH keeps them once it has its index. */
        AhFields copied() {
            return new AhFields(mac, tcTos, vlanTag, insertVlanTag, arpIndex, hopLimit, ipv4, loopback, dest.clone(),
                    src.clone());
        }
    }

    private final HmcSetup hmc;

    AddressHandles(IrdmaHw hw, CqpChannel cqp, HmcSetup hmc) {
        this.hw = hw;
        this.cqp = cqp;
        this.hmc = hmc;
    }

    /** irdma_puda_create_ah with wait = true: the index, CREATE_ADDR_HANDLE waited for; valid on return. */
    int create(AhFields callers) {
        int ah = alloc();
        AhFields f = callers.copied();
        try {
            cqp.op(CqpOpcode.CREATE_ADDR_HANDLE.name(), writer(CqpOpcode.CREATE_ADDR_HANDLE, ah, f));
        } catch (CqpException e) {
            inUse[ah] = false;
            throw e;
        }
        fields[ah] = f;
        valid[ah] = true;
        return ah;
    }

    /** irdma_puda_create_ah with wait = false: the index, CREATE_ADDR_HANDLE posted; {@code done} on completion. */
    int create(AhFields callers, IrdmaDriver.AhCompletion done) {
        int ah = alloc();
        AhFields f = callers.copied();
        fields[ah] = f;
        pending[ah] = done;
        cqp.post(CqpOpcode.CREATE_ADDR_HANDLE.name(), writer(CqpOpcode.CREATE_ADDR_HANDLE, ah, f),
                (error, major, minor, ret) -> createCompleted(ah, !error && ret == 0, major, minor));
        return ah;
    }

    /**
     * irdma_ilq_ah_cb: ah_valid from the completion, then the caller's callback. An AH freed while its create was
     * in flight is destroyed now if the device took it, and its index returns to the bitmap either way. (irdma
     * itself frees nothing for such an AH, neither the device's AH nor the index, and its callback would then
     * dereference the freed handle: this driver does not follow it there.) An AH whose create the device refused
     * keeps its index when its owner frees it, as irdma's does ({@link #destroy}).
     */
    private void createCompleted(int ah, boolean isValid, int major, int minor) {
        IrdmaDriver.AhCompletion done = pending[ah];
        pending[ah] = null;
        valid[ah] = isValid;
        if (!isValid) {
            LOG.debug("AH {} create refused: major {} minor {}", ah, major, minor);
        }
        if (freeOnCreate[ah]) {
            freeOnCreate[ah] = false;
            free(ah);
            return;
        }
        if (done != null) {
            done.ahCreated(ah, isValid);
        }
    }

    /** irdma_alloc_rsrc over rf->allocated_ahs from rf->next_ah, below rf->max_ah (the committed FSIAV count). */
    private int alloc() {
        int max = (int) Math.min(hmc.committedCount(HmcObjectType.FSIAV), inUse.length);
        int index = -1;
        for (int n = 0; n < max; n++) {
            int i = (nextAh + n) % max;
            if (!inUse[i]) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            throw new CqpException(CqpException.Kind.OP_ERROR, "CREATE_ADDR_HANDLE", 0, 0);
        }
        inUse[index] = true;
        nextAh = (index + 1) % max;
        return index;
    }

    /**
     * irdma_puda_free_ah: a valid AH destroyed (posted, no callback) and its index freed at once; one whose create
     * is in flight freed by that completion; one that is not valid leaks its index, as irdma's does.
     */
    void destroy(int ah) {
        if (ah < 0 || ah >= inUse.length || !inUse[ah] || freeOnCreate[ah] || leaked[ah]) {
            return;
        }
        if (pending[ah] != null) {
            freeOnCreate[ah] = true;
            return;
        }
        if (!valid[ah]) {
            fields[ah] = null;
            leaked[ah] = true;
            leakedCount++;
            LOG.debug("AH {} freed while not valid: its index stays taken, as irdma_puda_free_ah leaves it", ah);
            return;
        }
        free(ah);
    }

    private void free(int ah) {
        AhFields f = fields[ah];
        fields[ah] = null;
        if (valid[ah]) {
            valid[ah] = false;
            cqp.post(CqpOpcode.DESTROY_ADDR_HANDLE.name(), writer(CqpOpcode.DESTROY_ADDR_HANDLE, ah, f),
                    (error, major, minor, ret) -> {
                        if (error) {
                            LOG.debug("AH {} destroy refused: major {} minor {}", ah, major, minor);
                        }
                    });
        }
        inUse[ah] = false;
    }

    long leaked() {
        return leakedCount;
    }

    boolean valid(int ah) {
        return ah >= 0 && ah < valid.length && valid[ah];
    }

    int inUse() {
        int n = 0;
        for (boolean b : inUse) {
            if (b) {
                n++;
            }
        }
        return n;
    }

    /** uda.c irdma_sc_access_ah: every op carries the whole ah_info (PD 0: the CM's AHs have none). */
    private IrdmaDriver.WqeWriter writer(CqpOpcode op, int ah, AhFields f) {
        return (o, v) -> CqpWqeWriter.addressHandle(hw.store, o, op, ah, f.mac(), 0, f.tcTos(), f.vlanTag(),
                f.insertVlanTag(), f.arpIndex(), 0, f.hopLimit(), f.ipv4(), f.loopback(), f.dest(), f.src(), v);
    }
}
