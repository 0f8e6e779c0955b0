package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.roce.Aeth;
import dev.irdmaemu.fw.roce.NakCode;

/**
 * What the responder owes the requester (IBA Vol. 1 §9.7.5.1: ACK coalescing, one ACK may acknowledge every packet
 * before it; §9.7.5.2 NAKs): an ACK is owed after a packet with AckReq, after a message's last packet, after
 * {@value #COALESCE} packets without one, and for a duplicate (rxe_resp.c acknowledge / send_ack); it is sent once,
 * for the last PSN executed, by {@link #flush}, so a burst of packets draws one ACK. NAKs and RNR NAKs go out at
 * once and acknowledge what came before them; so do READ responses. Every AETH carries the MSN.
 */
final class ResponderAcks {
    static final int COALESCE = 16;

    private final RcFrameTransmitter tx;
    private final RcCounters counters;
    private boolean owed;
    private int since;

    ResponderAcks(RcFrameTransmitter tx, RcCounters counters) {
        this.tx = tx;
        this.counters = counters;
    }

    void reset() {
        owed = false;
        since = 0;
    }

    /** A packet was executed. */
    void executed(boolean ackRequest, boolean lastOfMessage) {
        since++;
        if (ackRequest || lastOfMessage || since >= COALESCE) {
            owed = true;
        }
    }

    /** A duplicate: the ACK is sent again. */
    void owe() {
        owed = true;
    }

    /** Something went out that acknowledges all executed packets (READ responses, a NAK). */
    void covered() {
        owed = false;
        since = 0;
    }

    boolean owed() {
        return owed;
    }

    /** Sends the owed ACK for {@code lastPsn}; answers whether one went out. */
    boolean flush(int lastPsn, int msn) {
        if (!owed) {
            return false;
        }
        tx.acknowledge(RcFrameTransmitter.ackSyndrome(), lastPsn, msn);
        counters.acksSent++;
        covered();
        return true;
    }

    void nak(NakCode code, int psn, int msn) {
        tx.acknowledge(Aeth.nakSyndrome(code), psn, msn);
        counters.naksSent++;
        covered();
    }

    void rnrNak(int timerCode, int psn, int msn) {
        tx.acknowledge(Aeth.rnrNakSyndrome(timerCode), psn, msn);
        counters.rnrNaksSent++;
        covered();
    }
}
