package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A reset or a FIN arriving in each setup state, answered as cm.c irdma_handle_rst_pkt / irdma_handle_fin_pkt do. */
class ResetAndFinTest {
    private static final FaultProfile BLACK_HOLE = new FaultProfile(1, 0, 0, 0, 10_000, 0, 0);
    private static final int RST = TcpHeader.RST | TcpHeader.ACK;
    private static final byte[] NONE = new byte[0];
    private final Segments segments = new Segments();

    private static CmPair pair(FaultProfile aToB, FaultProfile bToA) {
        return new CmPair(new CmPair.Config(3, aToB, bToA, null, 128, 128, 128, 128));
    }

    private static CmNode only(ConnectionManager cm) {
        assertEquals(1, cm.nodeCount(), "one node expected");
        return cm.nodes().iterator().next();
    }

    @Test
    void resetInSynSentWithMpaV2RetriesWithV1() {
        CmPair p = pair(BLACK_HOLE, FaultProfile.NONE);
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4), client);
        long carried = p.link.framesCarried();
        segments.injectInSequence(p.a, n, RST, NONE);
        assertEquals(CmState.SYN_SENT, n.state());
        assertEquals(1, n.mpaRevision());
        assertEquals(carried + 1, p.link.framesCarried(), "a new SYN went out");
        assertTrue(client.events.isEmpty());
    }

    @Test
    void resetInSynSentWithMpaV1FailsTheConnect() {
        CmPair p = pair(BLACK_HOLE, FaultProfile.NONE);
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000),
                ConnectParams.of(NONE, 4, 4).withRevision(1), client);
        segments.injectInSequence(p.a, n, RST, NONE);
        assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), client.types());
        assertTrue(n.isDestroyed());
        assertEquals(0, p.scheduler.pendingTimers() - p.link.framesInFlight());
    }

    @Test
    void resetInMpaReqSentRetriesWithV1() {
        CmPair p = pair(FaultProfile.NONE, FaultProfile.NONE);
        p.b.listen(CmPair.B_V4.withPort(2000), 4, e -> { });
        CmNode n = p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4),
                new Recorder("client"));
        p.runFor(1_000_000);
        assertEquals(CmState.MPAREQ_SENT, n.state());
        segments.injectInSequence(p.a, n, RST, NONE);
        assertEquals(CmState.SYN_SENT, n.state());
        assertEquals(1, n.mpaRevision());
    }

    @Test
    void finInMpaReqSentAbortsTheConnect() {
        CmPair p = pair(FaultProfile.NONE, FaultProfile.NONE);
        p.b.listen(CmPair.B_V4.withPort(2000), 4, e -> { });
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4),
                client);
        p.runFor(1_000_000);
        segments.injectInSequence(p.a, n, TcpHeader.FIN | TcpHeader.ACK, NONE);
        assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), client.types());
        assertEquals(CmReason.PEER_CLOSED, client.events.get(0).reason());
        assertTrue(n.isDestroyed());
    }

    @Test
    void resetInSynRcvdDropsThePassiveNode() {
        CmPair p = pair(FaultProfile.NONE, BLACK_HOLE);
        Recorder server = new Recorder("server");
        p.b.listen(CmPair.B_V4.withPort(2000), 4, server);
        p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4), e -> { });
        p.runFor(100_000);
        CmNode passive = only(p.b);
        assertEquals(CmState.SYN_RCVD, passive.state());
        segments.injectInSequence(p.b, passive, RST, NONE);
        assertTrue(passive.isDestroyed());
        assertEquals(0, p.b.nodeCount());
        assertTrue(server.events.isEmpty());
        assertEquals(0, p.deviceB.qhashEntries().stream().filter(q -> q.kind() == Qhash.Kind.CONNECTION).count());
    }

    @Test
    void finInSynRcvdGoesToLastAck() {
        CmPair p = pair(FaultProfile.NONE, BLACK_HOLE);
        p.b.listen(CmPair.B_V4.withPort(2000), 4, e -> { });
        p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4), e -> { });
        p.runFor(100_000);
        CmNode passive = only(p.b);
        // a FIN that acknowledges our SYN-ACK: irdma_handle_ack_pkt moves SYN_RCVD on, then irdma_handle_fin_pkt
        segments.injectInSequence(p.b, passive, TcpHeader.FIN | TcpHeader.ACK, NONE);
        assertEquals(CmState.LAST_ACK, passive.state());
        segments.injectInSequence(p.b, passive, TcpHeader.ACK, NONE);
        assertTrue(passive.isDestroyed());
    }

    @Test
    void resetOfAnIndicatedConnectionMakesTheAcceptFail() {
        CmPair p = pair(FaultProfile.NONE, FaultProfile.NONE);
        List<CmNode> indicated = new ArrayList<>();
        p.b.listen(CmPair.B_V4.withPort(2000), 4, e -> indicated.add(e.node()));
        p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4), e -> { });
        p.runFor(100_000);
        CmNode passive = indicated.get(0);
        assertEquals(CmState.MPAREQ_RCVD, passive.state());
        segments.injectInSequence(p.b, passive, RST, NONE);
        assertEquals(CmState.MPAREQ_RCVD, passive.state(), "cm.c only counts it (passive_state)");
        assertFalse(p.b.accept(passive, NONE), "IRDMA_SEND_RESET_EVENT: the accept fails");
        assertTrue(passive.isDestroyed());
    }

    @Test
    void segmentsForAnOffloadedConnectionAreDropped() {
        CmPair p = pair(FaultProfile.NONE, FaultProfile.NONE);
        p.b.listen(CmPair.B_V4.withPort(2000), 4, e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                p.b.accept(e.node(), NONE);
            }
        });
        CmNode n = p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4),
                new Recorder("client"));
        p.runFor(1_000_000);
        assertEquals(CmState.OFFLOADED, n.state());
        long carried = p.link.framesCarried();
        segments.injectInSequence(p.a, n, RST, NONE);
        segments.injectInSequence(p.a, n, TcpHeader.SYN, NONE);
        assertEquals(CmState.OFFLOADED, n.state());
        assertEquals(carried, p.link.framesCarried(), "the CM did not answer");
    }

    @Test
    void resetAfterRejectEndsTheFinWait() {
        CmPair p = pair(FaultProfile.NONE, FaultProfile.NONE);
        List<CmNode> rejected = new ArrayList<>();
        p.b.listen(CmPair.B_V4.withPort(2000), 4, e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                p.b.reject(e.node(), NONE);
                rejected.add(e.node());
                assertEquals(CmState.FIN_WAIT1, e.node().state());
                segments.injectInSequence(p.b, e.node(), RST, NONE);
            }
        });
        p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4), e -> { });
        p.runFor(100_000);
        assertEquals(1, rejected.size());
        assertTrue(rejected.get(0).isDestroyed());
    }

    @Test
    void segmentOutsideTheWindowIsDroppedWithoutAnswer() {
        // cm.c irdma_check_seq: a bad ACK is not answered, the node is unchanged
        CmPair p = pair(FaultProfile.NONE, BLACK_HOLE);
        p.b.listen(CmPair.B_V4.withPort(2000), 4, e -> { });
        p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4), e -> { });
        p.runFor(100_000);
        CmNode passive = only(p.b);
        long carried = p.link.framesCarried();
        segments.inject(p.b, passive, TcpHeader.ACK, passive.rcvNxt, passive.locSeq + 1, NONE);
        segments.inject(p.b, passive, TcpHeader.ACK, passive.rcvNxt + 0x20000, passive.locSeq, NONE);
        assertEquals(CmState.SYN_RCVD, passive.state());
        assertEquals(carried, p.link.framesCarried());
    }

    @Test
    void synAckAcknowledgingTheWrongSequenceIsReset() {
        // cm.c irdma_check_syn: active_open_err with reset
        CmPair p = pair(BLACK_HOLE, FaultProfile.NONE);
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(2000), ConnectParams.of(NONE, 4, 4),
                client);
        long carried = p.link.framesCarried();
        segments.inject(p.a, n, TcpHeader.SYN | TcpHeader.ACK, 777, n.locSeq + 5, NONE);
        assertEquals(carried + 1, p.link.framesCarried(), "a reset went out");
        assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), client.types());
        assertEquals(CmReason.PROTOCOL_ERROR, client.events.get(0).reason());
    }
}
