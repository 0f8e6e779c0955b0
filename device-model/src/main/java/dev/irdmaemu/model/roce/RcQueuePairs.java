package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.FrameTransmitter;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.rc.RcEngine;
import dev.irdmaemu.model.roce.rc.RcReceipt;
import dev.irdmaemu.model.roce.rc.RcState;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RC QPs of the RoCEv2 block: one {@link RcQp} per RC QP from Create QP to Destroy QP, told of each context
 * load and state change by the CQP (the IB states irdma's verbs.c irdma_modify_qp_roce maps onto the QP state codes:
 * RESET/INIT idle, RTR, RTS, SQD, ERROR), rung by PFPE_WQEALLOC (the SQ WQEs go to the requester,
 * {@link RcSqFetch}), and handed the RC frames the port steers to the QP. The engines' timers (retransmit, RNR) and
 * the work a burst leaves for later run off one model timer ({@code roce-rc}) at the earliest engine deadline, in
 * the model's time. Into ERROR the engine stops and its outstanding work completes with the flush error (one CQE per
 * queue, the gen2 way: {@link RcCompletionWriter}); the work still on the rings is left to Flush WQEs. A transport
 * error (retry or RNR retry exceeded, a NAK) raises the AE irdma handles for RoCE (hw.c irdma_process_aeq: it sets
 * the flush code, moves the QP to error and flushes it). Allocation-free per frame and per WQE.
 */
public final class RcQueuePairs {
    /** Request packets an engine sends per service before the others' turn (the rest continue after a pause). */
    static final int BUDGET = 32;
    /** The pause before an engine with more to send is served again (the wire's time for a burst). */
    static final long CONTINUE_NANOS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(RcQueuePairs.class);

    private final SimScheduler scheduler;
    private final HostMemory memory;
    private final QpTable qpTable;
    private final CqTable cqs;
    private final MemoryRegions regions;
    private final ArpTable arp;
    private final AsyncEventQueue aeq;
    private final Trace trace;
    private final FrameTransmitter wire;
    private final RcSqFetch fetch;
    private final RcQp[] rcs;
    private final int[] live;
    private int liveCount;
    private final SimTimer timer;
    private long fetchRefusals;

    public RcQueuePairs(SimScheduler scheduler, HostMemory memory, QpTable qpTable, CqTable cqs,
                        MemoryRegions regions, ArpTable arp, AsyncEventQueue aeq, Trace trace,
                        FrameTransmitter wire) {
        this.scheduler = scheduler;
        this.memory = memory;
        this.qpTable = qpTable;
        this.cqs = cqs;
        this.regions = regions;
        this.arp = arp;
        this.aeq = aeq;
        this.trace = trace;
        this.wire = wire;
        this.fetch = new RcSqFetch(memory);
        this.rcs = new RcQp[qpTable.capacity()];
        this.live = new int[qpTable.capacity()];
        this.timer = scheduler.newTimer("roce-rc", this::serviceAll);
    }

    /** Create or Modify QP loaded the context {@code q} of RC QP {@code qp}: the path is read again. */
    void contextLoaded(QueuePair qp, RoceQp q) {
        RcQp rc = rcs[qp.id()];
        if (rc == null) {
            int id = qp.id();
            rc = new RcQp(qp, memory, regions, cqs, trace, ae -> transportError(id, ae), wire::transmit);
            rcs[id] = rc;
            live[liveCount++] = id;
        }
        rc.configure(qp, q, arp);
    }

    /** The QP moved from {@code was} to {@code next}: the engine follows (see the class comment). */
    void stateChanged(QueuePair qp, QpState was, QpState next) {
        RcQp rc = rcs[qp.id()];
        if (rc == null) {
            return;
        }
        RcEngine e = rc.engine();
        RcState to = engineState(next);
        long now = scheduler.now();
        if (to == e.state()) {
            e.pathChanged();
        } else {
            e.modify(to, now);
        }
        if (next != was) {
            rc.resumeSq();
        }
        if (to == RcState.ERROR) {
            e.flushSendQueue();
        } else if (was == QpState.ERROR) {
            rc.completions().rearm();
        }
        pump(qp, rc, now);
    }

    private static RcState engineState(QpState s) {
        return switch (s) {
            case RTR -> RcState.READY_TO_RECEIVE;
            case RTS -> RcState.READY_TO_SEND;
            // SQD: the requester finishes what it has (irdma waits for QP_SUSPEND_COMPLETE only)
            case CLOSING -> RcState.READY_TO_SEND;
            case ERROR, TERMINATE -> RcState.ERROR;
            default -> RcState.RESET;
        };
    }

    /** Destroy QP: the engine's buffers are freed and the slot forgotten. */
    void release(int qpId) {
        if (qpId < 0 || qpId >= rcs.length || rcs[qpId] == null) {
            return;
        }
        rcs[qpId].release();
        rcs[qpId] = null;
        for (int i = 0; i < liveCount; i++) {
            if (live[i] == qpId) {
                live[i] = live[--liveCount];
                break;
            }
        }
    }

    /** PFPE_WQEALLOC for RC QP {@code qp}: answers whether an engine took it. */
    boolean doorbell(QueuePair qp) {
        RcQp rc = rcs[qp.id()];
        if (rc == null) {
            return false;
        }
        pump(qp, rc, scheduler.now());
        return true;
    }

    /** An RC frame for QP {@code qpId}; answers the engine's receipt (null when the QP has no engine). */
    RcReceipt receive(int qpId, BytesStore<?, ?> store, long offset, int length) {
        RcQp rc = qpId >= 0 && qpId < rcs.length ? rcs[qpId] : null;
        QueuePair qp = rc == null ? null : qpTable.get(qpId);
        if (qp == null) {
            return null;
        }
        long now = scheduler.now();
        RcReceipt r = rc.engine().receive(store, offset, length, now);
        pump(qp, rc, now);
        return r;
    }

    /** Fetches what the SQ holds, lets the engine send and arms the timer for what is left. */
    private void pump(QueuePair qp, RcQp rc, long now) {
        RcEngine e = rc.engine();
        if (e.state() == RcState.READY_TO_SEND || e.state() == RcState.ERROR) {
            drainSq(qp, rc);
        }
        e.service(now, BUDGET);
        if (e.wantsService()) {
            arm(now + CONTINUE_NANOS);
        } else if (e.hasDeadline()) {
            arm(e.deadline());
        }
    }

    private void drainSq(QueuePair qp, RcQp rc) {
        if (rc.sqStopped()) {
            return;
        }
        for (int n = 0; n < qp.sqCursor().size(); n++) {
            int index = qp.sqCursor().index();
            RcSqFetch.Fetch f = fetch.next(qp, rc);
            if (f == RcSqFetch.Fetch.POSTED) {
                continue;
            }
            if (f.ae() != null) {
                refuse(qp, rc, index, f);
            }
            return;
        }
    }

    private void arm(long at) {
        if (!timer.isPending() || at - timer.deadline() < 0) {
            timer.scheduleAt(Math.max(at, scheduler.now()));
        }
    }

    /** The timer: every engine's timers and left work, then the timer for the next deadline. */
    private void serviceAll() {
        long now = scheduler.now();
        for (int i = 0; i < liveCount; i++) {
            int id = live[i];
            QueuePair qp = qpTable.get(id);
            if (qp != null) {
                pump(qp, rcs[id], now);
            }
        }
    }

    private void refuse(QueuePair qp, RcQp rc, int index, RcSqFetch.Fetch why) {
        fetchRefusals++;
        rc.stopSq();
        aeq.post(qp.completionContext(), qp.id(), why.ae().code(), AeSource.SQ, qp.state().code(), 0, index);
        TraceEvent t = trace.start(TraceKind.ROCE_DROP);
        if (t != null) {
            t.text("queue", "SQ").num("qp", qp.id()).num("wqe", index).text("reason", why.name()).emit();
        }
    }

    /** The engine of QP {@code qpId} went to error: the AE irdma turns into Modify QP ERROR and Flush WQEs. */
    private void transportError(int qpId, AeCode ae) {
        QueuePair qp = qpTable.get(qpId);
        if (qp == null) {
            return;
        }
        LOG.debug("RoCE RC QP {}: transport error, AE {}", qpId, ae);
        aeq.post(qp.completionContext(), qpId, ae.code(), AeSource.SQ, qp.state().code(), 0, qp.sqCursor().index());
    }

    /** Every engine released, as at a function reset (their buffers freed). */
    public void releaseAll() {
        while (liveCount > 0) {
            release(live[0]);
        }
        timer.cancel();
    }

    /** The engine of RC QP {@code qpId} (for tests and statistics), or null. */
    public RcEngine engine(int qpId) {
        return qpId >= 0 && qpId < rcs.length && rcs[qpId] != null ? rcs[qpId].engine() : null;
    }

    /** RC QPs with an engine. */
    public int live() {
        return liveCount;
    }

    /** SQ WQEs refused (opcode or form not modelled, malformed), each with its AE. */
    public long fetchRefusals() {
        return fetchRefusals;
    }
}
