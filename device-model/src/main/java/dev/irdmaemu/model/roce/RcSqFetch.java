package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.queue.WqeCheck;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.rc.PostOutcome;
import dev.irdmaemu.model.roce.rc.ScatterGatherList;
import dev.irdmaemu.model.roce.rc.SendOpcode;
import dev.irdmaemu.model.roce.rc.SendRequest;

/**
 * The SQ fetch of an RC QP: each WQE posted at the device's SQ position (uk.c irdma_uk_rdma_write, irdma_uk_send,
 * irdma_uk_rdma_read: the opcode, SIGCOMPL, IMMDATAFLAG with the immediate in quadword 0, the remote tagged offset
 * and REMSTAG, the fragments) becomes a work request of the RC requester, its id the WQE's first quantum (what the
 * SQ CQE carries back). The opcodes are the RC ones of IRDMAQP_OP_* (defs.h): RDMA WRITE (and WRITE_SOL), RDMA READ,
 * SEND, SEND_SOL, SEND_INV and SEND_SOL_INV (the R_Key to invalidate in REMSTAG). Inline data, the local operations
 * (fast register, local invalidate, bind MW, NOP), READ with local invalidate and atomics are not modelled on an
 * RC QP: they answer {@link Fetch#UNSUPPORTED}, whose AE (WQE_UNEXPECTED_OPCODE) makes irdma move the QP to error
 * (hw.c irdma_process_aeq). Allocation-free: one WQE flyweight and one request holder serve every QP.
 */
final class RcSqFetch {
    /** What one fetch did. */
    enum Fetch {
        /** The WQE went to the requester and the SQ position moved past it. */
        POSTED(null),
        /** Nothing posted at the SQ position (or the ring is unmapped there). */
        EMPTY(null),
        /** The requester's ring of outstanding work is full: fetched again when work completes. */
        ENGINE_FULL(null),
        /** The QP is not in RTS: the WQE stays until it is. */
        NOT_READY(null),
        /** A WQE the device refuses: malformed or with too many fragments. */
        MALFORMED(AeCode.WQE_UNEXPECTED_OPCODE),
        /** An opcode or form not modelled on an RC QP (see the class comment). */
        UNSUPPORTED(AeCode.WQE_UNEXPECTED_OPCODE),
        /** A message longer than 2^31 bytes. */
        TOO_LONG(AeCode.WQE_UNEXPECTED_OPCODE);

        private final AeCode ae;

        Fetch(AeCode ae) {
            this.ae = ae;
        }

        /** The AE the refusal raises; null when nothing is refused. */
        AeCode ae() {
            return ae;
        }
    }

    private final HostMemory memory;
    private final SqWqe wqe = new SqWqe();
    private final SendRequest request = new SendRequest();

    RcSqFetch(HostMemory memory) {
        this.memory = memory;
    }

    /** Fetches the WQE at {@code qp}'s SQ position into {@code rc}'s requester. */
    Fetch next(QueuePair qp, RcQp rc) {
        RingCursor sq = qp.sqCursor();
        long offset = (long) sq.index() * SqWqe.QUANTUM;
        if (!qp.sqRing().holds(offset)) {
            return Fetch.EMPTY;
        }
        long gpa = qp.sqRing().address(offset);
        int r = memory.find(gpa, SqWqe.QUANTUM);
        if (r < 0) {
            return Fetch.EMPTY;
        }
        long room = Math.min((long) SqWqe.MAX_QUANTA * SqWqe.QUANTUM, memory.length(r) - (gpa - memory.base(r)));
        wqe.wrap(memory.store(r), memory.offset(r, gpa), room);
        WqeCheck check = wqe.validate(sq.polarity());
        if (check == WqeCheck.NOT_POSTED) {
            return Fetch.EMPTY;
        }
        if (!check.accepted()) {
            return Fetch.MALFORMED;
        }
        int index = sq.index();
        Fetch built = build(index);
        if (built != Fetch.POSTED) {
            return built;
        }
        PostOutcome posted = rc.engine().post(request);
        switch (posted) {
            case ACCEPTED, FLUSHED -> {
                rc.completions().fetched(index, wqe.opcode());
                int quanta = Math.max(1, wqe.quanta());
                for (int i = 0; i < quanta; i++) {
                    sq.advance();
                }
                return Fetch.POSTED;
            }
            case QUEUE_FULL -> {
                return Fetch.ENGINE_FULL;
            }
            case NOT_READY -> {
                return Fetch.NOT_READY;
            }
            default -> {
                return Fetch.TOO_LONG;
            }
        }
    }

    /** Fills {@link #request} from the wrapped WQE. */
    private Fetch build(int index) {
        if (wqe.inline()) {
            return Fetch.UNSUPPORTED;
        }
        SendOpcode op = opcodeOf(wqe.opcode(), wqe.immediate());
        if (op == null) {
            return Fetch.UNSUPPORTED;
        }
        int code = wqe.opcode();
        ScatterGatherList sges = request.reset(op, index, wqe.signaled());
        request.solicited(code == SqOpcode.RDMA_SEND_SOL_EVENT.code()
                || code == SqOpcode.RDMA_SEND_SOL_EVENT_INV.code() || code == SqOpcode.RDMA_WRITE_SOL.code());
        if (wqe.immediate()) {
            request.immediate((int) wqe.immediateData());
        }
        if (op == SendOpcode.SEND_WITH_INVALIDATE) {
            request.invalidate(wqe.remoteStag());
        }
        if (op == SendOpcode.RDMA_WRITE || op == SendOpcode.RDMA_WRITE_WITH_IMMEDIATE || op == SendOpcode.RDMA_READ) {
            request.remote(wqe.remoteTaggedOffset(), wqe.remoteStag());
        }
        int slots = Math.min(wqe.fragmentSlots(), SqWqe.MAX_FRAGMENTS + 2);
        for (int s = wqe.firstDataSlot(); s < slots; s++) {
            long len = wqe.fragmentLength(s);
            if (len == 0) {
                continue;
            }
            if (len > Integer.MAX_VALUE || !sges.add(wqe.fragmentAddress(s), (int) len, wqe.fragmentStag(s))) {
                return Fetch.MALFORMED;
            }
        }
        return Fetch.POSTED;
    }

    /** The requester's operation for irdma's IRDMAQP_OP_* {@code code}; null when it is not an RC transfer. */
    static SendOpcode opcodeOf(int code, boolean immediate) {
        if (code == SqOpcode.RDMA_WRITE.code() || code == SqOpcode.RDMA_WRITE_SOL.code()) {
            return immediate ? SendOpcode.RDMA_WRITE_WITH_IMMEDIATE : SendOpcode.RDMA_WRITE;
        }
        if (code == SqOpcode.RDMA_READ.code()) {
            return immediate ? null : SendOpcode.RDMA_READ;
        }
        if (code == SqOpcode.RDMA_SEND.code() || code == SqOpcode.RDMA_SEND_SOL_EVENT.code()) {
            return immediate ? SendOpcode.SEND_WITH_IMMEDIATE : SendOpcode.SEND;
        }
        if (code == SqOpcode.RDMA_SEND_INV.code() || code == SqOpcode.RDMA_SEND_SOL_EVENT_INV.code()) {
            return immediate ? null : SendOpcode.SEND_WITH_INVALIDATE;
        }
        return null;
    }
}
