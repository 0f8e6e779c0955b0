package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.cli.Main;
import dev.irdmaemu.bridge.decode.Tshark;
import dev.irdmaemu.bridge.kit.GuestKit;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, two guests: each boots Linux 7.3 with its own emulated E810, the two E810s share one cable, and the
 * stock irdma.ko of one connects to the other's (rping -c against rping -s, ten verified pings). Nothing is left on
 * either E810 once its guest has powered off, and the cable's capture decodes with irdma-emu decode (one MPA v2
 * exchange, good CRCs) and with tshark.
 */
class E810PairBootTest {
    @Test
    void twoGuestsStockIrdmaConnectThroughTheirEmulatedE810s() throws Exception {
        GuestKit kit = GuestKit.locate().e810();
        E810PairRun.Outcome o = E810PairRun.run(kit, Path.of("target", "boot-tests", "e810-pair"), 10,
                Duration.ofSeconds(300), s -> { });
        assertTrue(o.server().ok(), () -> "server: " + o.server());
        assertTrue(o.client().ok(), () -> "client: " + o.client());
        assertEquals("10", o.server().field("rping_verified"));
        assertEquals("10", o.client().field("rping_pings"));
        assertEquals("iWARP", o.server().field("transport"));
        assertEquals("iWARP", o.client().field("transport"));
        assertEquals(0, o.serverQpsLeft(), "the server's E810 holds no QP after its guest's poweroff");
        assertEquals(0, o.clientQpsLeft(), "the client's E810 holds no QP after its guest's poweroff");

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
        assertEquals(10, lines.stream().filter(l -> l.contains(server + " → " + client)
                && l.contains("RDMA Write 64 bytes")).count(), "the server Writes ten pings back");
        assertTrue(lines.stream().noneMatch(l -> l.contains("CRC BAD") || l.contains("malformed")), "every FPDU's "
                + "CRC is good, nothing malformed");
        // and with tshark: the same frames, none malformed, the FPDUs read as iWARP
        Path dir = java.nio.file.Files.createDirectories(o.runDir().resolve("tshark"));
        List<String> tshark = Tshark.run(dir, o.pcap(), "--disable-protocol", "rpcordma");
        assertEquals(lines.size(), tshark.size(), "tshark and irdma-emu decode see the same frames");
        assertTrue(tshark.stream().noneMatch(l -> l.contains("Malformed")), () -> "tshark: " + tshark);
        assertTrue(tshark.stream().anyMatch(l -> l.contains(" DDP/RDMA ")), "tshark reads the FPDUs as iWARP");
    }
}
