package dev.irdmaemu.cm.hw;

import dev.irdmaemu.cm.CmHardwarePort.QhashCompletion;
import dev.irdmaemu.cm.FourTuple;
import dev.irdmaemu.cm.Qhash;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;

/**
 * Where the in-memory device steers a received segment: the quad hash (listener entries take SYNs to a local
 * address and port, connection entries their four-tuple; adds waited for or posted and answered as a CQP op
 * completes), the four-tuples QPs took over, and the use counts of the accelerated ports (APBVT): what irdma's
 * irdma_manage_qhash (with irdma_send_syn_cqp_callback for a posted add) and irdma_add_apbvt / irdma_del_apbvt
 * program on the device. Looking a four-tuple up allocates nothing.
 */
final class SteeringTable {
    private final CallLog log;
    private final Set<Qhash> qhash = new HashSet<>();
    private final HashMap<FourTuple, Qhash> connectionEntries = new HashMap<>();
    private final HashMap<FourTuple, Qhash> listenerEntries = new HashMap<>();
    private final HashMap<FourTuple, OffloadedConnection> qpByQuad = new HashMap<>();
    private final int[] acceleratedPorts = new int[65536];
    private final SimTimer completionTimer;
    private final ArrayDeque<PendingQhash> pending = new ArrayDeque<>();

    private record PendingQhash(Qhash entry, QhashCompletion done) {
    }

    SteeringTable(SimScheduler scheduler, CallLog log) {
        this.log = log;
        this.completionTimer = scheduler.newTimer("in-memory-qhash-completions", this::completeAdds);
    }

    boolean add(Qhash entry) {
        log.record("qhash add " + entry);
        return program(entry);
    }

    /**
     * Recorded now, executed and answered at the current instant after what is already due, as a posted CQP op
     * completes.
     */
    boolean addNoWait(Qhash entry, QhashCompletion done) {
        log.record("qhash add " + entry + " (no wait)");
        pending.add(new PendingQhash(entry, done));
        if (!completionTimer.isPending()) {
            completionTimer.scheduleIn(0);
        }
        return true;
    }

    private void completeAdds() {
        while (!pending.isEmpty()) {
            PendingQhash p = pending.poll();
            boolean added = program(p.entry());
            log.record("qhash " + (added ? "added " : "refused ") + p.entry());
            p.done().qhashDone(added);
        }
    }

    /** The entry into the table and its steering; false when it is there already. */
    private boolean program(Qhash entry) {
        if (!qhash.add(entry)) {
            return false;
        }
        (entry.kind() == Qhash.Kind.CONNECTION ? connectionEntries : listenerEntries).put(quadOf(entry), entry);
        return true;
    }

    void delete(Qhash entry) {
        log.record("qhash delete " + entry);
        if (qhash.remove(entry)) {
            (entry.kind() == Qhash.Kind.CONNECTION ? connectionEntries : listenerEntries).remove(quadOf(entry));
        }
    }

    /** The steering key of an entry: its four-tuple, the remote half zero for a listener's. */
    private static FourTuple quadOf(Qhash e) {
        boolean connection = e.kind() == Qhash.Kind.CONNECTION;
        return new FourTuple().set(e.localHi(), e.localLo(), e.localPort(), connection ? e.remoteHi() : 0,
                connection ? e.remoteLo() : 0, connection ? e.remotePort() : 0, e.vlanId());
    }

    /**
     * Hands the segment {@code rx} wraps to the QP that owns the four-tuple {@code probe}; false when none does.
     * The QP is only looked at when there is one, so a device that never offloaded needs no QP class loaded.
     */
    boolean toQp(FourTuple probe, TcpPacket rx) {
        OffloadedConnection qp = qpByQuad.get(probe);
        if (qp == null) {
            return false;
        }
        qp.segment(rx);
        return true;
    }

    /** A connection entry steers {@code probe} to the CM. */
    boolean connectionEntry(FourTuple probe) {
        return connectionEntries.containsKey(probe);
    }

    /** A listener entry steers SYNs to {@code probe} (remote half zero) to the CM. */
    boolean listenerEntry(FourTuple probe) {
        return listenerEntries.containsKey(probe);
    }

    /** The QP takes the four-tuple over from the ILQ's connection entry (cm.c then forgets qhash_set). */
    void takeOver(FourTuple quad, OffloadedConnection qp) {
        Qhash superseded = connectionEntries.remove(quad);
        if (superseded != null) {
            qhash.remove(superseded);
        }
        qpByQuad.put(quad, qp);
    }

    /** The QP is gone: its four-tuple is steered nowhere. */
    void release(FourTuple quad) {
        qpByQuad.remove(quad);
    }

    Set<Qhash> entries() {
        return Collections.unmodifiableSet(new HashSet<>(qhash));
    }

    boolean addAcceleratedPort(int port) {
        log.record("apbvt add " + port);
        acceleratedPorts[port]++;
        return true;
    }

    void deleteAcceleratedPort(int port) {
        log.record("apbvt delete " + port);
        if (acceleratedPorts[port] > 0) {
            acceleratedPorts[port]--;
        }
    }

    int acceleratedPortUse(int port) {
        return acceleratedPorts[port];
    }

    int acceleratedPortsInUse() {
        int n = 0;
        for (int use : acceleratedPorts) {
            if (use != 0) {
                n++;
            }
        }
        return n;
    }

    /** Connection and listener entries by four-tuple and four-tuples steered to a QP. */
    int size() {
        return connectionEntries.size() + listenerEntries.size() + qpByQuad.size();
    }
}
