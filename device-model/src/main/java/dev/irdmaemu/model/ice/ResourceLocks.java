package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.ReqRes;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The firmware's resource ownership: request (0x0008) and release (0x0009) of the NVM lock, the SDP pins, the
 * change lock and the global config lock (libie adminq.h enum libie_aq_res_id), as ice_common.c ice_aq_req_res /
 * ice_acquire_res / ice_release_res use them.
 *
 * <ul>
 *   <li>A free resource is granted with the default timeout of adminq.h (NVM read 3 s, write 180 s, change lock
 *       1 s, global lock 3 s) written back in the timeout field.</li>
 *   <li>A held one answers EBUSY with the holder's timeout (ice_acquire_res polls until it runs out).</li>
 *   <li>The global config lock answers in its status field (LIBIE_AQ_RES_GLBL_*), always with retval OK:
 *       SUCCESS when granted, IN_PROG while held, DONE once a package download completed
 *       ({@link #globalConfigDone()}), which ice takes as "already loaded" (-EALREADY).</li>
 *   <li>Releasing a resource that is not held succeeds: ice_release_res retries any failure for 10 s.</li>
 *   <li>A grant lasts its timeout: a resource its holder did not release by then is free again, and the next
 *       request is granted (ice_acquire_res waits out a holder's timeout for this). The time is the model's
 *       simulated clock ({@link #clock}); a held resource answers the time it has left.</li>
 * </ul>
 * Only one PF's driver talks to this firmware instance, so "held" means held by that driver; a PF reset releases
 * everything ({@link #releaseAll()}).
 */
public final class ResourceLocks {
    private static final int RESOURCES = 5;
    private final boolean[] held = new boolean[RESOURCES];
    private final int[] access = new int[RESOURCES];
    private final long[] timeout = new long[RESOURCES];
    /** When each grant runs out, in the clock's nanoseconds. */
    private final long[] expires = new long[RESOURCES];
    private LongSupplier clock = () -> 0L;
    private boolean clocked;
    private boolean globalDone;
    private long grants;
    private long busy;
    private long expired;

    public void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.REQ_RES, this::request);
        r.accept(AqOpcode.RELEASE_RES, this::release);
    }

    private int request(AqDescriptor d, Bytes<?> b) {
        int id = d.paramU16(ReqRes.RES_ID);
        int acc = d.paramU16(ReqRes.ACCESS_TYPE);
        if (b != null || id < ReqRes.RES_ID_NVM || id > ReqRes.RES_ID_GLBL_LOCK
                || acc != ReqRes.ACCESS_READ && acc != ReqRes.ACCESS_WRITE) {
            return AqError.EINVAL;
        }
        expire(id);
        if (id == ReqRes.RES_ID_GLBL_LOCK) {
            if (globalDone) {
                d.paramU16(ReqRes.STATUS, ReqRes.GLBL_DONE).paramU32(ReqRes.TIMEOUT, 0);
            } else if (held[id]) {
                busy++;
                d.paramU16(ReqRes.STATUS, ReqRes.GLBL_IN_PROG).paramU32(ReqRes.TIMEOUT, remainingMs(id));
            } else {
                grant(id, acc, ReqRes.GLBL_LOCK_DFLT_TIMEOUT_MS);
                d.paramU16(ReqRes.STATUS, ReqRes.GLBL_SUCCESS).paramU32(ReqRes.TIMEOUT, timeout[id]);
            }
            return AqError.OK;
        }
        if (held[id]) {
            busy++;
            d.paramU32(ReqRes.TIMEOUT, remainingMs(id));
            return AqError.EBUSY;
        }
        long t = switch (id) {
            case ReqRes.RES_ID_NVM -> acc == ReqRes.ACCESS_WRITE ? ReqRes.NVM_WRITE_DFLT_TIMEOUT_MS
                    : ReqRes.NVM_READ_DFLT_TIMEOUT_MS;
            case ReqRes.RES_ID_CHNG_LOCK -> ReqRes.CHNG_LOCK_DFLT_TIMEOUT_MS;
            default -> ReqRes.NVM_READ_DFLT_TIMEOUT_MS;
        };
        grant(id, acc, t);
        d.paramU32(ReqRes.TIMEOUT, t);
        return AqError.OK;
    }

    private void grant(int id, int acc, long t) {
        held[id] = true;
        access[id] = acc;
        timeout[id] = t;
        expires[id] = clock.getAsLong() + t * 1_000_000L;
        grants++;
    }

    /** Frees {@code id} when its grant ran out on a clocked firmware. */
    private void expire(int id) {
        if (clocked && held[id] && clock.getAsLong() >= expires[id]) {
            held[id] = false;
            expired++;
        }
    }

    /** What is left of the holder's timeout, in whole milliseconds (the full timeout without a clock). */
    private long remainingMs(int id) {
        if (!clocked) {
            return timeout[id];
        }
        long left = expires[id] - clock.getAsLong();
        return Math.max(1, (left + 999_999) / 1_000_000);
    }

    /**
     * The simulated clock grants run on ({@code SimScheduler::now}, nanoseconds); null: grants never run out (a
     * firmware without the model's timing engine, as in unit tests of single commands).
     */
    public void clock(LongSupplier nanos) {
        this.clocked = nanos != null;
        this.clock = nanos == null ? () -> 0L : nanos;
    }

    private int release(AqDescriptor d, Bytes<?> b) {
        int id = d.paramU16(ReqRes.RES_ID);
        if (b != null || id < ReqRes.RES_ID_NVM || id > ReqRes.RES_ID_GLBL_LOCK) {
            return AqError.EINVAL;
        }
        held[id] = false;
        return AqError.OK;
    }

    /** A package download finished (the DDP commands call this): later global lock requests answer DONE. */
    public void globalConfigDone() {
        globalDone = true;
        held[ReqRes.RES_ID_GLBL_LOCK] = false;
    }

    public boolean globalConfigIsDone() {
        return globalDone;
    }

    public boolean held(int resourceId) {
        if (resourceId <= 0 || resourceId >= RESOURCES) {
            return false;
        }
        expire(resourceId);
        return held[resourceId];
    }

    /** The access type of a held resource (ReqRes.ACCESS_*), 0 when free. */
    public int access(int resourceId) {
        return held(resourceId) ? access[resourceId] : 0;
    }

    void releaseAll() {
        java.util.Arrays.fill(held, false);
    }

    void powerOn() {
        releaseAll();
        globalDone = false;
    }

    public long grants() {
        return grants;
    }

    public long busyAnswers() {
        return busy;
    }

    /** Grants that ran out without a release. */
    public long expiredGrants() {
        return expired;
    }
}
