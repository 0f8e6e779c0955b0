package dev.irdmaemu.model.roce.rc;

/**
 * The SQ work requests the RC requester holds from posting to completion, in a preallocated ring (rxe keeps them
 * in the SQ itself: rxe_queue.h, with rxe_send_wqe's first_psn / last_psn / state). Three positions run through it
 * in order: {@code head} (the oldest not completed: completions leave from here, in posting order),
 * {@code numbered} (slots before it have their PSNs: first PSN and packet count) and {@code tail} (the next free
 * slot). Per slot: the request, its PSNs, and for a READ the response packets placed so far.
 */
final class SendSlots {
    private final int mask;
    final SendOpcode[] opcode;
    final long[] workRequestId;
    final boolean[] signaled;
    final boolean[] solicited;
    final int[] immediate;
    final int[] invalidateKey;
    final long[] remoteAddress;
    final int[] remoteKey;
    final int[] length;
    final ScatterGatherList[] buffers;
    final int[] firstPsn;
    final int[] packets;
    /** READ: response packets placed. */
    final int[] received;
    long head;
    long numbered;
    long tail;

    SendSlots(int capacity) {
        int n = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        mask = n - 1;
        opcode = new SendOpcode[n];
        workRequestId = new long[n];
        signaled = new boolean[n];
        solicited = new boolean[n];
        immediate = new int[n];
        invalidateKey = new int[n];
        remoteAddress = new long[n];
        remoteKey = new int[n];
        length = new int[n];
        buffers = new ScatterGatherList[n];
        firstPsn = new int[n];
        packets = new int[n];
        received = new int[n];
        for (int i = 0; i < n; i++) {
            buffers[i] = new ScatterGatherList();
        }
    }

    int capacity() {
        return mask + 1;
    }

    int index(long position) {
        return (int) position & mask;
    }

    boolean full() {
        return tail - head == capacity();
    }

    boolean empty() {
        return head == tail;
    }

    /** Copies {@code r} into the tail slot; the caller checked {@link #full()} and the length. */
    void append(SendRequest r) {
        int i = index(tail);
        opcode[i] = r.opcode;
        workRequestId[i] = r.workRequestId;
        signaled[i] = r.signaled;
        solicited[i] = r.solicited;
        immediate[i] = r.immediate;
        invalidateKey[i] = r.invalidateKey;
        remoteAddress[i] = r.remoteAddress;
        remoteKey[i] = r.remoteKey;
        length[i] = (int) r.buffers().totalLength();
        buffers[i].copyFrom(r.buffers());
        received[i] = 0;
        tail++;
    }

    /** Gives the next slot its PSNs: one per path-MTU packet, at least one (a READ's responses reuse them). */
    int number(int psn, int mtu) {
        int i = index(numbered);
        firstPsn[i] = psn;
        packets[i] = Math.max(1, (int) ((length[i] + (long) mtu - 1) / mtu));
        numbered++;
        return Psn.add(psn, packets[i]);
    }

    int lastPsn(int i) {
        return Psn.add(firstPsn[i], packets[i] - 1);
    }

    /** The position in [head, numbered) whose PSNs hold {@code psn}, or {@code numbered} when none does. */
    long find(int psn) {
        for (long p = head; p < numbered; p++) {
            int i = index(p);
            int d = Psn.diff(psn, firstPsn[i]);
            if (d >= 0 && d < packets[i]) {
                return p;
            }
        }
        return numbered;
    }

    /** READs in [head, end) whose responses are not all placed. */
    int readsOutstanding(long end) {
        int n = 0;
        for (long p = head; p < end; p++) {
            int i = index(p);
            if (opcode[i].isRead() && received[i] < packets[i]) {
                n++;
            }
        }
        return n;
    }
}
