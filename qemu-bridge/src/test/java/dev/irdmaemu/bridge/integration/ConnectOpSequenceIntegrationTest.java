package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmListener;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A connect and a teardown between two model nodes issue the address-handle and hash-entry ops irdma.ko 7.3 does
 * on gen2, in its order, as each model's CQP trace shows them:
 * <ul>
 *   <li>active side, cm.c irdma_connect: the neighbour's ARP entry (irdma_make_cm_node -> utils.c irdma_add_arp),
 *       CREATE_ADDR_HANDLE (irdma_cm_create_ah, waited for), the ESTABLISHED qhash entry to the ILQ, APBVT; then
 *       irdma_cm_event_connected: Modify QP to RTS with the TCP context (no qhash op: the device takes the
 *       four-tuple over) and DESTROY_ADDR_HANDLE (irdma_cm_free_ah);</li>
 *   <li>passive side, irdma_create_listen: the SYN qhash entry and APBVT; on the SYN, irdma_handle_syn_pkt:
 *       ARP, CREATE_ADDR_HANDLE, whose callback adds the ESTABLISHED qhash entry (irdma_add_conn_est_qh); then
 *       irdma_accept: DESTROY_ADDR_HANDLE before Modify QP to RTS;</li>
 *   <li>teardown: Destroy QP with REMOVEHASHENTRY (irdma never deletes the taken-over entry itself), and the
 *       listener's SYN entry and APBVT go with the listener. Nothing is left in either model.</li>
 * </ul>
 */
class ConnectOpSequenceIntegrationTest {
    private static final int PORT = 4791;
    private static final long LIMIT = 60_000_000_000L;
    private static final Set<String> WATCHED = Set.of("MANAGE_ARP", "CREATE_ADDR_HANDLE", "DESTROY_ADDR_HANDLE",
            "MANAGE_QUAD_HASH_TABLE_ENTRY", "MANAGE_APBVT", "MODIFY_QP", "DESTROY_QP");

    static Stream<Arguments> families() {
        return Stream.of(
                Arguments.of(Named.of("IPv4", CmPair.A_V4), CmPair.B_V4),
                Arguments.of(Named.of("IPv6", CmPair.A_V6), CmPair.B_V6),
                Arguments.of(Named.of("IPv4 on VLAN " + CmPair.VLAN, CmPair.A_VLAN), CmPair.B_VLAN));
    }

    /** The watched ops of a trace, as "OP detail". */
    private static List<String> ops(RecordingTraceSink sink) {
        return sink.of(TraceKind.CQP_OP).stream().filter(e -> WATCHED.contains(e.get("op"))).map(e -> {
            String op = e.get("op");
            return switch (op) {
                case "MANAGE_QUAD_HASH_TABLE_ENTRY" -> "QHASH " + (e.get("manage").equals("1") ? "add" : "delete")
                        + (e.get("entry_type").equals("1") ? " established" : " syn") + " qp=" + e.get("qp");
                case "MANAGE_APBVT" -> "APBVT " + (e.get("add").equals("true") ? "add" : "delete");
                case "MANAGE_ARP" -> "ARP " + (e.get("valid").equals("true") ? "add" : "delete");
                case "CREATE_ADDR_HANDLE", "DESTROY_ADDR_HANDLE" -> op + " ah=" + e.get("ah");
                case "MODIFY_QP" -> op + " state=" + e.get("next_state") + " tcp=" + e.get("tcp_ctx");
                case "DESTROY_QP" -> op + " rm_hash=" + e.get("rm_hash");
                default -> op;
            };
        }).toList();
    }

    @ParameterizedTest
    @MethodSource("families")
    void connectAndTeardownCreateAndDestroyTheirAhAndHashEntriesAsIrdmaDoes(IpEndpoint clientAddress,
                                                                            IpEndpoint serverAddress) {
        RecordingTraceSink sinkA = new RecordingTraceSink();
        RecordingTraceSink sinkB = new RecordingTraceSink();
        try (ModelPair pair = new ModelPair(FrameTap.NONE, sinkA, sinkB)) {
            int estA = pair.a.device.quadHash().establishedCount();
            int estB = pair.b.device.quadHash().establishedCount();
            sinkA.clear();
            sinkB.clear();
            IpEndpoint server = serverAddress.withPort(PORT);
            CmNode[] accepted = new CmNode[1];
            CmListener listener = pair.b.cm.listen(server, 8, e -> {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    accepted[0] = e.node();
                    pair.b.cm.accept(e.node(), "b".getBytes(StandardCharsets.UTF_8));
                }
            });
            boolean[] replied = new boolean[1];
            CmNode c = pair.a.cm.connect(clientAddress.withPort(50000), server,
                    ConnectParams.of("a".getBytes(StandardCharsets.UTF_8), 16, 8),
                    e -> replied[0] |= e.type() == CmEventType.CONNECT_REPLY && e.status() == CmStatus.OK);
            assertTrue(pair.runUntilIdle(LIMIT));
            assertTrue(replied[0], "connected");
            assertNotNull(accepted[0]);
            int qpA = c.qpn();
            int qpB = accepted[0].qpn();

            List<String> active = ops(sinkA);
            assertEquals(List.of("ARP add", "CREATE_ADDR_HANDLE ah=0", "QHASH add established qp=1", "APBVT add",
                    "MODIFY_QP state=2 tcp=true", "DESTROY_ADDR_HANDLE ah=0"), strip(active),
                    "active side: " + active);
            List<String> passive = ops(sinkB);
            assertEquals(List.of("QHASH add syn qp=1", "APBVT add", "ARP add", "CREATE_ADDR_HANDLE ah=0",
                    "QHASH add established qp=1", "DESTROY_ADDR_HANDLE ah=0", "MODIFY_QP state=2 tcp=true"),
                    strip(passive), "passive side: " + passive);
            // each model steers the connection to its QP with the one entry the CM added for the ILQ
            assertEquals(estA + 1, pair.a.device.quadHash().establishedCount());
            assertEquals(estB + 1, pair.b.device.quadHash().establishedCount());
            assertEquals(0, pair.a.device.addressHandles().liveCount());
            assertEquals(0, pair.b.device.addressHandles().liveCount());
            assertEquals(0, pair.a.driver.addressHandles().inUse());
            assertEquals(0, pair.b.driver.addressHandles().inUse());

            sinkA.clear();
            sinkB.clear();
            pair.a.cm.disconnect(c, false);
            assertTrue(pair.runUntilIdle(LIMIT));
            pair.b.cm.destroyListener(listener);
            assertTrue(pair.runUntilIdle(LIMIT));
            for (ModelNode n : List.of(pair.a, pair.b)) {
                RecordingTraceSink sink = n == pair.a ? sinkA : sinkB;
                int qp = n == pair.a ? qpA : qpB;
                List<String> down = ops(sink);
                assertTrue(down.contains("DESTROY_QP rm_hash=true"), n + ": " + down);
                assertTrue(down.stream().noneMatch(o -> o.startsWith("QHASH delete established")),
                        "the taken-over entry is the device's to drop: " + down);
                assertTrue(down.stream().noneMatch(o -> o.contains("ADDR_HANDLE")), "no AH left to free: " + down);
                assertEquals(null, n.device.qps().get(qp), "QP " + qp + " destroyed");
            }
            assertTrue(ops(sinkB).containsAll(List.of("QHASH delete syn qp=1", "APBVT delete")), ops(sinkB).toString());
            assertEquals(estA, pair.a.device.quadHash().establishedCount(), "A's hash entry gone with its QP");
            assertEquals(estB, pair.b.device.quadHash().establishedCount(), "B's hash entry gone with its QP");
            assertEquals(0, pair.b.device.quadHash().listenCount());
            assertEquals(0, pair.a.device.addressHandles().liveCount());
            assertEquals(0, pair.b.device.addressHandles().liveCount());
            assertEquals(List.of(), TwoModelNodesIntegrationTest.criticalCqpErrors(sinkA));
            assertEquals(List.of(), TwoModelNodesIntegrationTest.criticalCqpErrors(sinkB));
        }
    }

    /** The ops without the IDLE-to-IDLE Modify QPs of the QP's set-up (verbs.c INIT / RTR). */
    private static List<String> strip(List<String> ops) {
        return ops.stream().filter(o -> !o.startsWith("MODIFY_QP state=1 ")).toList();
    }
}
