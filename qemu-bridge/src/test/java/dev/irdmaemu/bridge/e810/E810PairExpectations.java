package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.cli.Main;
import dev.irdmaemu.bridge.decode.Tshark;
import dev.irdmaemu.model.E810Holdings;
import dev.irdmaemu.model.E810Holdings.Side;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a run of the {@code rping-pair} scenario must show, whichever host ran the two guests' QEMUs (children of
 * the test, {@link E810PairBootTest}; across two containers over VXLAN, {@code RemoteEngineIT} checks the
 * containers' own summaries): both guests' irdma in iWARP mode, {@code count} pings verified, nothing left on
 * either E810 once its guest powered off, and a capture that decodes with irdma-emu decode (one MPA v2 peer-to-peer exchange, the server's Writes, good CRCs) and with
 * tshark alike.
 */
public final class E810PairExpectations {
    private E810PairExpectations() {
    }

    public static void verifiedPings(E810PairRun.Outcome o, int count) throws IOException, InterruptedException {
        assertTrue(o.server().ok(), () -> "server: " + o.server());
        assertTrue(o.client().ok(), () -> "client: " + o.client());
        assertEquals(Integer.toString(count), o.server().field("rping_verified"));
        assertEquals(Integer.toString(count), o.client().field("rping_pings"));
        assertEquals("iWARP", o.server().field("transport"));
        assertEquals("iWARP", o.client().field("transport"));
        assertEquals(0, o.serverQpsLeft(), "the server's E810 holds no QP after its guest's poweroff");
        assertEquals(0, o.clientQpsLeft(), "the client's E810 holds no QP after its guest's poweroff");
        for (E810Holdings h : List.of(o.serverHeld(), o.clientHeld())) {
            assertEquals(0, h.total(Side.RDMA), () -> "irdma's objects left after the poweroff: " + h);
            assertEquals(0, h.total(Side.LAN), () -> "ice's objects left after the poweroff: " + h);
        }

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        assertEquals(0, Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute("decode", o.pcap().toString()), err::toString);
        List<String> lines = out.toString().lines().toList();
        String client = E810PairRun.CLIENT_ADDRESS;
        String server = E810PairRun.SERVER_ADDRESS;
        assertTrue(lines.stream().anyMatch(l -> l.contains(client + " → " + server) && l.contains("MPA Req rev 2")
                && l.contains(" P2P")), "the client's irdma sends an MPA v2 peer-to-peer request");
        assertTrue(lines.stream().anyMatch(l -> l.contains(server + " → " + client) && l.contains("MPA Rep rev 2")),
                "the server's irdma replies");
        // once each: a segment the model's TCP sent again (the busy guest ACKed late) is not another Write
        assertEquals(count, lines.stream().filter(l -> l.contains(server + " → " + client)
                && l.contains("RDMA Write 64 bytes") && !l.contains("[retransmission]")).count(),
                "the server Writes each ping back");
        assertTrue(lines.stream().noneMatch(l -> l.contains("CRC BAD") || l.contains("malformed")), "every FPDU's "
                + "CRC is good, nothing malformed");
        // and with tshark: the same frames, none malformed, the FPDUs read as iWARP
        Path dir = Files.createDirectories(o.runDir().resolve("tshark"));
        List<String> tshark = Tshark.run(dir, o.pcap(), "--disable-protocol", "rpcordma");
        assertEquals(lines.size(), tshark.size(), "tshark and irdma-emu decode see the same frames");
        assertTrue(tshark.stream().noneMatch(l -> l.contains("Malformed")), () -> "tshark: " + tshark);
        assertTrue(tshark.stream().anyMatch(l -> l.contains(" DDP/RDMA ")), "tshark reads the FPDUs as iWARP");
    }

    /**
     * The RDMA paths the first rping skips (issue 29 item 4), run after it in the same boot: for each variant (IPv6,
     * VLAN 100 with priority 5, MTU 9000) both guests' rping counted {@code count} verified pings and both sides'
     * ucmatose completed, ice and irdma logged no error, and tshark finds what the variant is about in the capture:
     * iWARP over IPv6, iWARP frames of VLAN 100 with priority 5 from both guests, jumbo iWARP frames from both.
     */
    public static void rdmaPaths(E810PairRun.Outcome o, int count) throws IOException, InterruptedException {
        for (String v : List.of("v6", "vlan", "jumbo")) {
            assertEquals(Integer.toString(count), o.server().field(v + "_rping"), v + ": the server's verified pings");
            assertEquals(Integer.toString(count), o.client().field(v + "_rping"), v + ": the client's pings");
            assertEquals("complete", o.server().field(v + "_ucmatose"), v);
            assertEquals("complete", o.client().field(v + "_ucmatose"), v);
            assertEquals("0", o.server().field(v + "_errors"), v + ": no ice or irdma error on the server");
            assertEquals("0", o.client().field(v + "_errors"), v + ": no ice or irdma error on the client");
        }
        assertEquals("9000", o.client().field("jumbo_mtu"));
        for (var g : List.of(o.server(), o.client())) {
            int lines = Integer.parseInt(g.field("kernel_log_lines"));
            assertTrue(lines > 100 && Integer.parseInt(g.field("kernel_log_leveled")) == lines,
                    "the error checks read the kernel's log with a level on every line: " + g);
        }
        Path dir = Files.createDirectories(o.runDir().resolve("tshark"));
        List<String> v6 = Tshark.run(dir, o.pcap(), "-Y", "ipv6 && iwarp_ddp_rdmap", "-T", "fields", "-e", "ipv6.src");
        assertTrue(v6.contains("2001:db8::10") && v6.contains("2001:db8::20"), "iWARP over IPv6 both ways: "
                + v6.subList(0, Math.min(20, v6.size())));
        String server = mac(E810PairRun.SERVER_MAC);
        String client = mac(E810PairRun.CLIENT_MAC);
        List<String> vlan = Tshark.run(dir, o.pcap(), "-Y", "vlan && iwarp_ddp_rdmap", "-T", "fields", "-e", "eth.src",
                "-e", "vlan.id", "-e", "vlan.priority");
        assertTrue(vlan.contains(server + "\t100\t5") && vlan.contains(client + "\t100\t5")
                && vlan.stream().allMatch(l -> l.endsWith("\t100\t5")), "both guests' irdma tag their FPDUs with "
                + "VLAN 100, priority 5: " + vlan.subList(0, Math.min(20, vlan.size())));
        List<String> jumbo = Tshark.run(dir, o.pcap(), "-Y", "frame.len > 1514 && iwarp_ddp_rdmap", "-T", "fields",
                "-e", "eth.src", "-e", "frame.len");
        assertTrue(jumbo.stream().anyMatch(l -> l.startsWith(server + "\t"))
                && jumbo.stream().anyMatch(l -> l.startsWith(client + "\t")), "jumbo iWARP frames both ways: "
                + jumbo.subList(0, Math.min(20, jumbo.size())));
        assertTrue(jumbo.stream().allMatch(l -> Integer.parseInt(l.substring(l.indexOf('\t') + 1)) <= 9014),
                "none longer than MTU 9000 allows");
    }

    private static String mac(long mac) {
        StringBuilder b = new StringBuilder();
        for (int i = 5; i >= 0; i--) {
            b.append(String.format("%02x", mac >>> (8 * i) & 0xff)).append(i > 0 ? ":" : "");
        }
        return b.toString();
    }
}
