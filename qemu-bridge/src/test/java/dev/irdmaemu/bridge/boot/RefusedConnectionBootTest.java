package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 6, test 3 (and test 6 for its run): stock siw as rping client, the model as server. siw ships with
 * peer_to_peer false (a compile-time constant in siw_main.c), so its MPA v2 request lacks the peer-to-peer bit;
 * irdma refuses such a request (irdma_negotiate_mpa_v2_ird_ord) and resets the connection, and so does the
 * model's CM. That refusal is fidelity, not a bug: the guest's rping reports the failure, the capture shows the
 * MPA request followed by the node's RST, and the trace names the rule.
 */
class RefusedConnectionBootTest {
    private static final Pattern TCP = Pattern.compile("(\\S+) → (\\S+) (TCP|MPA) \\d+ (\\d+) → (\\d+) \\[([A-Z, ]+)]");

    @Test
    void stockSiwsRequestWithoutPeerToPeerIsResetAsIrdmaResetsIt() throws Exception {
        BootReport r = BootTests.boot(BootScenario.RPING_CLIENT_REFUSED, "rping-client-refused");
        GuestResult g = r.guest();
        assertEquals(GuestLaunch.Siw.STOCK, r.siw());
        assertTrue(r.ok(), () -> String.join("\n", r.summary()));
        assertEquals("siw.ko", g.field("siw_module"), "the stock siw build");
        assertNotEquals("0", g.field("rping_exit"), "rping failed");
        assertEquals("0", g.field("rping_pings"));
        assertTrue(g.field("rping_said").contains("RDMA_CM_EVENT_REJECTED"), "rping says why: " + g.field("rping_said"));

        NodeCounters c = r.counters();
        assertEquals(1, c.cmPassiveErrors(), "the CM refused one connection");
        assertEquals(0, c.cmAccepts());
        assertEquals(0, c.cmNodesLeft(), "and left no connection node behind");
        assertEquals(1, c.cmNodesCreated());
        assertEquals(0, c.qps(), "no QP was offloaded");
        assertEquals("0", r.services().get(0).field("requests"), "nothing reached the listening service");

        List<String> lines = BootTests.decode(r.pcap());
        int request = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("192.0.2.2 → 192.0.2.1 MPA") && lines.get(i).contains("MPA Req rev 2")) {
                request = i;
                break;
            }
        }
        assertTrue(request >= 0, "the MPA request is in the capture: " + lines);
        String req = lines.get(request);
        assertTrue(!req.contains("P2P"), "stock siw's request lacks the peer-to-peer bit: " + req);
        Matcher m = TCP.matcher(req);
        assertTrue(m.find(), req);
        String guestPort = m.group(4);
        String answer = null;
        for (int i = request + 1; i < lines.size() && answer == null; i++) {
            Matcher n = TCP.matcher(lines.get(i));
            if (n.find() && n.group(1).equals("192.0.2.1") && n.group(5).equals(guestPort)) {
                answer = lines.get(i);
            }
        }
        assertTrue(answer != null && answer.contains("[RST, ACK]") && !answer.contains("MPA Rep"),
                "the node's next segment on that connection is a reset, not a reply: " + answer);

        String trace = Files.readString(r.trace(), StandardCharsets.UTF_8);
        assertTrue(trace.lines().anyMatch(l -> l.contains("\"ev\":\"cm_log\"") && l.contains("NOT_PEER_TO_PEER")
                && l.contains("192.0.2.2:" + guestPort)), "the trace names the rule and the connection");
    }
}
