package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * Every state a node can wait in for its peer has a timer that ends it when the peer falls silent (issue 13): the
 * peer here is a hand-driven one whose frames are injected and which never hears B (B's frames are black-holed),
 * so nothing but B's own timers can end B's node.
 */
class CloseStateTimersTest {
    private static final FaultProfile BLACK_HOLE = new FaultProfile(1, 0, 0, 0, 10_000, 0, 0);
    private static final byte[] NONE = new byte[0];
    private static final IpEndpoint PEER = CmPair.A_V4.withPort(40000);
    private static final IpEndpoint SERVER = CmPair.B_V4.withPort(4791);
    private final Segments segments = new Segments();
    private final CmPair p = new CmPair(new CmPair.Config(3, FaultProfile.NONE, BLACK_HOLE, null, 128, 128, 128, 128));
    private final List<CmNode> requests = new ArrayList<>();
    private boolean rejectRequests = true;
    private final CmListener listener = p.b.listen(SERVER, 4, e -> {
        if (e.type() == CmEventType.CONNECT_REQUEST) {
            requests.add(e.node());
            if (rejectRequests) {
                p.b.reject(e.node(), NONE);
            }
        }
    });

    private CmNode passive() {
        assertEquals(1, p.b.nodeCount());
        return p.b.nodes().iterator().next();
    }

    /** The silent peer's SYN, then the ACK of B's SYN-ACK: B's node is ESTABLISHED, waiting for the MPA request. */
    private CmNode established() {
        segments.injectSyn(p.b, PEER, SERVER, 1000);
        // the passive AH's completion (due now: irdma_ilq_ah_cb) adds the qhash entry and sends the SYN-ACK
        p.scheduler.runUntil(p.scheduler.now());
        CmNode n = passive();
        assertEquals(CmState.SYN_RCVD, n.state());
        segments.injectInSequence(p.b, n, TcpHeader.ACK, NONE);
        assertEquals(CmState.ESTABLISHED, n.state());
        return n;
    }

    /** ... then an MPA v1 request, which the consumer rejects: B's reply goes with its FIN (FIN_WAIT1). */
    private CmNode rejected() {
        CmNode n = established();
        byte[] request = new byte[64];
        int len = new MpaFrame.Builder().reset().request().revision(1).flags(MpaFrame.FLAG_CRC)
                .build(BytesStore.wrap(request), 0, request.length);
        byte[] frame = new byte[len];
        System.arraycopy(request, 0, frame, 0, len);
        segments.injectInSequence(p.b, n, TcpHeader.ACK | TcpHeader.PSH, frame);
        assertEquals(1, requests.size());
        assertEquals(CmState.FIN_WAIT1, n.state());
        return n;
    }

    private void tearDownAndCheck() {
        p.b.destroyListener(listener);
        assertTrue(p.runUntilIdle(3_600_000_000_000L));
        LeakCheck.assertNothingHeld(p);
    }

    @Test
    void finWait2WithASilentPeerEndsAfterTheFinTimeout() {
        CmNode n = rejected();
        segments.injectInSequence(p.b, n, TcpHeader.ACK, NONE);
        assertEquals(CmState.FIN_WAIT2, n.state());
        long entered = p.scheduler.now();
        assertTrue(n.closeTimer.isPending(), "cm.c arms nothing here; we arm the FIN_WAIT2 timeout");
        assertEquals(entered + ConnectionManager.FIN_WAIT2_TIMEOUT_NANOS, n.closeTimer.deadline());
        p.scheduler.runUntil(entered + ConnectionManager.FIN_WAIT2_TIMEOUT_NANOS - 1);
        assertEquals(CmState.FIN_WAIT2, n.state(), "not before tcp_fin_timeout");
        assertFalse(n.isDestroyed());
        p.scheduler.runUntil(entered + ConnectionManager.FIN_WAIT2_TIMEOUT_NANOS);
        assertTrue(n.isDestroyed());
        tearDownAndCheck();
    }

    @Test
    void finInFinWait2ReplacesTheFinTimeoutWithTimeWait() {
        CmNode n = rejected();
        segments.injectInSequence(p.b, n, TcpHeader.ACK, NONE);
        segments.injectInSequence(p.b, n, TcpHeader.ACK | TcpHeader.FIN, NONE);
        assertEquals(CmState.TIME_WAIT, n.state());
        long now = p.scheduler.now();
        assertEquals(now + ConnectionManager.CLOSE_DELAY_NANOS, n.closeTimer.deadline());
        p.scheduler.runUntil(now + ConnectionManager.CLOSE_DELAY_NANOS);
        assertTrue(n.isDestroyed());
        tearDownAndCheck();
    }

    @Test
    void resetInFinWait2EndsTheNodeAndItsFinTimeout() {
        CmNode n = rejected();
        segments.injectInSequence(p.b, n, TcpHeader.ACK, NONE);
        segments.injectInSequence(p.b, n, TcpHeader.RST | TcpHeader.ACK, NONE);
        assertTrue(n.isDestroyed());
        assertFalse(n.closeTimer.isPending());
        tearDownAndCheck();
    }

    @Test
    void finWait1WithASilentPeerEndsWhenTheRetransmissionsRunOut() {
        CmNode n = rejected();
        assertTrue(n.retransmitTimer.isPending());
        assertTrue(p.runUntilIdle(3_600_000_000_000L));
        assertTrue(n.isDestroyed());
        assertEquals(ConnectionManager.DEFAULT_RETRANS, p.b.retransmissions());
        tearDownAndCheck();
    }

    @Test
    void closingWithASilentPeerEndsWhenTheRetransmissionsRunOut() {
        CmNode n = rejected();
        // the peer's FIN crosses ours without acknowledging it: simultaneous close
        segments.inject(p.b, n, TcpHeader.FIN, n.rcvNxt, n.locSeq, NONE);
        assertEquals(CmState.CLOSING, n.state());
        assertTrue(n.retransmitTimer.isPending());
        assertTrue(p.runUntilIdle(3_600_000_000_000L));
        assertTrue(n.isDestroyed());
        tearDownAndCheck();
    }

    @Test
    void lastAckWithASilentPeerEndsWhenTheRetransmissionsRunOut() {
        CmNode n = established();
        segments.injectInSequence(p.b, n, TcpHeader.ACK | TcpHeader.FIN, NONE);
        assertEquals(CmState.LAST_ACK, n.state());
        assertTrue(n.retransmitTimer.isPending());
        assertTrue(p.runUntilIdle(3_600_000_000_000L));
        assertTrue(n.isDestroyed());
        tearDownAndCheck();
    }

    @Test
    void synRcvdWithASilentPeerEndsWhenTheRetransmissionsRunOut() {
        segments.injectSyn(p.b, PEER, SERVER, 1000);
        // the passive AH's completion (due now: irdma_ilq_ah_cb) adds the qhash entry and sends the SYN-ACK
        p.scheduler.runUntil(p.scheduler.now());
        CmNode n = passive();
        assertEquals(CmState.SYN_RCVD, n.state());
        assertTrue(p.runUntilIdle(3_600_000_000_000L));
        assertTrue(n.isDestroyed());
        tearDownAndCheck();
    }

    @Test
    void establishedWithoutAnMpaRequestDoesNotOutliveTheListener() {
        CmNode n = established();
        assertTrue(p.runUntilIdle(3_600_000_000_000L));
        assertEquals(CmState.ESTABLISHED, n.state());
        tearDownAndCheck();
        assertTrue(n.isDestroyed());
    }

    @Test
    void mpaRejectWithoutTheFinEndsAfterTheFinTimeout() {
        // the active side: a peer that answers the MPA request with a rejecting reply and never sends its FIN
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(40001), CmPair.B_V4.withPort(5000),
                ConnectParams.of(NONE, 4, 4).withRevision(1), client);
        p.runFor(1_000);
        segments.inject(p.a, n, TcpHeader.SYN | TcpHeader.ACK, 5000, n.locSeq, NONE);
        assertEquals(CmState.MPAREQ_SENT, n.state());
        byte[] reply = new byte[64];
        int len = new MpaFrame.Builder().reset().reply().revision(1).flags(MpaFrame.FLAG_CRC | MpaFrame.FLAG_REJECT)
                .build(BytesStore.wrap(reply), 0, reply.length);
        byte[] frame = new byte[len];
        System.arraycopy(reply, 0, frame, 0, len);
        segments.injectInSequence(p.a, n, TcpHeader.ACK | TcpHeader.PSH, frame);
        assertEquals(CmState.MPAREJ_RCVD, n.state());
        assertEquals(List.of("CONNECT_REPLY:CONNECTION_REFUSED"), client.types());
        long entered = p.scheduler.now();
        p.scheduler.runUntil(entered + ConnectionManager.FIN_WAIT2_TIMEOUT_NANOS - 1);
        assertFalse(n.isDestroyed(), "the peer still has the time a FIN_WAIT2 gets");
        p.scheduler.runUntil(entered + ConnectionManager.FIN_WAIT2_TIMEOUT_NANOS);
        assertTrue(n.isDestroyed());
        tearDownAndCheck();
    }

    @Test
    void mpaRejectFollowedByTheFinGoesToLastAck() {
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(40001), CmPair.B_V4.withPort(5000),
                ConnectParams.of(NONE, 4, 4).withRevision(1), client);
        p.runFor(1_000);
        segments.inject(p.a, n, TcpHeader.SYN | TcpHeader.ACK, 5000, n.locSeq, NONE);
        byte[] reply = new byte[64];
        int len = new MpaFrame.Builder().reset().reply().revision(1).flags(MpaFrame.FLAG_CRC | MpaFrame.FLAG_REJECT)
                .build(BytesStore.wrap(reply), 0, reply.length);
        byte[] frame = new byte[len];
        System.arraycopy(reply, 0, frame, 0, len);
        segments.injectInSequence(p.a, n, TcpHeader.ACK | TcpHeader.PSH, frame);
        segments.injectInSequence(p.a, n, TcpHeader.ACK | TcpHeader.FIN, NONE);
        assertEquals(CmState.LAST_ACK, n.state());
        assertFalse(n.closeTimer.isPending(), "the reject's timeout ends with the peer's FIN");
        tearDownAndCheck();
        assertTrue(n.isDestroyed());
    }

    @Test
    void aBareAckInSynSentKeepsTheSynRetransmitting() {
        // found by HostileSegmentProperties' hour of silence: cm.c drops the SYN's retransmission on this ACK
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(40002), CmPair.B_V4.withPort(5000), ConnectParams.of(NONE, 4, 4),
                client);
        p.runFor(1_000);
        segments.injectInSequence(p.a, n, TcpHeader.ACK, NONE);
        assertEquals(CmState.SYN_SENT, n.state());
        assertTrue(n.retransmitTimer.isPending(), "the SYN is still retransmitted");
        assertTrue(p.runUntilIdle(3_600_000_000_000L));
        assertTrue(n.isDestroyed());
        assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), client.types());
        assertEquals(CmReason.RETRIES_EXHAUSTED, client.events.get(0).reason());
        tearDownAndCheck();
    }

    @Test
    void mpaReqSentWithAPeerThatOnlyAcknowledgesEndsWhenTheRetransmissionsRunOut() {
        // the peer ACKs our MPA request and never replies: cm.c keeps the entry and stops resending (ack_rcvd),
        // and the entry's count still runs down to the abort
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(40003), CmPair.B_V4.withPort(5000),
                ConnectParams.of(NONE, 4, 4).withRevision(1), client);
        p.runFor(1_000);
        segments.inject(p.a, n, TcpHeader.SYN | TcpHeader.ACK, 5000, n.locSeq, NONE);
        assertEquals(CmState.MPAREQ_SENT, n.state());
        segments.injectInSequence(p.a, n, TcpHeader.ACK, NONE);
        assertEquals(CmState.MPAREQ_SENT, n.state());
        assertTrue(n.retransmitTimer.isPending());
        assertTrue(p.runUntilIdle(3_600_000_000_000L));
        assertTrue(n.isDestroyed());
        assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), client.types());
        assertEquals(CmReason.RETRIES_EXHAUSTED, client.events.get(0).reason());
        assertEquals(0, p.a.retransmissions(), "acknowledged: counted down, not resent");
        tearDownAndCheck();
    }
}
