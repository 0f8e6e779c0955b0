package dev.irdmaemu.model.roce.rc;

/**
 * The RC transport's counters: every received frame by its {@link RcReceipt}, and what was sent (packets,
 * retransmitted packets, ACKs, NAKs, RNR NAKs, READ responses), timeouts and RNR waits. They feed GATHER_STATS
 * (irdma/icrdma_hw.c counter layout) and stand for rxe_hw_counters.c's duplicate_request, out_of_seq_request,
 * rcvd_rnr_err, send_rnr_err, retry_exceeded_err. Plain longs, one writer.
 */
public final class RcCounters {
    private final long[] received = new long[RcReceipt.values().length];
    long framesSent;
    long requestPacketsSent;
    long packetsRetransmitted;
    long acksSent;
    long naksSent;
    long rnrNaksSent;
    long readResponsesSent;
    long timeouts;
    long rnrWaits;
    long sendsCompleted;
    long receivesCompleted;

    RcReceipt count(RcReceipt r) {
        received[r.ordinal()]++;
        return r;
    }

    public long received(RcReceipt r) {
        return received[r.ordinal()];
    }

    /** Every frame handed to the engine. */
    public long receivedTotal() {
        long n = 0;
        for (long v : received) {
            n += v;
        }
        return n;
    }

    public long framesSent() {
        return framesSent;
    }

    public long requestPacketsSent() {
        return requestPacketsSent;
    }

    public long packetsRetransmitted() {
        return packetsRetransmitted;
    }

    public long acksSent() {
        return acksSent;
    }

    public long naksSent() {
        return naksSent;
    }

    public long rnrNaksSent() {
        return rnrNaksSent;
    }

    public long readResponsesSent() {
        return readResponsesSent;
    }

    public long timeouts() {
        return timeouts;
    }

    public long rnrWaits() {
        return rnrWaits;
    }

    public long sendsCompleted() {
        return sendsCompleted;
    }

    public long receivesCompleted() {
        return receivesCompleted;
    }
}
