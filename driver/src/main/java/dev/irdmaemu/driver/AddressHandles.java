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
 * or posted with a callback. Callers (the CM) reach them as {@link IrdmaDriver#addressHandles()}.
 */
public final class AddressHandles {
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
    }

    private final HmcSetup hmc;

    AddressHandles(IrdmaHw hw, CqpChannel cqp, HmcSetup hmc) {
        this.hw = hw;
        this.cqp = cqp;
        this.hmc = hmc;
    }

    /**
     * utils.c irdma_puda_create_ah with wait = true (cm.c irdma_connect, the active side): an index from the AH
     * bitmap below rf->max_ah (the committed FSIAV count, irdma_alloc_rsrc), then CREATE_ADDR_HANDLE (uda.c
     * irdma_sc_access_ah) with the caller's fields, waited for; the AH is valid on return (irdma_ah_cqp_op).
     * {@code dest} / {@code src}: irdma_ah_info.dest_ip_addr / src_ip_addr (IPv4 in word 0). Answers the index.
     *
     * @throws CqpException when no index is free or the device refuses the op (the index is freed again)
     */
    public int create(long mac, int tcTos, int vlanTag, boolean insertVlanTag, int arpIndex, int hopLimit,
                      boolean ipv4, boolean loopback, int[] dest, int[] src) {
        int ah = alloc();
        // the AH keeps its own copy of the caller's addresses once it has its index
        AhFields f = new AhFields(mac, tcTos, vlanTag, insertVlanTag, arpIndex, hopLimit, ipv4, loopback, dest.clone(),
                src.clone());
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

    /**
     * utils.c irdma_puda_create_ah with wait = false (cm.c irdma_handle_syn_pkt, the passive side): the index, then
     * CREATE_ADDR_HANDLE posted and not waited for. The AH is not valid until the CCQ completion, which runs
     * {@code done} from the interrupt handler (irdma_ilq_ah_cb), never from inside this call. Answers the index.
     *
     * @throws CqpException when no index is free (irdma_alloc_rsrc: -ENOMEM; nothing was posted)
     */
    public int create(long mac, int tcTos, int vlanTag, boolean insertVlanTag, int arpIndex, int hopLimit,
                      boolean ipv4, boolean loopback, int[] dest, int[] src, IrdmaDriver.AhCompletion done) {
        int ah = alloc();
        // the AH keeps its own copy of the caller's addresses once it has its index
        AhFields f = new AhFields(mac, tcTos, vlanTag, insertVlanTag, arpIndex, hopLimit, ipv4, loopback, dest.clone(),
                src.clone());
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
     * utils.c irdma_puda_free_ah: for a valid AH, DESTROY_ADDR_HANDLE posted and not waited for (irdma_ah_cqp_op
     * with wait = false and no callback; irdma_sc_access_ah repeats its fields, only the index counts), and the
     * index back to the bitmap at once. A refused destroy is only logged when its completion comes. An AH whose
     * create is still in flight is freed by that completion. An AH that is not valid (its create without waiting
     * was refused, or timed out) is freed as irdma frees it: nothing is posted and its index stays taken in
     * rf->allocated_ahs until the driver goes (counted in {@link #leaked()}, and still in {@link #inUse()}); after
     * max_ah such refusals creates fail with -ENOMEM.
     */
    public void destroy(int ah) {
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

    /** AH indexes kept taken because their AH was freed while not valid (irdma_puda_free_ah). */
    public long leaked() {
        return leakedCount;
    }

    /** ah_info.ah_valid of index {@code ah}: the device holds it (false while its create is in flight). */
    public boolean valid(int ah) {
        return ah >= 0 && ah < valid.length && valid[ah];
    }

    /** Address handles the driver holds. */
    public int inUse() {
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
