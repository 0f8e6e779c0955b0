package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.qp.RoceQpContext;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.fw.roce.RoceCheck;
import dev.irdmaemu.fw.roce.RoceFrame;
import dev.irdmaemu.model.ah.AddressHandleTable;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.FrameTransmitter;
import dev.irdmaemu.model.port.RoceSink;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.qp.QpTable;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.rc.RcReceipt;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.Optional;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The RoCEv2 QPs' side of the RDMA block, told by the CQP of each context load and state change: the per-QP RoCE
 * state ({@link RoceQp}), the Send Queue Drained event irdma waits for after Modify QP to SQD (verbs.c
 * irdma_modify_qp_roce, irdma_wait_for_suspend: AE IRDMA_AE_QP_SUSPEND_COMPLETE), and the doorbells of RoCE QPs.
 * UD QPs (QP1 among them) send on their doorbell ({@link UdSender}) and receive the UDP 4791 frames the port
 * steers here ({@link #receive}, a {@link RoceSink}): the frame is parsed and checked (fw.roce.RoceFrame: structure,
 * ICRC, path MTU), the QP picked by the BTH destination QP, its state, transport, P_Key and Q_Key checked (IBA
 * vol. 1 §9.6), and placed by {@link UdReceiver}; anything else is dropped and counted by reason
 * ({@link RoceCounters}, trace {@code roce_drop}). RC QPs' contexts, state changes, doorbells and frames go to the
 * RC transport ({@link RcQueuePairs}, {@link #attachRc}); without one attached, a doorbell on an RC QP raises
 * IRDMA_AE_WQE_UNEXPECTED_OPCODE once (hw.c irdma_process_aeq then moves the QP to error and flushes it) and is
 * counted, and an RC packet is dropped ({@link RoceDrop#RC_NOT_MODELLED}). Allocation-free per frame and WQE.
 */
public final class RoceDataPath implements RoceSink {
    private final RoceQp[] qps;
    private final boolean[] rcRefused;
    private final AsyncEventQueue aeq;
    private final Trace trace;
    private final QpTable qpTable;
    private final RoceCounters counters = new RoceCounters();
    private final UdSender sender;
    private final UdReceiver receiver;
    private final RoceFrame frame = new RoceFrame();
    private final UdSender.Output output;
    private int liveRoceQps;
    private long rcDoorbellsRefused;
    /** The RC transport; null until {@link #attachRc} (RC work is then refused as the class comment says). */
    private RcQueuePairs rc;

    /**
     * {@code wire} takes the frames for the wire, {@code loopback} those through a loopback AH (the port's own
     * receive path).
     */
    public RoceDataPath(HostMemory memory, QpTable qpTable, CqTable cqs, MemoryRegions regions,
                        AddressHandleTable ahs, ArpTable arp, AsyncEventQueue aeq, Trace trace,
                        FrameTransmitter wire, FrameTransmitter loopback) {
        int capacity = qpTable.capacity();
        this.qps = new RoceQp[capacity];
        this.rcRefused = new boolean[capacity];
        this.aeq = aeq;
        this.trace = trace;
        this.qpTable = qpTable;
        LocalBuffers buffers = new LocalBuffers(memory, regions);
        SendCompletionWriter completions = new SendCompletionWriter(cqs);
        this.sender = new UdSender(memory, buffers, ahs, arp, aeq, trace, counters, completions::sent);
        this.receiver = new UdReceiver(memory, cqs, buffers);
        this.output = new UdSender.Output() {
            @Override
            public void wire(BytesStore<?, ?> store, long offset, int length) {
                wire.transmit(store, offset, length);
            }

            @Override
            public void loopback(BytesStore<?, ?> store, long offset, int length) {
                loopback.transmit(store, offset, length);
            }
        };
    }

    /** Plugs the RC transport in: RC QPs' contexts, states, doorbells and frames go to {@code rcQps}. */
    public void attachRc(RcQueuePairs rcQps) {
        this.rc = rcQps;
    }

    /** The RC transport, or null when none is attached. */
    public RcQueuePairs rc() {
        return rc;
    }

    /** Create QP or Modify QP loaded {@code c} (already checked) for RoCE QP {@code qp}: every field is replaced. */
    public void contextLoaded(QueuePair qp, RoceQpContext c) {
        RoceQp r = qps[qp.id()];
        if (r == null) {
            r = new RoceQp();
            qps[qp.id()] = r;
        }
        if (!r.live) {
            r.live = true;
            liveRoceQps++;
        }
        r.load(c);
        if (rc != null && qp.role() == QueuePair.Role.ROCE_RC) {
            rc.contextLoaded(qp, r);
        }
    }

    /**
     * The QP moved from {@code was} to {@code next}. Into SQD (the CQP's state 3): nothing is in flight on a UD or
     * refused RC SQ, so the SQ is drained at once and QP_SUSPEND_COMPLETE goes to the AEQ. Out of ERROR (reuse) an
     * RC QP may be rung again.
     */
    public void stateChanged(QueuePair qp, QpState was, QpState next) {
        if (next == QpState.CLOSING && was != QpState.CLOSING) {
            aeq.post(qp.completionContext(), qp.id(), AeCode.QP_SUSPEND_COMPLETE.code(), AeSource.SQ,
                    next.code(), 0, 0);
        }
        if (next == QpState.IDLE) {
            rcRefused[qp.id()] = false;
        }
        RoceQp r = qps[qp.id()];
        if (r != null && next != was) {
            r.sqStopped = false;
        }
        if (rc != null && qp.role() == QueuePair.Role.ROCE_RC) {
            rc.stateChanged(qp, was, next);
        }
    }

    /** Destroy QP: the slot is forgotten. */
    public void release(int qpId) {
        if (qpId >= 0 && qpId < rcRefused.length) {
            rcRefused[qpId] = false;
            if (rc != null) {
                rc.release(qpId);
            }
            RoceQp r = qps[qpId];
            if (r != null && r.live) {
                r.live = false;
                liveRoceQps--;
            }
        }
    }

    /**
     * PFPE_WQEALLOC for RoCE QP {@code qp}. An RC QP's work is refused (see the class comment); answers whether the
     * doorbell was taken.
     */
    public boolean doorbell(QueuePair qp) {
        if (qp.role() == QueuePair.Role.ROCE_RC) {
            if (rc != null) {
                return rc.doorbell(qp);
            }
            refuseRc(qp);
            return true;
        }
        RoceQp q = qps[qp.id()];
        if (q == null || !q.live || qp.state() != QpState.RTS) {
            return false;
        }
        sender.drain(qp, q, output);
        return true;
    }

    @Override
    public boolean active() {
        return liveRoceQps > 0;
    }

    /**
     * A UDP 4791 frame the port steered here ({@link RoceSink}): checked, then placed into a UD QP's RQ or dropped
     * and counted. Never throws on the frame's bytes.
     */
    @Override
    public boolean receive(BytesStore<?, ?> store, long offset, int length) {
        RoceCheck c = frame.wrap(store, offset, length).validateStructure();
        if (!c.accepted()) {
            return drop(-1, RoceDrop.MALFORMED, c.name());
        }
        int destQp = frame.bth().destinationQp();
        QueuePair qp = qpTable.get(destQp);
        RoceQp q = qp == null || !qp.role().roce() ? null : qps[destQp];
        if (q == null || !q.live) {
            return drop(destQp, RoceDrop.NO_QP, null);
        }
        if (rc != null && qp.role() == QueuePair.Role.ROCE_RC) {
            return receiveRc(destQp, store, offset, length);
        }
        RoceDrop why = check(qp, q);
        if (why == null) {
            why = receiver.place(qp, q, frame);
        }
        if (why != null) {
            return drop(destQp, why, null);
        }
        counters.received(frame.payloadLength());
        TraceEvent t = trace.start(TraceKind.ROCE_RX);
        if (t != null) {
            t.num("qp", destQp).num("src_qp", frame.headers().deth().sourceQp()).num("len", frame.payloadLength())
                    .flag("ipv4", !frame.isIpv6()).num("psn", frame.bth().psn()).emit();
        }
        return true;
    }

    /** An RC frame goes to its QP's engine ({@link RcQueuePairs}), which checks and counts it by its receipt. */
    private boolean receiveRc(int destQp, BytesStore<?, ?> store, long offset, int length) {
        RcReceipt r = rc.receive(destQp, store, offset, length);
        if (r == null) {
            return drop(destQp, RoceDrop.NO_QP, null);
        }
        if (!r.passedFrameCheck()) {
            return drop(destQp, RoceDrop.RC_REFUSED, r.name());
        }
        counters.received(frame.payloadLength());
        TraceEvent t = trace.start(TraceKind.ROCE_RX);
        if (t != null) {
            t.num("qp", destQp).num("len", frame.payloadLength()).hex("opcode", frame.bth().opcodeCode())
                    .num("psn", frame.bth().psn()).text("receipt", r.name()).emit();
        }
        return true;
    }

    /** The rules of IBA §9.6 for a structurally sound packet to {@code qp}; null when it may be placed. */
    private RoceDrop check(QueuePair qp, RoceQp q) {
        if (qp.role() == QueuePair.Role.ROCE_RC) {
            return RoceDrop.RC_NOT_MODELLED;
        }
        QpState s = qp.state();
        if (s != QpState.RTR && s != QpState.RTS && s != QpState.CLOSING) {
            return RoceDrop.QP_NOT_READY;
        }
        Optional<BthOpcode> op = frame.bth().opcode();
        if (op.isEmpty() || op.get() != BthOpcode.UD_SEND_ONLY && op.get() != BthOpcode.UD_SEND_ONLY_WITH_IMMEDIATE) {
            return RoceDrop.WRONG_TRANSPORT;
        }
        if (!frame.icrcVerifies()) {
            return RoceDrop.BAD_ICRC;
        }
        int pkey = frame.bth().partitionKey();
        if ((pkey & 0x7fff) != (q.pKey & 0x7fff) || ((pkey | q.pKey) & 0x8000) == 0) {
            return RoceDrop.BAD_PKEY;
        }
        if (frame.headers().deth().queueKey() != q.qKey) {
            return RoceDrop.BAD_QKEY;
        }
        Optional<PathMtu> mtu = PathMtu.ofBytes(q.pathMtu);
        if (mtu.isEmpty() || !frame.mtuCheck(mtu.get()).accepted()) {
            return RoceDrop.ABOVE_MTU;
        }
        return null;
    }

    private boolean drop(int qpId, RoceDrop why, String detail) {
        counters.drop(why);
        TraceEvent t = trace.start(TraceKind.ROCE_DROP);
        if (t != null) {
            t.text("queue", "RQ").num("qp", qpId).text("reason", why.name());
            if (detail != null) {
                t.text("check", detail);
            }
            t.emit();
        }
        return false;
    }

    /** The RoCE engine's packet counters. */
    public RoceCounters counters() {
        return counters;
    }

    private void refuseRc(QueuePair qp) {
        rcDoorbellsRefused++;
        if (rcRefused[qp.id()]) {
            return;
        }
        rcRefused[qp.id()] = true;
        aeq.post(qp.completionContext(), qp.id(), AeCode.WQE_UNEXPECTED_OPCODE.code(), AeSource.SQ,
                qp.state().code(), 0, qp.sqCursor().index());
        TraceEvent t = trace.start(TraceKind.ROCE_DROP);
        if (t != null) {
            t.text("queue", "SQ").num("qp", qp.id()).text("reason", "RC_TRANSPORT_NOT_MODELLED").emit();
        }
    }

    /** Doorbells on RC QPs refused because the RC transport is not plugged in. */
    public long rcDoorbellsRefused() {
        return rcDoorbellsRefused;
    }

    /** The RoCE state of QP {@code qpId} (read it only while the QP lives), or null when it never was a RoCE QP. */
    public RoceQp qp(int qpId) {
        return qpId >= 0 && qpId < qps.length ? qps[qpId] : null;
    }
}
