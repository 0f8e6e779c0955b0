package dev.irdmaemu.cm;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM's own TCP segments and their retransmission: building a segment (header, options, MPA frame), sending it
 * through the node's address handle, the node's send entry that keeps a frame and resends it with back-off until
 * answered, and what happens when the peer stops answering. After irdma cm.c irdma_form_ah_cm_frame,
 * irdma_send_syn, irdma_send_ack, irdma_send_fin, irdma_send_reset, irdma_schedule_cm_timer (for a send),
 * irdma_free_retrans_entry, irdma_cm_timer_tick (the send entries) and irdma_retrans_expired.
 */
final class SegmentSender {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    private final ConnectionManager cm;
    private final CmHardwarePort port;
    private final TcpHeader.Builder txTcp = new TcpHeader.Builder();
    /** The TCP header length (with options) of the segment {@link #buildFrame} built last. */
    private int builtHeaderLength;
    private final BytesStore<?, ?> scratch = BytesStore.wrap(new byte[CmNode.FRAME_CAPACITY]);
    private long retransmissions;
    private long framesWithoutAh;

    SegmentSender(ConnectionManager cm) {
        this.cm = cm;
        this.port = cm.port();
    }

    /** A buffer for a frame that is sent (or copied) at once and not kept. */
    BytesStore<?, ?> scratch() {
        return scratch;
    }

    /**
     * Builds one CM segment for {@code n} into {@code out} at 0 (cm.c irdma_form_ah_cm_frame: TCP header, options,
     * MPA frame; the device adds the rest and the checksums) and advances the node's send sequence the way cm.c
     * does: SYN and FIN count one, data its length; ACK carries rcv_nxt. Returns the segment length; the header
     * length is left in {@link #builtHeaderLength}.
     */
    int buildFrame(CmNode n, BytesStore<?, ?> out, int flags, boolean mpa, boolean request, boolean reject,
                   BytesStore<?, ?> pd, int pdLength) {
        int payload = 0;
        if (mpa) {
            payload = MpaFrame.HEADER_SIZE + (n.mpaRevision == 2 ? MpaFrame.RTR_SIZE : 0) + pdLength;
        }
        TcpHeader.Builder t = txTcp.reset().ports(n.key.localPort, n.key.remotePort)
                .sequenceNumber(n.locSeq).window((int) Math.min(0xffff, n.rcvWnd));
        if ((flags & TcpHeader.ACK) != 0) {
            n.locAck = n.rcvNxt;
            t.acknowledgmentNumber(n.locAck);
        }
        if ((flags & TcpHeader.SYN) != 0) {
            // cm.c irdma_send_syn: MSS, window scale and EOL, back to back, nothing else
            t.mss(n.mss).windowScale(n.rcvWscale).packedWithEndOfList(true);
            n.locSeq = n.locSeq + 1 & 0xffff_ffffL;
        } else {
            n.locSeq = n.locSeq + payload & 0xffff_ffffL;
        }
        if ((flags & TcpHeader.FIN) != 0) {
            n.locSeq = n.locSeq + 1 & 0xffff_ffffL;
        }
        t.flags(flags);
        int header = t.write(out, 0);
        builtHeaderLength = header;
        if (mpa) {
            cm.mpa.buildMpaFrame(n, out, header, request, reject, pd, pdLength);
        }
        return header + payload;
    }

    /**
     * Sends a built segment through the node's AH. Without one (freed at RTS, or never created) cm.c
     * irdma_form_ah_cm_frame answers "AH invalid" and nothing goes out.
     */
    private void transmit(CmNode n, BytesStore<?, ?> segment, int length, int headerLength) {
        if (n.ah < 0 || !n.ahValid) {
            framesWithoutAh++;
            LOG.debug("no AH for {}: segment not sent", n);
            return;
        }
        port.transmit(n.ah, segment, 0, length, headerLength);
    }

    /** cm.c irdma_send_syn: SYN (with ACK on the passive side), retransmitted until answered. */
    void sendSyn(CmNode n, boolean withAck) {
        int len = buildFrame(n, n.sendFrame, TcpHeader.SYN | (withAck ? TcpHeader.ACK : 0), false, false, false,
                null, 0);
        scheduleSend(n, len, true, false);
    }

    /** cm.c irdma_send_ack: sent once, not kept. */
    void sendAck(CmNode n) {
        int len = buildFrame(n, scratch, TcpHeader.ACK, false, false, false, null, 0);
        transmit(n, scratch, len, builtHeaderLength);
    }

    /** cm.c irdma_send_fin: FIN+ACK, retransmitted until answered. */
    void sendFin(CmNode n) {
        int len = buildFrame(n, n.sendFrame, TcpHeader.ACK | TcpHeader.FIN, false, false, false, null, 0);
        scheduleSend(n, len, true, false);
    }

    /**
     * cm.c irdma_send_reset: RST+ACK, sent once, and the node gives up one reference when it is out (callers that
     * keep the node take one first).
     */
    void sendReset(CmNode n) {
        int len = buildFrame(n, scratch, TcpHeader.RST | TcpHeader.ACK, false, false, false, null, 0);
        transmit(n, scratch, len, builtHeaderLength);
        cm.table.release(n);
    }

    /**
     * cm.c irdma_schedule_cm_timer for a send: the frame in the node's send buffer, {@code length} bytes built
     * last, goes out now; with retransmission it is kept and resent with back-off until answered; the pending
     * entry holds a reference on the node.
     */
    void scheduleSend(CmNode n, int length, boolean retransmit, boolean closeWhenComplete) {
        clearSendEntry(n);
        CmNodeTable.retain(n);
        n.sendEntry = true;
        n.sendLength = length;
        n.sendHeaderLength = builtHeaderLength;
        n.sendRetransmits = retransmit;
        n.closeWhenComplete = closeWhenComplete;
        n.retransLeft = ConnectionManager.DEFAULT_RETRANS;
        n.retriesLeft = ConnectionManager.DEFAULT_RETRYS;
        if (n.ah >= 0 && !n.ahValid) {
            // cm.c irdma_form_ah_cm_frame: an AH not yet valid forms no frame. The entry is kept and goes out
            // when the AH's create completes (AddressHandles.created), so a passive node whose peer sent a FIN
            // before its AH was valid (SYN_RCVD to LAST_ACK) still sends its FIN, is retransmitted and closes,
            // instead of sitting in LAST_ACK with no timer for ever (HostileSegmentProperties, seed
            // 1517260993334010527).
            framesWithoutAh++;
            n.sendAwaitsAh = true;
            LOG.debug("AH {} of {} not valid yet: segment held for its completion", n.ah, n);
            return;
        }
        startSend(n);
    }

    /** The held entry's first transmission, then its retransmission timer (or its end, for a one-shot frame). */
    void startSend(CmNode n) {
        n.sendAwaitsAh = false;
        boolean retransmit = n.sendRetransmits;
        boolean closeWhenComplete = n.closeWhenComplete;
        transmit(n, n.sendFrame, n.sendLength, n.sendHeaderLength);
        if (!retransmit) {
            clearSendEntry(n);
            if (closeWhenComplete) {
                cm.table.release(n);
            }
            return;
        }
        n.retransmitTimer.scheduleIn(ConnectionManager.RETRY_TIMEOUT_NANOS);
    }

    /** cm.c irdma_free_retrans_entry. */
    void clearSendEntry(CmNode n) {
        if (!n.sendEntry) {
            return;
        }
        n.sendEntry = false;
        n.sendAwaitsAh = false;
        n.retransmitTimer.cancel();
        cm.table.release(n);
    }

    /** One expiry of a node's send entry (cm.c irdma_cm_timer_tick for that node). */
    void retransmitTimerExpired(CmNode n) {
        cm.events.enter();
        try {
            if (!n.sendEntry) {
                return;
            }
            CmNodeTable.retain(n);
            if (n.state == CmState.OFFLOADED || n.state == CmState.CLOSED) {
                clearSendEntry(n);
            } else if (n.retransLeft == 0 || n.retriesLeft == 0) {
                clearSendEntry(n);
                retransmissionsExhausted(n);
                n.state = CmState.CLOSED;
            } else {
                resend(n);
            }
            cm.table.release(n);
        } finally {
            cm.events.leave();
        }
    }

    /** The entry's frame again (unless the peer has it), then the next wait, doubled up to the maximum. */
    private void resend(CmNode n) {
        if (!n.ackReceived) {
            transmit(n, n.sendFrame, n.sendLength, n.sendHeaderLength);
            retransmissions++;
        }
        if (n.sendRetransmits) {
            n.retransLeft--;
            int doublings = ConnectionManager.DEFAULT_RETRANS - n.retransLeft;
            long wait = doublings >= 4 ? ConnectionManager.MAX_TIMEOUT_NANOS
                    : Math.min(ConnectionManager.RETRY_TIMEOUT_NANOS << doublings,
                    ConnectionManager.MAX_TIMEOUT_NANOS);
            n.retransmitTimer.scheduleIn(wait);
        } else {
            boolean closeAfter = n.closeWhenComplete;
            clearSendEntry(n);
            if (closeAfter) {
                cm.table.release(n);
            }
        }
    }

    /** cm.c irdma_retrans_expired: the peer stopped answering. */
    private void retransmissionsExhausted(CmNode n) {
        CmState was = n.state;
        n.state = CmState.CLOSED;
        switch (was) {
            case SYN_RCVD, CLOSING -> cm.table.release(n);
            case FIN_WAIT1, LAST_ACK -> sendReset(n);
            default -> {
                CmNodeTable.retain(n);
                sendReset(n);
                n.failure = CmReason.RETRIES_EXHAUSTED;
                cm.events.post(n, CmEvents.Work.ABORTED);
            }
        }
    }

    long retransmissions() {
        return retransmissions;
    }

    long framesWithoutAh() {
        return framesWithoutAh;
    }
}
