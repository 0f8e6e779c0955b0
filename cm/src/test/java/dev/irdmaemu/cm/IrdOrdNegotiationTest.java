package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.cm.mpa.IrdOrd;
import dev.irdmaemu.cm.mpa.MpaRejection;
import dev.irdmaemu.driver.verbs.Rdma0;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every branch of irdma cm.c irdma_negotiate_mpa_v2_ird_ord (RFC 6581 §7), as a table: who negotiates, our
 * IRD/ORD before, the peer's RTR words, and what comes out.
 */
class IrdOrdNegotiationTest {
    private static final int P2P = IrdOrd.PEER_TO_PEER;
    private static final int READ = IrdOrd.RDMA0_READ;
    private static final int WRITE = IrdOrd.RDMA0_WRITE;
    private static final int NONE = IrdOrd.NO_VALUE;

    static Stream<Arguments> table() {
        return Stream.of(
                // name, initiator, our ird, our ord, peer ctrl_ird, peer ctrl_ord, verdict, ird after, ord after,
                // "no value" after, rdma0 after
                row("responder: no peer-to-peer bit", false, 16, 16, 8, 8 | READ, MpaRejection.NOT_PEER_TO_PEER, 16, 16, false, Rdma0.READ),
                row("responder: peer IRD 0x3fff means no value", false, 16, 16, NONE | P2P, 8 | READ, MpaRejection.ACCEPTED, 16, 16, true, Rdma0.READ),
                row("responder: peer ORD 0x3fff means no value", false, 16, 16, 8 | P2P, NONE | WRITE, MpaRejection.ACCEPTED, 16, 16, true, Rdma0.WRITE),
                row("responder: peer ORD 0 with read0 needs our IRD 1", false, 0, 16, 8 | P2P, READ, MpaRejection.ACCEPTED, 1, 8, false, Rdma0.READ),
                row("responder: peer ORD 0 with write0 leaves our IRD", false, 0, 16, 8 | P2P, WRITE, MpaRejection.ACCEPTED, 0, 8, false, Rdma0.WRITE),
                row("responder: our ORD above peer IRD is lowered", false, 16, 32, 4 | P2P, 8 | READ, MpaRejection.ACCEPTED, 16, 4, false, Rdma0.READ),
                row("responder: our ORD within peer IRD stays", false, 16, 2, 4 | P2P, 8 | READ, MpaRejection.ACCEPTED, 16, 2, false, Rdma0.READ),
                row("responder: both rdma0 bits choose read", false, 16, 16, 16 | P2P, 16 | READ | WRITE, MpaRejection.ACCEPTED, 16, 16, false, Rdma0.READ),
                row("responder: write bit alone chooses write", false, 16, 16, 16 | P2P, 16 | WRITE, MpaRejection.ACCEPTED, 16, 16, false, Rdma0.WRITE),
                row("responder: no rdma0 bit is not supported", false, 16, 16, 16 | P2P, 16, MpaRejection.NO_RDMA0_OPERATION, 16, 16, false, Rdma0.READ),
                row("initiator: no peer-to-peer bit", true, 16, 16, 8, 8 | READ, MpaRejection.NOT_PEER_TO_PEER, 16, 16, false, Rdma0.READ),
                row("initiator: no value skips the checks", true, 1, 16, NONE | P2P, NONE | WRITE, MpaRejection.ACCEPTED, 1, 16, true, Rdma0.WRITE),
                row("initiator: responder IRD 0 cannot serve read0", true, 16, 16, P2P, 8 | READ, MpaRejection.PEER_CANNOT_READ0, 16, 16, false, Rdma0.READ),
                row("initiator: responder IRD 0 with write0 is fine", true, 16, 16, P2P, 8 | WRITE, MpaRejection.ACCEPTED, 16, 0, false, Rdma0.WRITE),
                row("initiator: our ORD above responder IRD is lowered", true, 16, 32, 8 | P2P, 8 | READ, MpaRejection.ACCEPTED, 16, 8, false, Rdma0.READ),
                row("initiator: our IRD below responder ORD has no resources", true, 4, 4, 8 | P2P, 8 | READ, MpaRejection.INSUFFICIENT_IRD, 4, 4, false, Rdma0.READ),
                row("initiator: our IRD equal to responder ORD is enough", true, 8, 4, 8 | P2P, 8 | READ, MpaRejection.ACCEPTED, 8, 4, false, Rdma0.READ),
                row("initiator: reply echoing write0", true, 8, 8, 8 | P2P, 8 | WRITE, MpaRejection.ACCEPTED, 8, 8, false, Rdma0.WRITE),
                row("initiator: reply without rdma0 bit", true, 8, 8, 8 | P2P, 8, MpaRejection.NO_RDMA0_OPERATION, 8, 8, false, Rdma0.READ));
    }

    private static Arguments row(String name, boolean initiator, int ird, int ord, int peerIrd, int peerOrd,
                                 MpaRejection verdict, int irdAfter, int ordAfter, boolean noValue, Rdma0 rdma0) {
        return Arguments.of(name, initiator, ird, ord, peerIrd, peerOrd, verdict, irdAfter, ordAfter, noValue, rdma0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void negotiation(String name, boolean initiator, int ird, int ord, int peerIrd, int peerOrd,
                     MpaRejection verdict, int irdAfter, int ordAfter, boolean noValue, Rdma0 rdma0) {
        IrdOrd io = new IrdOrd().set(ird, ord);
        assertEquals(verdict, io.negotiate(initiator, peerIrd, peerOrd));
        assertEquals(irdAfter, io.ird(), "IRD");
        assertEquals(ordAfter, io.ord(), "ORD");
        assertEquals(noValue, io.noValue(), "no value");
        assertEquals(rdma0, io.rdma0(), "rdma0");
    }

    @Test
    void requestRecordsClampsToTheDeviceAndNeedsOneOrdForRead0() {
        // cm.c irdma_record_ird_ord
        IrdOrd io = new IrdOrd().record(500, 500, 128, 64);
        assertEquals(128, io.ird());
        assertEquals(64, io.ord());
        io.record(4, 0, 128, 64);
        assertEquals(1, io.ord(), "an ORD of 0 becomes 1: the RTR will be a zero-length read");
    }

    @Test
    void rtrWordsAsBuilt() {
        // cm.c irdma_build_mpa_v2: P2P always; a request offers both rdma0 operations, a reply the chosen one;
        // values above 14 bits and "no value" are sent as 0x3fff
        IrdOrd io = new IrdOrd().set(20000, 7);
        assertEquals(P2P | NONE, io.ctrlIrd());
        assertEquals(7 | READ | WRITE, io.ctrlOrd(true));
        assertEquals(7 | READ, io.ctrlOrd(false));
        io.negotiate(false, 16 | P2P, 7 | WRITE);
        assertEquals(7 | WRITE, io.ctrlOrd(false));
        io.negotiate(false, NONE | P2P, 7 | WRITE);
        assertEquals(P2P | NONE, io.ctrlIrd());
        assertEquals(NONE | WRITE, io.ctrlOrd(false));
    }

    @Test
    void endToEndTheResponderLimitsTheInitiatorsOrd() {
        // device B has IRD 4: the initiator's ORD of 16 comes down to 4, B's ORD to A's IRD
        dev.irdmaemu.cm.demo.CmPair p = new dev.irdmaemu.cm.demo.CmPair(
                dev.irdmaemu.cm.demo.CmPair.Config.perfect().withLimits(128, 128, 4, 64));
        Recorder server = new Recorder("server");
        server.onEvent(e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                p.b.accept(e.node(), new byte[0]);
            }
        });
        p.b.listen(dev.irdmaemu.cm.demo.CmPair.B_V4.withPort(1), 4, server);
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(dev.irdmaemu.cm.demo.CmPair.A_V4.withPort(2), dev.irdmaemu.cm.demo.CmPair.B_V4.withPort(1),
                ConnectParams.of(new byte[0], 32, 16), client);
        p.runUntilIdle(60_000_000_000L);
        assertEquals(4, n.ord());
        assertEquals(32, n.ird());
        CmEvent est = server.first(CmEventType.ESTABLISHED);
        assertEquals(4, est.ird());
        assertEquals(32, est.ord());
        assertEquals(Rdma0.READ, p.deviceA.lastOffload().mpa().rtrType());
    }
}
