package dev.irdmaemu.model.roce.rc;

import java.util.ArrayDeque;

/** An RQ for the tests: posted WQEs (id, one fragment) in order; counts peeks that found it empty. */
final class TestReceiveQueue implements RcReceiveQueue {
    private record Posted(long wrId, long address, int length, int lkey) {
    }

    private final ArrayDeque<Posted> posted = new ArrayDeque<>();
    int emptyPeeks;
    int consumed;

    void post(long wrId, long address, int length, int lkey) {
        posted.add(new Posted(wrId, address, length, lkey));
    }

    int size() {
        return posted.size();
    }

    @Override
    public boolean peek(ReceiveWqe into) {
        Posted p = posted.peek();
        if (p == null) {
            emptyPeeks++;
            return false;
        }
        into.reset(p.wrId()).add(p.address(), p.length(), p.lkey());
        return true;
    }

    @Override
    public void consume() {
        posted.remove();
        consumed++;
    }
}
