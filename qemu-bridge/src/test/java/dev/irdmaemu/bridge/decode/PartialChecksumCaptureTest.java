package dev.irdmaemu.bridge.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decoder on a real capture with partial checksums: {@code siw-rping-lo-partial-csum.pcap}, taken with tcpdump on
 * {@code lo} inside a kit guest while siw ran a verified loopback rping of 3 pings (the recipe, run once, is
 * {@code capture-siw-rping-lo.sh} next to it). The loopback device offloads the TCP checksum, so every segment in
 * the file carries the pseudo-header sum only, as a capture on any sending host with checksum offload does. The
 * decoder marks each TCP line and still decodes TCP, MPA, DDP and RDMAP; tshark, asked to check checksums, agrees
 * frame by frame on which checksums fail and on the RDMAP operations.
 */
class PartialChecksumCaptureTest {
    private static final String CAPTURE = "siw-rping-lo-partial-csum.pcap";
    private static final int PINGS = 3;
    /** RFC 5040 §4.2 opcodes as tshark's iwarp_rdma.opcode shows them, by the names our decoder prints. */
    private static final Map<String, String> OPCODES = Map.of("RDMA Write", "0x00", "Read Request", "0x01",
            "Read Response", "0x02", "Send", "0x03");
    private static final Pattern RDMAP = Pattern.compile(" RDMAP (RDMA Write|Read Request|Read Response|Send) ");
    /** The text a failed check leaves: "LAYER: rule at OFFSET". */
    private static final Pattern FAILURE = Pattern.compile("(Ethernet|IPv4|IPv6|TCP|MPA|FPDU|DDP|Read Request|"
            + "Terminate): [^|]* at \\d+");

    @TempDir
    static Path dir;

    private static Path file;
    private static List<String> ours;
    /** tshark -o tcp.check_checksum:TRUE: frame number, tcp.checksum.status (0 bad, 1 good), RDMAP opcode. */
    private static List<String[]> theirs;

    @BeforeAll
    static void decodeBothWays() throws Exception {
        byte[] pcap;
        try (InputStream in = PartialChecksumCaptureTest.class.getResourceAsStream(CAPTURE)) {
            assertNotNull(in, CAPTURE + " is not on the test class path");
            pcap = in.readAllBytes();
        }
        file = dir.resolve(CAPTURE);
        Files.write(file, pcap);
        ours = DecoderTsharkTest.decode(pcap);
        theirs = new ArrayList<>();
        for (String line : Tshark.run(dir, file, "-o", "tcp.check_checksum:TRUE", "--disable-protocol", "rpcordma",
                "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f", "-e", "frame.number",
                "-e", "tcp.checksum.status", "-e", "iwarp_rdma.opcode")) {
            String[] v = line.split("\t", -1);
            assertEquals(3, v.length, line);
            theirs.add(v);
        }
    }

    private static String all() {
        return String.join("\n", ours);
    }

    @Test
    void tsharkCountsTheSameFrames() throws IOException, InterruptedException {
        assertTrue(ours.size() > 20, () -> "a handshake, MPA and " + PINGS + " pings:\n" + all());
        assertEquals(Tshark.run(dir, file).size(), ours.size(), CAPTURE);
        assertEquals(theirs.size(), ours.size());
    }

    @Test
    void everyTcpChecksumFailsAndIsMarkedAsTsharkFindsIt() {
        for (int i = 0; i < ours.size(); i++) {
            String line = ours.get(i);
            String[] t = theirs.get(i);
            assertEquals(String.valueOf(i + 1), t[0]);
            // the capture is what this test is about: every TCP checksum is a partial one
            assertEquals("0", t[1], () -> "tshark finds frame " + t[0] + "'s TCP checksum good");
            assertTrue(line.contains(" " + FrameSummarizer.TCP_CHECKSUM_MARK), line);
            assertFalse(line.contains(FrameSummarizer.IPV4_CHECKSUM_MARK), line); // the IPv4 header's is computed
        }
    }

    @Test
    void noLineIsReportedMalformed() {
        for (String line : ours) {
            assertFalse(FAILURE.matcher(line).find(), line);
            assertFalse(line.contains("does not verify"), line);
            assertFalse(line.contains("CRC BAD"), line);
            assertFalse(line.contains("mid-FPDU") || line.contains("were not seen"), line);
        }
    }

    @Test
    void theMpaExchangeIsDecoded() {
        List<String> requests = ours.stream().filter(l -> l.contains(" MPA ") && l.contains("| MPA Req rev ")).toList();
        List<String> replies = ours.stream().filter(l -> l.contains(" MPA ") && l.contains("| MPA Rep rev ")).toList();
        assertEquals(1, requests.size(), CAPTURE);
        assertEquals(1, replies.size(), CAPTURE);
        assertTrue(requests.get(0).contains(" 7174 [PSH, ACK] "), requests.get(0)); // client to rping's port
        assertTrue(replies.get(0).contains("7174 → "), replies.get(0));
        for (String l : List.of(requests.get(0), replies.get(0))) {
            assertTrue(l.indexOf(FrameSummarizer.TCP_CHECKSUM_MARK) < l.indexOf("| MPA"), l);
        }
    }

    @Test
    void rdmapOperationsAreDecodedAsTsharkDecodesThem() {
        int sends = 0;
        int writes = 0;
        int readRequests = 0;
        int readResponses = 0;
        for (int i = 0; i < ours.size(); i++) {
            String line = ours.get(i);
            Matcher m = RDMAP.matcher(line + " ");
            String theirOpcode = theirs.get(i)[2];
            if (!m.find()) {
                assertEquals("", theirOpcode, line);
                continue;
            }
            assertTrue(line.contains(" DDP/RDMA "), line);
            assertTrue(line.contains("| FPDU len "), line);
            String op = m.group(1);
            assertEquals(OPCODES.get(op), theirOpcode, line);
            assertFalse(m.find(), () -> "one FPDU per segment in this capture: " + line);
            switch (op) {
                case "Send" -> sends++;
                case "RDMA Write" -> writes++;
                case "Read Request" -> readRequests++;
                default -> readResponses++;
            }
        }
        // rping, per ping: the client's Send (its source buffer), the server's RDMA Read of it (Request and
        // Response), the server's Send (go ahead), the client's Send (its sink buffer), the server's RDMA Write, the
        // server's Send (done)
        assertEquals(4 * PINGS, sends, CAPTURE);
        assertEquals(PINGS, readRequests, CAPTURE);
        assertEquals(PINGS, readResponses, CAPTURE);
        assertEquals(PINGS, writes, CAPTURE);
    }
}
