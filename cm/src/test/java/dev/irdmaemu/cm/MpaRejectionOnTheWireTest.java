package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.mpa.IrdOrd;
import dev.irdmaemu.cm.mpa.MpaRejection;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An MPA frame the CM refuses is answered as cm.c irdma_handle_rcv_mpa answers it: a reset to the peer, and on
 * the active side a failed connect (irdma_active_open_err), on the passive side a dropped node
 * (irdma_passive_open_err).
 */
class MpaRejectionOnTheWireTest {
    private final Segments segments = new Segments();

    private static byte[] frame(String kind, boolean request) {
        byte[] b = new byte[600];
        BytesStore<?, ?> s = BytesStore.wrap(b);
        MpaFrame.Builder m = new MpaFrame.Builder().reset();
        if (request ^ kind.equals("wrong key")) {
            m.request();
        } else {
            m.reply();
        }
        m.revision(kind.equals("revision 3") ? 3 : 2)
                .flags(MpaFrame.FLAG_CRC | (kind.equals("markers") ? MpaFrame.FLAG_MARKERS : 0));
        int ctrlIrd = kind.equals("no peer-to-peer") ? 8 : 8 | IrdOrd.PEER_TO_PEER;
        boolean rdma0 = !kind.equals("no rdma0");
        m.rtr(ctrlIrd, 8, (ctrlIrd & IrdOrd.PEER_TO_PEER) != 0, false, rdma0, rdma0);
        int len = m.build(s, 0, b.length);
        if (kind.equals("PD_Length lies")) {
            b[19] = (byte) 200;
        }
        if (kind.equals("PD_Length over 512")) {
            b[18] = 3;
        }
        byte[] out = new byte[kind.equals("short") ? 12 : len];
        System.arraycopy(b, 0, out, 0, out.length);
        return out;
    }

    @ParameterizedTest(name = "active side, {0}")
    @CsvSource({"short", "revision 3", "wrong key", "PD_Length lies", "PD_Length over 512", "no peer-to-peer",
            "no rdma0", "markers"})
    void initiatorResetsAndFailsTheConnect(String kind) {
        CmPair p = new CmPair();
        p.b.listen(CmPair.B_V4.withPort(4791), 4, e -> { });
        Recorder client = new Recorder("client");
        CmNode n = p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(4791),
                ConnectParams.of(new byte[3], 8, 8), client);
        p.runFor(1_000_000);
        assertEquals(CmState.MPAREQ_SENT, n.state());
        long before = p.link.framesCarried();
        segments.injectInSequence(p.a, n, TcpHeader.ACK | TcpHeader.PSH, frame(kind, false));
        assertEquals(List.of("CONNECT_REPLY:CONNECTION_RESET"), client.types());
        assertEquals(CmReason.BAD_MPA, client.events.get(0).reason());
        assertEquals(before + 1, p.link.framesCarried(), "one reset");
        assertTrue(n.isDestroyed());
    }

    @ParameterizedTest(name = "passive side, {0}")
    @CsvSource({"short", "revision 3", "wrong key", "PD_Length lies", "PD_Length over 512", "no peer-to-peer",
            "no rdma0", "markers"})
    void responderResetsAndDropsTheNode(String kind) {
        // B's answers are lost, so its node waits in SYN_RCVD for our hand-made ACK carrying the MPA frame
        List<int[]> sentByB = new ArrayList<>();
        TcpPacket t = new TcpPacket();
        CmPair p = new CmPair(new CmPair.Config(5, FaultProfile.NONE, new FaultProfile(1, 0, 0, 0, 10_000, 0, 0),
                (time, store, off, len) -> {
                    if (t.wrap(store, off, len).validate().accepted() && t.tcp().sourcePort() == 4791) {
                        sentByB.add(new int[] {t.tcp().flags()});
                    }
                }, 128, 128, 128, 128));
        Recorder server = new Recorder("server");
        List<PassiveRefusal> refusals = new ArrayList<>();
        p.b.onPassiveRefusal(refusals::add);
        p.b.listen(CmPair.B_V4.withPort(4791), 4, server);
        p.a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(4791), ConnectParams.of(new byte[3], 8, 8),
                e -> { });
        p.runFor(100_000);
        CmNode passive = p.b.nodes().iterator().next();
        assertEquals(CmState.SYN_RCVD, passive.state());
        sentByB.clear();
        segments.injectInSequence(p.b, passive, TcpHeader.ACK | TcpHeader.PSH, frame(kind, true));
        assertTrue(passive.isDestroyed());
        assertEquals(1, sentByB.size());
        assertEquals(TcpHeader.RST | TcpHeader.ACK, sentByB.get(0)[0]);
        assertTrue(server.events.isEmpty(), "nothing was indicated");
        assertEquals(1, p.b.passiveErrors());
        // the refusal listener is where the reason goes, since no upcall carries it
        assertEquals(1, refusals.size(), refusals::toString);
        PassiveRefusal r = refusals.get(0);
        assertEquals(CmReason.BAD_MPA, r.reason());
        assertEquals(EXPECTED_RULE.get(kind), r.mpa());
        assertEquals(CmPair.B_V4.withPort(4791), r.local());
        assertEquals(CmPair.A_V4.withPort(1000), r.remote());
        assertTrue(r.reset(), "the peer was reset");
    }

    /** The irdma_parse_mpa rule each malformed request breaks (in cm.c's order, the first that applies). */
    private static final java.util.Map<String, MpaRejection> EXPECTED_RULE = java.util.Map.of(
            "short", MpaRejection.BUFFER_TOO_SMALL,
            "revision 3", MpaRejection.UNKNOWN_REVISION,
            "wrong key", MpaRejection.UNEXPECTED_KEY,
            "PD_Length lies", MpaRejection.LENGTH_MISMATCH,
            "PD_Length over 512", MpaRejection.PRIVATE_DATA_TOO_LONG,
            "no peer-to-peer", MpaRejection.NOT_PEER_TO_PEER,
            "no rdma0", MpaRejection.NO_RDMA0_OPERATION,
            "markers", MpaRejection.MARKERS_REQUESTED);
}
