package dev.irdmaemu.model.roce.rc;

/**
 * The requester's two timers and their counts (IBA Vol. 1 §9.7.6.1: the transport timer and the retry count,
 * §9.7.5.2.8: the RNR NAK timer and the RNR retry count; rxe_comp.c retransmit_timer / rnr_nak_timer and its
 * retry_cnt / rnr_retry bookkeeping). The retransmit timer runs while packets are in flight and restarts on every
 * progress; each expiry takes one retry, and progress restores both counts to the context's values. An RNR retry
 * count of 7 never runs out (IBA: infinite). Time is the caller's, in nanoseconds.
 */
final class RetryTimers {
    static final int INFINITE_RNR = 7;

    private final RcPath path;
    private int retriesLeft;
    private int rnrRetriesLeft;
    private long started;
    private boolean rnrWaiting;
    private long rnrUntil;
    private int rnrPsn;

    RetryTimers(RcPath path) {
        this.path = path;
    }

    void reset(long now) {
        retriesLeft = path.retryCount;
        rnrRetriesLeft = path.rnrRetry;
        rnrWaiting = false;
        started = now;
    }

    /** Acknowledged progress: the timer restarts and the counts are whole again. */
    void progress(long now) {
        started = now;
        retriesLeft = path.retryCount;
        rnrRetriesLeft = path.rnrRetry;
    }

    /** The timer restarts (first packet after idle, or a retransmission began). */
    void restart(long now) {
        started = now;
    }

    boolean timeoutDue(long now) {
        return now - started >= path.retransmitTimeoutNanos;
    }

    long timeoutAt() {
        return started + path.retransmitTimeoutNanos;
    }

    /** Takes one retry; false when none is left. */
    boolean takeRetry() {
        if (retriesLeft == 0) {
            return false;
        }
        retriesLeft--;
        return true;
    }

    /** Takes one RNR retry; false when none is left. */
    boolean takeRnrRetry() {
        if (path.rnrRetry == INFINITE_RNR) {
            return true;
        }
        if (rnrRetriesLeft == 0) {
            return false;
        }
        rnrRetriesLeft--;
        return true;
    }

    /** Holds transmission until {@code until}, then the requester resends from {@code psn}. */
    void rnrWait(long until, int psn) {
        rnrWaiting = true;
        rnrUntil = until;
        rnrPsn = psn;
    }

    boolean rnrWaiting() {
        return rnrWaiting;
    }

    boolean rnrDue(long now) {
        return rnrWaiting && now - rnrUntil >= 0;
    }

    long rnrUntil() {
        return rnrUntil;
    }

    /** Ends the wait; answers the PSN to resend from. */
    int rnrDone() {
        rnrWaiting = false;
        return rnrPsn;
    }
}
