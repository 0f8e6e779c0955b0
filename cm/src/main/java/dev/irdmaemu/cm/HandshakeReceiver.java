package dev.irdmaemu.cm;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive path of the setup phase: a frame the ILQ delivers is checked, matched to its node (or, a SYN, to a
 * listener that makes one) and handled by the TCP state machine of cm.c, kind by kind: SYN, SYN-ACK, ACK (with
 * the MPA frame it may carry, handed to {@link MpaExchange}), FIN, RST. After irdma cm.c irdma_receive_ilq,
 * irdma_process_pkt, irdma_handle_syn_pkt, irdma_handle_synack_pkt, irdma_handle_ack_pkt, irdma_handle_fin_pkt,
 * irdma_handle_rst_pkt, irdma_check_seq, irdma_check_syn, irdma_handle_tcp_options and irdma_process_options.
 * A segment for an existing node allocates nothing.
 */
final class HandshakeReceiver {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    private final ConnectionManager cm;
    private final TcpPacket rx = new TcpPacket();
    private final FourTuple probe = new FourTuple();
    private long backlogDrops;
    private long framesRefused;

    HandshakeReceiver(ConnectionManager cm) {
        this.cm = cm;
    }

    /** cm.c irdma_receive_ilq: one frame the quad hash steered to the CM. */
    void receive(BytesStore<?, ?> frame, long offset, int length) {
        cm.events.enter();
        try {
            if (!rx.wrap(frame, offset, length).validate().accepted()) {
                framesRefused++;
                return;
            }
            TcpHeader tcp = rx.tcp();
            int tag = rx.vlanId();
            int vlan = tag < 0 ? CmNode.NO_VLAN : tag;
            probe.set(rx.destinationHi(), rx.destinationLo(), tcp.destinationPort(),
                    rx.sourceHi(), rx.sourceLo(), tcp.sourcePort(), vlan);
            CmNode n = cm.table.find(probe);
            if (n == null) {
                n = passiveNode(tcp, vlan);
                if (n == null) {
                    return;
                }
            } else if (n.state == CmState.OFFLOADED) {
                return;
            }
            CmNodeTable.retain(n);
            processSegment(n, tcp);
            cm.table.release(n);
        } finally {
            cm.events.leave();
        }
    }

    /**
     * A segment for no node: only a passive open (SYN without ACK) to a listener makes one (cm.c
     * irdma_make_cm_node for the listener), in LISTENING; null when none is made.
     */
    private CmNode passiveNode(TcpHeader tcp, int vlan) {
        if (!tcp.syn() || tcp.ack()) {
            return null;
        }
        boolean ipv4 = !rx.isIpv6();
        CmListener l = cm.listeners.find(ipv4, probe.localHi, probe.localLo, probe.localPort, vlan, false);
        if (l == null) {
            return null;
        }
        l.references++;
        int tos = ipv4 ? rx.ipv4().tos() : rx.ipv6().trafficClass();
        // cm.c irdma_make_cm_node: the higher of the listener's and the peer's TOS decides the priority
        int nodeTos = Math.max(l.tos, tos);
        CmNode n = cm.table.makeNode(probe.copy(), ipv4, false, l, nodeTos,
                cm.table.userPriority(ipv4, probe.localHi, probe.localLo, nodeTos));
        if (n == null) {
            cm.listeners.release(l, true);
            return null;
        }
        n.handler = l.handler;
        if (tcp.rst() || tcp.fin()) {
            cm.table.release(n);
            return null;
        }
        n.state = CmState.LISTENING;
        return n;
    }

    /** cm.c irdma_process_pkt: classify by flags, then the handler of that kind. */
    private void processSegment(CmNode n, TcpHeader tcp) {
        if (tcp.rst()) {
            handleReset(n);
        } else if (tcp.syn()) {
            if (tcp.ack()) {
                handleSynAck(n, tcp);
            } else {
                handleSyn(n, tcp);
            }
        } else if (tcp.ack()) {
            boolean ok = handleAck(n, tcp);
            if (tcp.fin() && ok) {
                handleFin(n);
            }
        } else if (tcp.fin() && sequenceAcceptable(n, tcp)) {
            handleFin(n);
        }
    }

    /** cm.c irdma_handle_syn_pkt: a SYN on the passive side (or a bad one on an active open). */
    private void handleSyn(CmNode n, TcpHeader tcp) {
        switch (n.state) {
            case SYN_SENT, MPAREQ_SENT -> cm.openErrors.active(n, true, CmReason.PROTOCOL_ERROR);
            case LISTENING -> synToListener(n, tcp);
            case CLOSED -> {
                cm.sender.clearSendEntry(n);
                CmNodeTable.retain(n);
                cm.sender.sendReset(n);
            }
            default -> {
                // cm.c ignores a SYN in every other state
            }
        }
    }

    /** cm.c irdma_handle_syn_pkt in LISTENING: the backlog, the peer's options, the node's AH; then SYN_RCVD. */
    private void synToListener(CmNode n, TcpHeader tcp) {
        CmListener l = n.listener;
        if (l.pendingAccepts > l.backlog) {
            backlogDrops++;
            cm.openErrors.passive(n, false, CmReason.BACKLOG_FULL, null);
            return;
        }
        if (!applyTcpOptions(n, tcp)) {
            // irdma_handle_tcp_options resets the peer (passive_open_err with reset)
            cm.openErrors.passive(n, true, CmReason.PROTOCOL_ERROR, null);
            return;
        }
        // cm.c irdma_handle_syn_pkt: irdma_cm_create_ah(cm_node, false): the AH is posted, not waited
        // for; its completion (irdma_ilq_ah_cb, AddressHandles.created) adds the established qhash entry
        // (irdma_add_conn_est_qh), whose completion sends the SYN-ACK
        if (!cm.ahs.createNoWait(n)) {
            cm.openErrors.passive(n, false, CmReason.LOCAL_ABORT, null);
            return;
        }
        n.rcvNxt = tcp.sequenceNumber() + 1 & 0xffff_ffffL;
        n.acceptPending = true;
        l.pendingAccepts++;
        n.state = CmState.SYN_RCVD;
    }

    /** cm.c irdma_handle_synack_pkt: the active side's answer to its SYN. */
    private void handleSynAck(CmNode n, TcpHeader tcp) {
        switch (n.state) {
            case SYN_SENT -> {
                cm.sender.clearSendEntry(n);
                // cm.c irdma_check_syn: the SYN-ACK must acknowledge exactly our SYN
                if (tcp.acknowledgmentNumber() != n.locSeq) {
                    cm.openErrors.active(n, true, CmReason.PROTOCOL_ERROR);
                    return;
                }
                n.remAck = tcp.acknowledgmentNumber();
                if (!applyTcpOptions(n, tcp)) {
                    cm.openErrors.active(n, true, CmReason.PROTOCOL_ERROR);
                    return;
                }
                n.rcvNxt = tcp.sequenceNumber() + 1 & 0xffff_ffffL;
                cm.sender.sendAck(n);
                cm.mpa.sendRequest(n);
                n.state = CmState.MPAREQ_SENT;
            }
            case MPAREQ_RCVD -> cm.openErrors.passive(n, true, CmReason.PROTOCOL_ERROR, null);
            case LISTENING -> {
                n.locSeq = tcp.acknowledgmentNumber();
                cm.sender.clearSendEntry(n);
                n.state = CmState.CLOSED;
                cm.sender.sendReset(n);
            }
            case CLOSED -> {
                n.locSeq = tcp.acknowledgmentNumber();
                cm.sender.clearSendEntry(n);
                CmNodeTable.retain(n);
                cm.sender.sendReset(n);
            }
            default -> {
            }
        }
    }

    /** cm.c irdma_handle_ack_pkt; false when the sequence check fails (the FIN it may carry is then ignored too). */
    private boolean handleAck(CmNode n, TcpHeader tcp) {
        if (!sequenceAcceptable(n, tcp)) {
            return false;
        }
        long seq = tcp.sequenceNumber();
        int dataLength = (int) rx.tcpPayloadLength();
        switch (n.state) {
            case SYN_RCVD -> {
                cm.sender.clearSendEntry(n);
                if (!applyTcpOptions(n, tcp)) {
                    cm.openErrors.passive(n, true, CmReason.PROTOCOL_ERROR, null);
                    return false;
                }
                n.remAck = tcp.acknowledgmentNumber();
                n.state = CmState.ESTABLISHED;
                mpaData(n, seq, dataLength);
            }
            case ESTABLISHED -> {
                cm.sender.clearSendEntry(n);
                mpaData(n, seq, dataLength);
            }
            case MPAREQ_SENT -> {
                n.remAck = tcp.acknowledgmentNumber();
                if (dataLength > 0) {
                    n.ackReceived = false;
                    mpaData(n, seq, dataLength);
                } else {
                    // the peer has our MPA request: keep the timer, stop resending (cm.c ack_rcvd)
                    n.ackReceived = true;
                }
            }
            default -> ackInOtherState(n);
        }
        return true;
    }

    /** The data an ACK carries in the MPA states: taken in sequence and handed to the MPA exchange. */
    private void mpaData(CmNode n, long seq, int dataLength) {
        if (dataLength > 0) {
            n.rcvNxt = seq + dataLength & 0xffff_ffffL;
            cm.mpa.received(n, rx.store(), rx.offset() + rx.tcpPayloadOffset(), dataLength);
        }
    }

    /** cm.c irdma_handle_ack_pkt outside the MPA states. */
    private void ackInOtherState(CmNode n) {
        switch (n.state) {
            case LISTENING -> {
                cm.sender.clearSendEntry(n);
                n.state = CmState.CLOSED;
                cm.sender.sendReset(n);
            }
            case CLOSED -> {
                cm.sender.clearSendEntry(n);
                CmNodeTable.retain(n);
                cm.sender.sendReset(n);
            }
            case LAST_ACK, CLOSING -> {
                cm.sender.clearSendEntry(n);
                n.state = CmState.CLOSED;
                cm.table.release(n);
            }
            case SYN_SENT -> {
                // RFC 9293 3.10.7.3, SYN-SENT: a segment with neither SYN nor RST is dropped, and our SYN stays
                // queued for retransmission. cm.c's irdma_handle_ack_pkt frees the retransmission entry here,
                // which leaves the node in SYN_SENT with no timer for ever (see ConnectionManager's class comment)
            }
            case FIN_WAIT1 -> {
                cm.sender.clearSendEntry(n);
                n.state = CmState.FIN_WAIT2;
                // our FIN is acknowledged and nothing of ours is outstanding: without a timer a peer that never
                // sends its FIN would keep the node for ever (see ConnectionManager's class comment)
                cm.closeEntries.arm(n, ConnectionManager.FIN_WAIT2_TIMEOUT_NANOS);
            }
            default -> cm.sender.clearSendEntry(n);
        }
    }

    /** cm.c irdma_handle_fin_pkt. */
    private void handleFin(CmNode n) {
        switch (n.state) {
            case SYN_RCVD, SYN_SENT, ESTABLISHED, MPAREJ_RCVD -> {
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                cm.sender.clearSendEntry(n);
                CloseEntries.cancel(n);
                n.state = CmState.LAST_ACK;
                cm.sender.sendFin(n);
            }
            case MPAREQ_SENT -> {
                n.failure = CmReason.PEER_CLOSED;
                cm.events.post(n, CmEvents.Work.ABORTED);
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                cm.sender.clearSendEntry(n);
                n.state = CmState.CLOSED;
                CmNodeTable.retain(n);
                cm.sender.sendReset(n);
            }
            case FIN_WAIT1 -> {
                // simultaneous close: wait for the ACK of our FIN, then the node goes. cm.c drops the
                // retransmission of our FIN here; we keep it, or a lost ACK would leave the node in CLOSING
                // forever (no timer, and cm.c ignores a RST in CLOSING). irdma_retrans_expired already has the
                // CLOSING case that then ends it.
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                n.state = CmState.CLOSING;
                cm.sender.sendAck(n);
            }
            case FIN_WAIT2 -> {
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                cm.sender.clearSendEntry(n);
                n.state = CmState.TIME_WAIT;
                cm.sender.sendAck(n);
                // the FIN_WAIT2 timeout gives way to TIME_WAIT's HZ/10
                cm.closeEntries.arm(n, ConnectionManager.CLOSE_DELAY_NANOS);
            }
            case TIME_WAIT -> {
                n.rcvNxt = n.rcvNxt + 1 & 0xffff_ffffL;
                cm.sender.clearSendEntry(n);
                n.state = CmState.CLOSED;
                cm.closeEntries.endAndRelease(n);
            }
            default -> LOG.debug("FIN ignored in {}", n);
        }
    }

    /** cm.c irdma_handle_rst_pkt. */
    private void handleReset(CmNode n) {
        cm.sender.clearSendEntry(n);
        switch (n.state) {
            case SYN_SENT, MPAREQ_SENT -> {
                if (n.mpaRevision == 2) {
                    // a peer that resets an MPA v2 attempt gets one more try with MPA v1
                    n.mpaRevision = 1;
                    n.state = CmState.SYN_SENT;
                    cm.sender.sendSyn(n, false);
                } else {
                    cm.openErrors.active(n, false, CmReason.PEER_RESET);
                }
            }
            case MPAREQ_RCVD -> n.passiveState++;
            case ESTABLISHED, SYN_RCVD, LISTENING -> cm.openErrors.passive(n, false, CmReason.PEER_RESET, null);
            case OFFLOADED -> cm.openErrors.active(n, false, CmReason.PEER_RESET);
            case FIN_WAIT2, FIN_WAIT1, LAST_ACK, TIME_WAIT, CLOSING -> {
                // cm.c leaves out CLOSING, after having dropped the node's retransmission above: the node would
                // then wait for ever; a reset ends it like the other closing states
                n.state = CmState.CLOSED;
                cm.closeEntries.endAndRelease(n);
            }
            default -> {
            }
        }
    }

    /**
     * cm.c irdma_check_seq: the segment must acknowledge everything we sent and start inside our receive window.
     * (A failure is not answered; the segment is dropped.)
     */
    private static boolean sequenceAcceptable(CmNode n, TcpHeader tcp) {
        long seq = tcp.sequenceNumber();
        if (tcp.acknowledgmentNumber() != n.locSeq) {
            return false;
        }
        // kernel between(seq, rcv_nxt, rcv_nxt + rcv_wnd) in 32-bit sequence space
        long offset = seq - n.rcvNxt & 0xffff_ffffL;
        return offset <= n.rcvWnd;
    }

    /**
     * cm.c irdma_handle_tcp_options / irdma_process_options: the peer's MSS (never raising ours, refused when it
     * would make an MTU below the minimum), its window scale, and the send window.
     */
    private static boolean applyTcpOptions(CmNode n, TcpHeader tcp) {
        boolean hasOptions = tcp.headerLength() > TcpHeader.MIN_HEADER_LENGTH;
        if (hasOptions) {
            if (tcp.hasMss()) {
                int mss = tcp.mss();
                if (n.ipv4 ? mss + ConnectionManager.MTU_TO_MSS_IPV4 < ConnectionManager.MIN_MTU_IPV4
                        : mss + ConnectionManager.MTU_TO_MSS_IPV6 < ConnectionManager.MIN_MTU_IPV6) {
                    return false;
                }
                if (mss < n.mss) {
                    n.mss = mss;
                }
            } else if (tcp.syn()) {
                n.mss = ConnectionManager.DEFAULT_MSS;
            }
            if (tcp.hasWindowScale()) {
                // RFC 7323 §2.3: a shift above 14 is used as 14
                n.sndWscale = tcp.windowScale();
            }
        }
        n.sndWnd = (long) tcp.window() << n.sndWscale;
        if (n.sndWnd > n.maxSndWnd) {
            n.maxSndWnd = n.sndWnd;
        }
        return true;
    }

    long backlogDrops() {
        return backlogDrops;
    }

    long framesRefused() {
        return framesRefused;
    }
}
