package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.qp.QueuePair;

/**
 * Flush WQEs for a QP that has no running engine (it never reached RTS, or its engine is gone): what is posted at
 * the device's SQ and RQ positions is flushed with one completion per queue, the gen2 way (see
 * {@link SendQueue#flush}). Allocation-free; one instance serves every QP.
 */
final class IdleQueues {
    private final HostMemory memory;
    private final CompletionWriter completions;
    private final SqWqe sq = new SqWqe();
    private final RqWqe rq = new RqWqe();

    IdleQueues(HostMemory memory, CompletionWriter completions) {
        this.memory = memory;
        this.completions = completions;
    }

    boolean flushSq(QueuePair qp, int major, int minor) {
        RingCursor c = qp.sqCursor();
        for (int n = 0; n < c.size(); n++) {
            long offset = (long) c.index() * SqWqe.QUANTUM;
            if (!qp.sqRing().holds(offset)) {
                return false;
            }
            long gpa = qp.sqRing().address(offset);
            int r = memory.find(gpa, SqWqe.QUANTUM);
            if (r < 0) {
                return false;
            }
            sq.wrap(memory.store(r), memory.offset(r, gpa), SqWqe.QUANTUM);
            if (sq.valid() != c.polarity()) {
                return false;
            }
            int index = c.index();
            int quanta = Math.max(1, sq.quanta());
            for (int i = 0; i < quanta; i++) {
                c.advance();
            }
            if (sq.opcode() != SqOpcode.NOP.code()) {
                completions.sq(qp, index, sq.opcode(), major, minor);
                return true;
            }
        }
        return false;
    }

    boolean flushRq(QueuePair qp, int major, int minor) {
        RingCursor c = qp.rqCursor();
        long offset = (long) c.index() * RqWqe.MIN_SIZE;
        if (!qp.rqRing().holds(offset)) {
            return false;
        }
        long gpa = qp.rqRing().address(offset);
        int r = memory.find(gpa, RqWqe.MIN_SIZE);
        if (r < 0 || rq.wrap(memory.store(r), memory.offset(r, gpa), RqWqe.MIN_SIZE).valid() != c.polarity()) {
            return false;
        }
        completions.rq(qp, c.index(), 0, 0, false, false, major, minor);
        return true;
    }
}
