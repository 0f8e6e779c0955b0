package dev.irdmaemu.model.roce.rc;

/**
 * The responder's RDMA READ resources (IBA Vol. 1 §9.7.5.1.3 and the IRD of §11.2.4.2; rxe_resp.c
 * rxe_prepare_res / find_resource): the last READ requests executed, up to the QP's IRD, each with its PSNs,
 * so that a duplicate READ (its responses were lost) is answered again from the same memory. A ring;
 * the oldest entry gives way. Preallocated; {@link #find} sets {@link #found()} instead of answering an index.
 */
final class ReadResources {
    static final int CAPACITY = 256;

    private final int[] psn = new int[CAPACITY];
    private final int[] packets = new int[CAPACITY];
    private int size;
    private int used;
    private int next;
    private int found;

    /** Empties the ring and keeps at most {@code ird} entries. */
    void reset(int ird) {
        size = Math.min(CAPACITY, Math.max(1, ird));
        used = 0;
        next = 0;
    }

    void record(int firstPsn, int count) {
        psn[next] = firstPsn;
        packets[next] = count;
        next = (next + 1) % size;
        used = Math.min(size, used + 1);
    }

    /** True when an entry's PSNs hold {@code p}; the entry is then {@link #found()}. */
    boolean find(int p) {
        for (int k = 0; k < used; k++) {
            int i = (next - 1 - k + size) % size;
            int d = Psn.diff(p, psn[i]);
            if (d >= 0 && d < packets[i]) {
                found = i;
                return true;
            }
        }
        return false;
    }

    int found() {
        return found;
    }

    /** The last PSN of entry {@code i}. */
    int lastPsn(int i) {
        return Psn.add(psn[i], packets[i] - 1);
    }
}
