package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.mpa.IrdOrd;
import dev.irdmaemu.cm.mpa.MpaRejection;
import dev.irdmaemu.cm.mpa.MpaVerdict;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import java.util.function.Consumer;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every rule of irdma cm.c irdma_parse_mpa, in its order, one received frame each. */
class MpaParseRulesTest {
    private static final byte[] PD = {1, 2, 3, 4, 5, 6, 7};

    /** A frame as a test wants it: built by the firmware-iface MPA builder, then optionally damaged. */
    private record Frame(boolean request, int revision, int flags, boolean rtr, int ctrlIrd, int ctrlOrd,
                         int pdLength, Consumer<byte[]> damage, int length) {
    }

    private static Frame good(boolean request) {
        return new Frame(request, 2, MpaFrame.FLAG_CRC, true, 16 | IrdOrd.PEER_TO_PEER,
                16 | IrdOrd.RDMA0_READ | (request ? IrdOrd.RDMA0_WRITE : 0), PD.length, b -> { }, -1);
    }

    private static Frame with(Frame f, int revision, int flags, int ctrlIrd, int ctrlOrd) {
        return new Frame(f.request, revision, flags, revision == 2, ctrlIrd, ctrlOrd, f.pdLength, f.damage, f.length);
    }

    static Stream<Arguments> rules() {
        Frame req = good(true);
        Frame rep = good(false);
        return Stream.of(
                Arguments.of("acceptable request", false, 2, 16, 16, req, MpaRejection.ACCEPTED),
                Arguments.of("acceptable reply", true, 2, 16, 16, rep, MpaRejection.ACCEPTED),
                Arguments.of("buffer smaller than the header", false, 2, 16, 16,
                        new Frame(true, 2, MpaFrame.FLAG_CRC, true, 0, 0, 0, b -> { }, 19), MpaRejection.BUFFER_TOO_SMALL),
                Arguments.of("private data over 512", false, 2, 16, 16,
                        new Frame(true, 2, MpaFrame.FLAG_CRC, true, req.ctrlIrd, req.ctrlOrd, PD.length,
                                b -> { b[18] = 0x02; b[19] = 0x01; }, -1), MpaRejection.PRIVATE_DATA_TOO_LONG),
                Arguments.of("revision 0", false, 2, 16, 16, with(req, 0, MpaFrame.FLAG_CRC, 0, 0), MpaRejection.UNKNOWN_REVISION),
                Arguments.of("revision 3", false, 2, 16, 16, with(req, 3, MpaFrame.FLAG_CRC, 0, 0), MpaRejection.UNKNOWN_REVISION),
                Arguments.of("revision 2 to a revision 1 node", false, 1, 16, 16, req, MpaRejection.REVISION_ABOVE_OURS),
                Arguments.of("reply key to the passive side", false, 2, 16, 16, rep, MpaRejection.UNEXPECTED_KEY),
                Arguments.of("request key to the active side", true, 2, 16, 16, req, MpaRejection.UNEXPECTED_KEY),
                Arguments.of("PD_Length beyond the bytes received", false, 2, 16, 16,
                        new Frame(true, 2, MpaFrame.FLAG_CRC, true, req.ctrlIrd, req.ctrlOrd, PD.length,
                                b -> b[19] = 100, -1), MpaRejection.LENGTH_MISMATCH),
                Arguments.of("more than IRDMA_MAX_CM_BUF bytes", false, 2, 16, 16,
                        new Frame(true, 2, MpaFrame.FLAG_CRC, true, req.ctrlIrd, req.ctrlOrd, PD.length, b -> { }, 545),
                        MpaRejection.OVER_MAX_CM_BUF),
                Arguments.of("RTR without peer-to-peer", false, 2, 16, 16,
                        with(req, 2, MpaFrame.FLAG_CRC, 16, req.ctrlOrd), MpaRejection.NOT_PEER_TO_PEER),
                Arguments.of("reply: responder cannot do read0", true, 2, 16, 16,
                        with(rep, 2, MpaFrame.FLAG_CRC, IrdOrd.PEER_TO_PEER, 4 | IrdOrd.RDMA0_READ), MpaRejection.PEER_CANNOT_READ0),
                Arguments.of("reply: responder ORD above our IRD", true, 2, 4, 4,
                        with(rep, 2, MpaFrame.FLAG_CRC, 8 | IrdOrd.PEER_TO_PEER, 8 | IrdOrd.RDMA0_READ), MpaRejection.INSUFFICIENT_IRD),
                Arguments.of("request offering no rdma0 operation", false, 2, 16, 16,
                        with(req, 2, MpaFrame.FLAG_CRC, 16 | IrdOrd.PEER_TO_PEER, 16), MpaRejection.NO_RDMA0_OPERATION),
                Arguments.of("peer asks for markers", false, 2, 16, 16,
                        with(req, 2, MpaFrame.FLAG_CRC | MpaFrame.FLAG_MARKERS, req.ctrlIrd, req.ctrlOrd), MpaRejection.MARKERS_REQUESTED));
    }

    @ParameterizedTest(name = "{0} -> {5}")
    @MethodSource("rules")
    void rule(String name, boolean active, int nodeRevision, int ird, int ord, Frame frame, MpaRejection expected) {
        CmPair p = new CmPair();
        CmNode n = new CmNode(p.b, new FourTuple(), true, active, null);
        n.state = active ? CmState.MPAREQ_SENT : CmState.ESTABLISHED;
        n.mpaRevision = nodeRevision;
        n.irdOrd.set(ird, ord);
        byte[] bytes = new byte[1024];
        BytesStore<?, ?> store = BytesStore.wrap(bytes);
        MpaFrame.Builder b = new MpaFrame.Builder().reset();
        if (frame.request) {
            b.request();
        } else {
            b.reply();
        }
        b.revision(frame.revision).flags(frame.flags);
        if (frame.rtr) {
            b.rtr(frame.ctrlIrd, frame.ctrlOrd, (frame.ctrlIrd & IrdOrd.PEER_TO_PEER) != 0, false,
                    (frame.ctrlOrd & IrdOrd.RDMA0_WRITE) != 0, (frame.ctrlOrd & IrdOrd.RDMA0_READ) != 0);
        }
        b.privateData(BytesStore.wrap(PD), 0, frame.pdLength);
        int len = b.build(store, 0, bytes.length);
        frame.damage.accept(bytes);
        int received = frame.length >= 0 ? frame.length : len;
        MpaVerdict parsed = p.b.parseMpa(n, store, 0, received);
        MpaRejection verdict = parsed.rule();
        assertEquals(expected, verdict);
        if (verdict.accepted()) {
            byte[] got = new byte[n.privateDataLength];
            System.arraycopy(n.privateData, 0, got, 0, got.length);
            assertArrayEquals(PD, got, "the ULP gets the private data after the RTR message");
            assertFalse(parsed.peerRejected());
        }
        assertTrue(expected.accepted() || expected.errno() < 0);
    }

    @Test
    void rejectFlagIsReported() {
        CmPair p = new CmPair();
        CmNode n = new CmNode(p.a, new FourTuple(), true, true, null);
        n.state = CmState.MPAREQ_SENT;
        n.irdOrd.set(16, 16);
        byte[] bytes = new byte[64];
        BytesStore<?, ?> store = BytesStore.wrap(bytes);
        int len = new MpaFrame.Builder().reset().reply().revision(1).flags(MpaFrame.FLAG_CRC | MpaFrame.FLAG_REJECT)
                .privateData(BytesStore.wrap(PD), 0, PD.length).build(store, 0, 64);
        MpaVerdict parsed = p.a.parseMpa(n, store, 0, len);
        assertEquals(MpaRejection.ACCEPTED, parsed.rule());
        assertTrue(parsed.peerRejected());
        assertEquals(1, n.mpaRevision(), "the node takes the peer's revision");
        assertEquals(PD.length, n.privateDataLength);
    }
}
