package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.roce.rc.RcReceiveQueue;
import dev.irdmaemu.model.roce.rc.ReceiveWqe;
import dev.irdmaemu.model.roce.rc.ScatterGatherList;

/**
 * An RC QP's receive queue as the RC responder takes from it: the RQ WQE at the device's RQ position, read as
 * irdma posts it (uk.c irdma_uk_post_receive: the fragments, ADDFRAGCNT and the valid bit in quadword 3), its
 * fragments handed over with their STags, its work request id the WQE's first quantum (the index the RQ CQE
 * carries in IRDMA_CQ_WQEIDX, which uk.c divides by rq_wqe_size_multiplier). A WQE not posted, malformed or outside
 * mapped memory is no WQE: the responder answers RNR NAK. The cursor moves only when the message completes, so a
 * WQE still at the position when the QP errs is flushed by Flush WQEs. Allocation-free; one per RC QP.
 */
final class RcReceiveRing implements RcReceiveQueue {
    private final HostMemory memory;
    private final RqWqe wqe = new RqWqe();
    private QueuePair qp;
    private int wqeBytes = RqWqe.MIN_SIZE;

    RcReceiveRing(HostMemory memory) {
        this.memory = memory;
    }

    /** The QP and its RQ WQE size (32 << IRDMAQPC_RQWQESIZE) after a context load. */
    void bind(QueuePair queuePair, int rqWqeBytes) {
        qp = queuePair;
        wqeBytes = Math.max(RqWqe.MIN_SIZE, Math.min(RqWqe.MAX_SIZE, rqWqeBytes));
    }

    @Override
    public boolean peek(ReceiveWqe into) {
        RingCursor rq = qp.rqCursor();
        long offset = (long) rq.index() * RqWqe.MIN_SIZE;
        if (!qp.rqRing().holds(offset)) {
            return false;
        }
        long gpa = qp.rqRing().address(offset);
        int r = memory.find(gpa, wqeBytes);
        if (r < 0) {
            return false;
        }
        wqe.wrap(memory.store(r), memory.offset(r, gpa), wqeBytes);
        if (!wqe.validate(rq.polarity(), wqeBytes).accepted()) {
            return false;
        }
        ScatterGatherList sges = into.reset(rq.index());
        int slots = Math.min(wqe.fragmentSlots(), ScatterGatherList.MAX);
        for (int s = 0; s < slots; s++) {
            long len = wqe.fragmentLength(s);
            if (len > 0 && !sges.add(wqe.fragmentAddress(s), (int) Math.min(len, Integer.MAX_VALUE),
                    wqe.fragmentStag(s))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void consume() {
        RingCursor rq = qp.rqCursor();
        int quanta = wqeBytes / RqWqe.MIN_SIZE;
        for (int i = 0; i < quanta; i++) {
            rq.advance();
        }
    }
}
