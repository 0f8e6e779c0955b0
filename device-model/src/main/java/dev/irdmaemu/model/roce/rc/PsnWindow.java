package dev.irdmaemu.model.roce.rc;

/**
 * The requester's three PSN positions (IBA Vol. 1 §9.7.2; rxe's qp->req.psn and qp->comp.psn): {@code next}, the
 * PSN of the next packet to send (moved back by a go-back-N retry); {@code high}, one past the highest PSN ever
 * sent; {@code unacked}, the oldest PSN not yet acknowledged. Packets in flight are [unacked, high); an ACK, NAK or
 * response outside them is stale or hostile.
 */
final class PsnWindow {
    int next;
    int high;
    int unacked;

    void reset(int psn) {
        next = psn;
        high = psn;
        unacked = psn;
    }

    /** True when sent packets wait for their acknowledgement. */
    boolean outstanding() {
        return unacked != high;
    }

    /** Packets from the oldest unacknowledged one to the next to send. */
    int inFlight() {
        return Psn.diff(next, unacked);
    }

    /** True when {@code psn} is a packet in flight. */
    boolean contains(int psn) {
        return Psn.diff(psn, unacked) >= 0 && Psn.diff(psn, high) < 0;
    }

    /** True when an ACK for {@code psn} may come: a packet in flight or the last one acknowledged. */
    boolean acknowledges(int psn) {
        return Psn.diff(psn, unacked) >= -1 && Psn.diff(psn, high) < 0;
    }

    /** Packets through {@code lastPsn} went out; answers whether {@code psn} had gone out before (a resend). */
    boolean sent(int psn, int lastPsn) {
        boolean resend = Psn.diff(psn, high) < 0;
        if (Psn.diff(lastPsn, high) >= 0) {
            high = Psn.add(lastPsn, 1);
        }
        next = Psn.add(lastPsn, 1);
        return resend;
    }

    /** Everything through {@code psn} is acknowledged. */
    void acknowledged(int psn) {
        if (Psn.diff(psn, unacked) >= 0) {
            unacked = Psn.add(psn, 1);
        }
    }
}
