package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code irdma-emu demo}: the CM's two-node run, its printout, and a capture that decodes to the handshake. */
class DemoCommandTest {
    @TempDir
    Path dir;

    @Test
    void demoPrintsTheEventSequenceAndNegotiationAndWritesAPcapThatDecodesToTheHandshake() {
        Path pcap = dir.resolve("demo.pcap");
        MainTest.Run r = MainTest.run("demo", "--pcap", pcap.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.outLines();
        List<String> upcalls = lines.stream().filter(l -> l.contains(" ms ")).map(l -> l.trim().split("\\s+"))
                .map(f -> f[2] + " " + f[3]).toList();
        // on the model (the default) ESTABLISHED and CONNECT_REPLY each wait for their QP's RTS AE, in whichever
        // order the QPs raise them; the close is the QPs' FIN exchange
        assertEquals(6, upcalls.size(), upcalls.toString());
        assertEquals("server CONNECT_REQUEST", upcalls.get(0));
        assertEquals(java.util.Set.of("server ESTABLISHED", "client CONNECT_REPLY"),
                java.util.Set.copyOf(upcalls.subList(1, 3)));
        assertEquals("server DISCONNECT", upcalls.get(3));
        assertEquals(java.util.Set.of("server CLOSE", "client CLOSE"), java.util.Set.copyOf(upcalls.subList(4, 6)));
        assertTrue(r.out().contains("hardware: E810 device model"), r.out());
        assertTrue(r.out().contains("CQP op latency, node A"), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("CREATE_QP ")), "the offload's Create QP: " + r.out());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("MANAGE_QUAD_HASH_TABLE_ENTRY ")), r.out());
        assertTrue(r.out().contains("negotiated: MPA revision 2; client IRD 16 ORD 16;"), r.out());
        assertTrue(r.out().contains("client received \"hello from B\", server received \"hello from A\""), r.out());
        assertTrue(r.out().contains("both nodes clean afterwards"), r.out());
        assertTrue(Files.isRegularFile(pcap));

        MainTest.Run decoded = MainTest.run("decode", pcap.toString());
        assertEquals(0, decoded.code(), decoded.err());
        List<String> frames = decoded.outLines();
        assertTrue(frames.get(0).contains("[SYN]") && frames.get(0).contains("MSS=1460"), frames.get(0));
        assertTrue(frames.get(1).contains("[SYN, ACK]"), frames.get(1));
        assertTrue(frames.stream().anyMatch(l -> l.contains("MPA Req rev 2 [CRC, enhanced]") && l.contains("P2P")),
                decoded.out());
        assertTrue(frames.stream().anyMatch(l -> l.contains("MPA Rep rev 2 [CRC, enhanced]")), decoded.out());
        assertTrue(frames.stream().anyMatch(l -> l.contains("CRC ok") && l.contains("Read Request")),
                "the zero-length RDMA Read RTR: " + decoded.out());
        assertTrue(frames.get(frames.size() - 1).contains("[ACK]"), "the last ACK of the close");
    }

    @Test
    void theStandInRunKeepsItsOwnOrder() {
        MainTest.Run r = MainTest.run("demo", "--stand-in", "--pcap", dir.resolve("s.pcap").toString());
        assertEquals(0, r.code(), r.err());
        List<String> upcalls = r.outLines().stream().filter(l -> l.contains(" ms ")).map(l -> l.trim().split("\\s+"))
                .map(f -> f[2] + " " + f[3]).toList();
        assertEquals(List.of("server CONNECT_REQUEST", "server ESTABLISHED", "client CONNECT_REPLY",
                "server DISCONNECT", "client CLOSE", "server CLOSE"), upcalls);
        assertTrue(r.out().contains("hardware: in-memory stand-in"), r.out());
    }

    @Test
    void theModelRunWritesItsTraceAsJsonLinesPerNode() throws java.io.IOException {
        Path trace = dir.resolve("trace.jsonl");
        MainTest.Run r = MainTest.run("demo", "--model", "--pcap", dir.resolve("m.pcap").toString(), "--trace",
                trace.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = Files.readAllLines(trace);
        assertTrue(lines.stream().allMatch(l -> l.startsWith("{\"node\":\"A\",\"t\":")
                || l.startsWith("{\"node\":\"B\",\"t\":")), lines.get(0));
        List<String> opsA = lines.stream().filter(l -> l.startsWith("{\"node\":\"A\"") && l.contains("\"ev\":\"cqp_op\""))
                .map(l -> l.replaceAll(".*\"op\":\"([A-Z_]+)\".*", "$1")).toList();
        // the gen2 probe's order (DriverBringUpIntegrationTest holds each op's fields): the feature query after
        // the CQP, the HMC with Static HMC pages allocated, CCQ, CEQ 0, AEQ, the ILQ's CQ, its work-scheduler
        // tree (root, VSI node, leaf, enabling modify), the ILQ, the IEQ's CQ and QP. The direct SDs of
        // irdma_create_hmc_objs take several Update PE SDs ops (11 SDs each): counted, then taken as one step.
        int sdOps = opsA.subList(0, opsA.indexOf("SHMC_PAGES_ALLOCATED")).stream()
                .filter("UPDATE_PE_SDS"::equals).mapToInt(o -> 1).sum();
        assertTrue(sdOps >= 2, "Update PE SDs ops: " + sdOps);
        List<String> steps = new java.util.ArrayList<>();
        for (String op : opsA) {
            if (!(op.equals("UPDATE_PE_SDS") && !steps.isEmpty() && steps.get(steps.size() - 1).equals(op))) {
                steps.add(op);
            }
        }
        assertEquals(List.of("QUERY_RDMA_FEATURES", "QUERY_FPM_VAL", "COMMIT_FPM_VAL", "UPDATE_PE_SDS",
                "SHMC_PAGES_ALLOCATED", "CREATE_CQ", "CREATE_CEQ", "CREATE_AEQ", "CREATE_CQ", "WORK_SCHED_NODE",
                "WORK_SCHED_NODE", "WORK_SCHED_NODE", "WORK_SCHED_NODE", "CREATE_QP", "CREATE_CQ", "CREATE_QP"),
                steps.subList(0, 16));
        assertTrue(opsA.contains("MODIFY_QP") && opsA.contains("DESTROY_QP"), opsA.toString());
    }

    @Test
    void modelAndStandInExcludeEachOther() {
        MainTest.Run r = MainTest.run("demo", "--model", "--stand-in", "--pcap", dir.resolve("x.pcap").toString());
        assertEquals(ExitCodes.USAGE, r.code());
        assertEquals(1, r.errLines().size(), r.err());
    }

    @Test
    void outOfRangeIrdIsAUsageErrorInOneLine() {
        MainTest.Run r = MainTest.run("demo", "--pcap", dir.resolve("x.pcap").toString(), "--ird", "16384");
        assertEquals(ExitCodes.USAGE, r.code());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("14-bit"), r.err());
    }

    @Test
    void anUnwritablePcapIsAnIoErrorInOneLine() {
        MainTest.Run r = MainTest.run("demo", "--pcap", dir.resolve("no/such/dir/demo.pcap").toString());
        assertEquals(ExitCodes.IO_ERROR, r.code());
        assertEquals(1, r.errLines().size(), r.err());
    }
}
