package dev.irdmaemu.cm.hw;

import dev.irdmaemu.cm.FourTuple;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.ArrayDeque;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The TCP a QP runs after the hand-off, as little of it as the CM's tests need (the device model replaces it):
 * it starts from the {@link TcpOffloadContext}, sends its first message (the passive side's LSMM, the MPA reply;
 * the active side's RTR, a zero-length RDMA Read Request or RDMA Write FPDU), acknowledges in-order data, closes
 * with FIN (RFC 9293 §3.6) or RST, and retransmits its one outstanding segment with a doubling timeout. What it
 * learns about the connection it reports as {@link QpEvent}s, asynchronously, as the device's AEQ would.
 */
final class OffloadedConnection {
    /** First retransmission timeout of the offloaded TCP. */
    static final long RTO_NANOS = 200_000_000L;
    /** irdma_init_tcp_ctx programs rexmit_thresh IRDMA_DEFAULT_REXMIT_THRESH (8). */
    private final int rexmitThreshold;

    private enum State { ESTABLISHED, FIN_WAIT_1, FIN_WAIT_2, CLOSING, CLOSE_WAIT, LAST_ACK, CLOSED }

    private final OffloadEngine device;
    final int qpn;
    final FourTuple quad;
    private final TcpOffloadContext ctx;
    /** The first message, kept until acknowledged (retransmission); at most an MPA reply with 512 bytes. */
    private final BytesStore<?, ?> message = BytesStore.wrap(new byte[MESSAGE_CAPACITY]);
    private static final int MESSAGE_CAPACITY = 640;
    private final SimTimer retransmit;
    private final SimTimer aeq;
    private final ArrayDeque<QpEvent> events = new ArrayDeque<>();
    private State state = State.ESTABLISHED;
    private long sndUna;
    private long sndNxt;
    private long rcvNxt;
    private int messageLength;
    private boolean messagePending;
    private boolean finPending;
    private boolean finSent;
    private int tries;
    private boolean destroyed;
    /** RTS-AE emulation: the first message was acknowledged, the peer's first FPDU arrived, ESTABLISHED raised. */
    private final boolean passive;
    private boolean firstMessageAcked;
    private boolean peerFpduSeen;
    private boolean establishedRaised;

    OffloadedConnection(OffloadEngine device, int qpn, FourTuple quad, TcpOffloadContext ctx,
                        MpaOutcome mpa) {
        this.device = device;
        this.qpn = qpn;
        this.quad = quad;
        this.ctx = ctx;
        this.rexmitThreshold = ctx.rexmitThresh();
        this.sndUna = ctx.sndUna();
        this.sndNxt = ctx.sndNxt();
        this.rcvNxt = ctx.rcvNxt();
        this.retransmit = device.scheduler().newTimer("qp-rexmit", this::retransmitExpired);
        this.aeq = device.scheduler().newTimer("qp-aeq", this::drainEvents);
        this.passive = mpa.lsmmLength() > 0;
        if (mpa.lsmmLength() > 0) {
            byte[] lsmm = mpa.lsmm();
            message.write(0, lsmm, 0, lsmm.length);
            messageLength = lsmm.length;
            messagePending = true;
        } else if (mpa.sendsRtr()) {
            IwarpFrame iwarp = device.iwarpWriter();
            // RFC 6581 §4: the RTR is a zero-length RDMA Read Request or RDMA Write; CRC always on (irdma)
            messageLength = mpa.rtrType() == Rdma0.READ
                    ? iwarp.writeReadRequest(message, 0, message.capacity(), 1, 0, 0, 0, 0, 0, true)
                    : iwarp.writeTagged(message, 0, message.capacity(), RdmapOpcode.CODE_RDMA_WRITE, true, 0, 0,
                            null, 0, 0, true);
            messagePending = true;
        }
    }

    void start() {
        sendOutstanding();
    }

    int pendingTimers() {
        return (retransmit.isPending() ? 1 : 0) + (aeq.isPending() ? 1 : 0);
    }

    void close(boolean abortive) {
        if (destroyed || state == State.CLOSED) {
            return;
        }
        if (abortive) {
            sendSegment(TcpHeader.RST | TcpHeader.ACK, sndNxt, 0);
            enterClosed();
            raise(QpEvent.RESET_SENT);
            return;
        }
        switch (state) {
            case ESTABLISHED -> state = State.FIN_WAIT_1;
            case CLOSE_WAIT -> state = State.LAST_ACK;
            default -> {
                return;
            }
        }
        finPending = true;
        if (sndUna == sndNxt) {
            sendOutstanding();
        }
    }

    void destroy() {
        destroyed = true;
        retransmit.cancel();
        aeq.cancel();
        events.clear();
    }

    /** A validated segment for this QP's four-tuple. */
    void segment(TcpPacket rx) {
        if (destroyed || state == State.CLOSED) {
            return;
        }
        TcpHeader tcp = rx.tcp();
        long seq = tcp.sequenceNumber();
        if (tcp.rst()) {
            // RFC 9293 §3.10.7.4 (simplified): a reset inside the window ends the connection
            if (inWindow(seq)) {
                enterClosed();
                raise(QpEvent.CONNECTION_RESET);
            }
            return;
        }
        if (tcp.syn()) {
            sendAck();
            return;
        }
        if (tcp.ack()) {
            acknowledge(tcp.acknowledgmentNumber());
        }
        int len = (int) rx.tcpPayloadLength();
        long delta = seq - rcvNxt & 0xffff_ffffL;
        if (delta != 0 && (len > 0 || tcp.fin())) {
            // out of order or a retransmission of what we have: say where we are
            sendAck();
            return;
        }
        boolean advanced = false;
        if (len > 0) {
            rcvNxt = rcvNxt + len & 0xffff_ffffL;
            advanced = true;
            peerFpduSeen = true;
            maybeEstablished();
        }
        if (tcp.fin()) {
            rcvNxt = rcvNxt + 1 & 0xffff_ffffL;
            advanced = true;
            switch (state) {
                case ESTABLISHED -> {
                    state = State.CLOSE_WAIT;
                    raise(QpEvent.FIN_RECEIVED);
                }
                case FIN_WAIT_1 -> state = State.CLOSING;
                case FIN_WAIT_2 -> {
                    enterClosed();
                    raise(QpEvent.CLOSE_COMPLETE);
                }
                default -> {
                }
            }
        }
        if (advanced) {
            sendAck();
        }
    }

    private boolean inWindow(long seq) {
        long delta = seq - rcvNxt & 0xffff_ffffL;
        return delta <= ctx.rcvWnd();
    }

    private void acknowledge(long ack) {
        long acked = ack - sndUna & 0xffff_ffffL;
        long outstanding = sndNxt - sndUna & 0xffff_ffffL;
        if (acked == 0 || acked > outstanding) {
            return;
        }
        sndUna = ack;
        if (sndUna != sndNxt) {
            return;
        }
        retransmit.cancel();
        tries = 0;
        if (finSent) {
            switch (state) {
                case FIN_WAIT_1 -> state = State.FIN_WAIT_2;
                case CLOSING, LAST_ACK -> {
                    enterClosed();
                    raise(QpEvent.CLOSE_COMPLETE);
                    return;
                }
                default -> {
                }
            }
        } else {
            messagePending = false;
            firstMessageAcked = true;
            maybeEstablished();
        }
        sendOutstanding();
    }

    /** The RTS AE of a device with IRDMA_FEATURE_RTS_AE (ctrl.c irdma_sc_gen_rts_ae's WQEs done). */
    private void maybeEstablished() {
        if (!device.reportsEstablished() || establishedRaised || !firstMessageAcked || passive && !peerFpduSeen) {
            return;
        }
        establishedRaised = true;
        raise(QpEvent.ESTABLISHED);
    }

    /** Sends the first thing still unsent: the message, then the FIN. */
    private void sendOutstanding() {
        if (sndUna != sndNxt) {
            return;
        }
        if (messagePending) {
            sendSegment(TcpHeader.ACK | TcpHeader.PSH, sndNxt, messageLength);
            sndNxt = sndNxt + messageLength & 0xffff_ffffL;
            armRetransmit();
        } else if (finPending) {
            finPending = false;
            finSent = true;
            sendSegment(TcpHeader.ACK | TcpHeader.FIN, sndNxt, 0);
            sndNxt = sndNxt + 1 & 0xffff_ffffL;
            armRetransmit();
        }
    }

    private void armRetransmit() {
        retransmit.scheduleIn(RTO_NANOS << Math.min(tries, 6));
    }

    private void retransmitExpired() {
        if (destroyed || state == State.CLOSED) {
            return;
        }
        if (++tries > rexmitThreshold) {
            // the peer is gone: reset the connection (what the hardware reports as a connection reset)
            sendSegment(TcpHeader.RST | TcpHeader.ACK, sndNxt, 0);
            enterClosed();
            raise(QpEvent.CONNECTION_RESET);
            return;
        }
        if (finSent) {
            sendSegment(TcpHeader.ACK | TcpHeader.FIN, sndUna, 0);
        } else {
            sendSegment(TcpHeader.ACK | TcpHeader.PSH, sndUna, messageLength);
        }
        armRetransmit();
    }

    private void enterClosed() {
        state = State.CLOSED;
        retransmit.cancel();
    }

    private void sendAck() {
        sendSegment(TcpHeader.ACK, sndNxt, 0);
    }

    private void sendSegment(int flags, long seq, int payload) {
        if (device.qpsMuted()) {
            return;
        }
        TcpPacketBuilder tx = device.segmentBuilder();
        BytesStore<?, ?> frame = device.segmentBuffer();
        tx.reset().ethernet(ctx.remoteMac(), ctx.localMac());
        if (ctx.insertVlanTag()) {
            tx.vlan(ctx.userPriority(), false, ctx.vlanId());
        }
        tx.addresses(ctx.localHi(), ctx.localLo(), ctx.remoteHi(), ctx.remoteLo()).tos(ctx.tos()).ttl(ctx.ttl());
        tx.tcp().reset().ports(ctx.localPort(), ctx.remotePort()).sequenceNumber(seq).acknowledgmentNumber(rcvNxt)
                .flags(flags).window((int) Math.min(0xffff, ctx.rcvWnd() >> ctx.rcvWscale()));
        int len = payload > 0 ? tx.build(frame, 0, message, 0, payload) : tx.build(frame, 0);
        device.send(frame, 0, len);
    }

    private void raise(QpEvent e) {
        events.addLast(e);
        if (!aeq.isPending()) {
            aeq.scheduleIn(0);
        }
    }

    private void drainEvents() {
        while (!events.isEmpty() && !destroyed) {
            device.deliverQpEvent(qpn, events.pollFirst());
        }
    }
}
