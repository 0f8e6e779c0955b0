package dev.irdmaemu.bridge.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.roce.BthOpcode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code irdma-emu decode} prints RoCEv2 frames as Wireshark's InfiniBand dissector (tshark 4.0, UDP 4791) reads
 * them: tshark finds no malformed frame in the representative capture ({@link RoceCapture}), and every line's
 * addresses, ports, opcode, DestQP, PSN, AckReq, SE, pad count, RETH, AETH syndrome and MSN, DETH, ImmDt and IETH
 * agree with tshark's fields; the packet whose ICRC was broken shows ICRC BAD with the bytes tshark shows, the rest
 * ICRC ok. Needs tshark on PATH: fails, never skips, without it.
 */
class RoceDecodeTsharkTest {
    private static final String[] FIELDS = {
        "frame.number", "frame.len", "_ws.col.Protocol", "udp.srcport", "udp.dstport", "infiniband.bth.opcode",
        "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.a", "infiniband.bth.se",
        "infiniband.bth.padcnt", "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
        "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.deth.q_key", "infiniband.deth.srcqp",
        "infiniband.immdt", "infiniband.ieth", "infiniband.invariant.crc", "ip.src", "ipv6.src", "ip.dst",
        "ipv6.dst",
    };
    private static final Pattern LINE = Pattern.compile(
            "^ *(\\d+) \\S+ (\\S+) → (\\S+)(?: \\[vlan \\d+])? (\\S+) (\\d+) (\\d+) → (\\d+) \\| (.+?) "
            + "QP 0x([0-9a-f]{6}) "
            + "PSN (\\d+)(.*)$");
    private static final Pattern RETH = Pattern.compile(" RETH VA 0x([0-9a-f]+) R_Key (0x[0-9a-f]{8}) len (\\d+)");
    private static final Pattern AETH = Pattern.compile(
            " AETH (?:ACK credits (unlimited|\\d+)|RNR NAK timer (\\d+) \\([0-9.]+ ms\\)|NAK ([a-z ]+?)) MSN (\\d+)");
    private static final Pattern DETH = Pattern.compile(" DETH Q_Key 0x([0-9a-f]{8}) SrcQP 0x([0-9a-f]{6})");
    private static final Pattern IMM = Pattern.compile(" ImmDt 0x([0-9a-f]{8})");
    private static final Pattern IETH = Pattern.compile(" IETH R_Key 0x([0-9a-f]{8})");
    private static final Pattern PAD = Pattern.compile(" pad (\\d)");
    private static final Pattern BAD =
            Pattern.compile(" ICRC BAD \\(received 0x([0-9a-f]{8}), computed 0x[0-9a-f]{8}\\)");
    private static final List<String> NAKS = List.of("psn sequence error", "invalid request", "remote access error",
            "remote operational error");

    @TempDir
    static Path dir;

    private static List<String> ours;
    private static List<Map<String, String>> theirs;
    private static List<String> malformed;

    @BeforeAll
    static void decodeBothWays() throws Exception {
        Path file = dir.resolve("roce.pcap");
        RoceCapture.write(file);
        ours = DecoderTsharkTest.decode(Files.readAllBytes(file));
        malformed = Tshark.run(dir, file, "-Y", "_ws.malformed");
        List<String> args = new ArrayList<>(List.of("-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"));
        for (String f : FIELDS) {
            args.add("-e");
            args.add(f);
        }
        theirs = new ArrayList<>();
        for (String line : Tshark.run(dir, file, args.toArray(String[]::new))) {
            String[] v = line.split("\t", -1);
            assertEquals(FIELDS.length, v.length, line);
            Map<String, String> m = new HashMap<>();
            for (int i = 0; i < FIELDS.length; i++) {
                m.put(FIELDS[i], v[i]);
            }
            theirs.add(m);
        }
    }

    @Test
    void tsharkFindsNoMalformedFrame() {
        assertEquals(List.of(), malformed);
        assertEquals(RoceCapture.frames().size(), theirs.size());
        assertEquals(theirs.size(), ours.size());
    }

    @Test
    void everyLineAgreesWithTshark() {
        for (int i = 0; i < ours.size(); i++) {
            String line = ours.get(i);
            Map<String, String> t = theirs.get(i);
            Matcher m = LINE.matcher(line);
            assertTrue(m.matches(), line);
            assertEquals(t.get("frame.number"), m.group(1), line);
            assertEquals(t.get("ip.src") + t.get("ipv6.src"), m.group(2), line);
            assertEquals(t.get("ip.dst") + t.get("ipv6.dst"), m.group(3), line);
            assertEquals(t.get("_ws.col.Protocol"), m.group(4), line);
            assertEquals(t.get("frame.len"), m.group(5), line);
            assertEquals(t.get("udp.srcport"), m.group(6), line);
            assertEquals(t.get("udp.dstport"), m.group(7), line);
            int code = Integer.parseInt(t.get("infiniband.bth.opcode"));
            assertEquals(name(BthOpcode.lookup(code).orElseThrow()), m.group(8), line);
            assertEquals(t.get("infiniband.bth.destqp"), "0x" + m.group(9), line);
            assertEquals(t.get("infiniband.bth.psn"), m.group(10), line);
            String rest = m.group(11);
            assertEquals(t.get("infiniband.bth.a"), rest.contains(" AckReq") ? "1" : "0", line);
            assertEquals(t.get("infiniband.bth.se"), rest.contains(" SE") ? "1" : "0", line);
            Matcher pad = PAD.matcher(rest);
            assertEquals(t.get("infiniband.bth.padcnt"), pad.find() ? pad.group(1) : "0", line);
            extensionHeaders(line, rest, t);
            Matcher bad = BAD.matcher(rest);
            if (i + 1 == RoceCapture.FRAME_BAD_ICRC) {
                assertTrue(bad.find(), line);
                // tshark shows the ICRC's wire bytes; we print the value, sent least significant byte first
                assertEquals(t.get("infiniband.invariant.crc"), String.format("0x%08x",
                        Integer.reverseBytes(Integer.parseUnsignedInt(bad.group(1), 16))), line);
            } else {
                assertTrue(rest.endsWith(" ICRC ok"), line);
            }
        }
    }

    private static void extensionHeaders(String line, String rest, Map<String, String> t) {
        Matcher reth = RETH.matcher(rest);
        if (reth.find()) {
            assertEquals(t.get("infiniband.reth.va"), String.format("0x%016x", Long.parseLong(reth.group(1), 16)),
                    line);
            assertEquals(t.get("infiniband.reth.r_key"), reth.group(2), line);
            assertEquals(t.get("infiniband.reth.dmalen"), reth.group(3), line);
        } else {
            assertEquals("", t.get("infiniband.reth.va"), line);
        }
        Matcher aeth = AETH.matcher(rest);
        if (aeth.find()) {
            int syndrome;
            if (aeth.group(1) != null) {
                syndrome = aeth.group(1).equals("unlimited") ? 0x1f : Integer.parseInt(aeth.group(1));
            } else if (aeth.group(2) != null) {
                syndrome = 0x20 | Integer.parseInt(aeth.group(2));
            } else {
                syndrome = 0x60 | NAKS.indexOf(aeth.group(3));
            }
            assertEquals(t.get("infiniband.aeth.syndrome"), Integer.toString(syndrome), line);
            assertEquals(t.get("infiniband.aeth.msn"), aeth.group(4), line);
        } else {
            assertEquals("", t.get("infiniband.aeth.syndrome"), line);
        }
        Matcher deth = DETH.matcher(rest);
        if (deth.find()) {
            assertEquals(t.get("infiniband.deth.q_key"), "0x00000000" + deth.group(1), line);
            assertEquals(t.get("infiniband.deth.srcqp"), "0x00" + deth.group(2), line);
        } else {
            assertEquals("", t.get("infiniband.deth.q_key"), line);
        }
        Matcher imm = IMM.matcher(rest);
        assertEquals(t.get("infiniband.immdt"), imm.find() ? imm.group(1) : "", line);
        Matcher ieth = IETH.matcher(rest);
        assertEquals(t.get("infiniband.ieth"), ieth.find() ? ieth.group(1) : "", line);
    }

    /** Hostile frames to port 4791 show the rule they break and where, never an exception. */
    @Test
    void brokenFramesShowTheRuleAndWhere() throws Exception {
        byte[] reserved = RoceCapture.frames().get(3).clone();
        reserved[42] = 0x15;
        byte[] cut = java.util.Arrays.copyOf(RoceCapture.frames().get(3), 50);
        Path file = dir.resolve("broken.pcap");
        try (dev.irdmaemu.fw.pcap.PcapWriter w = dev.irdmaemu.fw.pcap.PcapWriter.open(file,
                dev.irdmaemu.fw.pcap.TimestampResolution.MICROSECONDS)) {
            w.frame(1000, net.openhft.chronicle.bytes.BytesStore.wrap(reserved), 0, reserved.length);
            w.frame(2000, net.openhft.chronicle.bytes.BytesStore.wrap(cut), 0, cut.length);
        }
        List<String> lines = DecoderTsharkTest.decode(Files.readAllBytes(file));
        assertTrue(lines.get(0).endsWith("RRoCE 82 49443 → 4791 | BTH: opcode reserved by IBA Table 38 at 42"),
                lines.get(0));
        assertTrue(lines.get(1).contains("IPv4 50 IPv4: total length reaches past the end of the buffer at 16"),
                lines.get(1));
    }

    private static String name(BthOpcode op) {
        return op.name().replace('_', ' ').replace("WITH IMMEDIATE", "WITH IMM").replace("WITH INVALIDATE", "WITH INV");
    }

    @Test
    void congestionMarksAndVlanShow() {
        String ce = ours.get(26);
        assertTrue(ce.contains(" FECN IP-CE"), ce);
        assertTrue(ours.get(25).contains("[vlan 100]"), ours.get(25));
        String cnp = ours.get(27);
        assertTrue(cnp.contains("| CNP QP 0x000011 PSN 0 BECN ICRC ok"), cnp);
        String rnr = ours.get(20);
        assertTrue(rnr.contains("AETH RNR NAK timer 14 (1.28 ms) MSN 5"), rnr);
        assertTrue(ours.get(0).contains("payload 256 bytes"), ours.get(0));
        assertTrue(ours.get(2).contains("pad 3 payload 77 bytes"), ours.get(2));
    }
}
