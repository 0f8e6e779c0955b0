package dev.irdmaemu.bridge.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.pcap.PcapReader;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wireshark's own dissectors (tshark 4.0: tcp, and the heuristic iwarp_mpa and iwarp_ddp_rdmap) read the sample
 * trace as our decoder does: every IPv4 and TCP checksum good, the same relative sequence numbers, the same MPA
 * key, revision, flags and PD_Length, the same FPDU lengths and CRC verdicts, and the same DDP/RDMAP fields.
 * The values compared are taken from our decoder's printed lines, so a wrong summary fails here. tshark's
 * checksum status: 0 bad, 1 good, 2 unverified (epan/proto.h PROTO_CHECKSUM_E_*). tshark finds the MPA
 * connection with its heuristic TCP dissector (from the Request's key; no {@code -d} needed) and learns CRC use
 * from the Request/Reply, as ours does. Needs tshark on PATH: fails, never skips, without it.
 */
class DecoderTsharkTest {
    private static final String[] FIELDS = {
        "frame.number", "frame.len", "ip.src", "ip.dst", "ip.checksum.status", "tcp.checksum.status",
        "_ws.col.Protocol", "_ws.col.Info", "tcp.srcport", "tcp.dstport", "tcp.seq", "tcp.ack", "tcp.len",
        "iwarp_mpa.key.req", "iwarp_mpa.key.rep", "iwarp_mpa.marker_flag", "iwarp_mpa.crc_flag",
        "iwarp_mpa.rej_flag", "iwarp_mpa.res", "iwarp_mpa.rev", "iwarp_mpa.pdlength", "iwarp_mpa.privatedata",
        "iwarp_mpa.ulpdulength", "iwarp_mpa.crc_check",
        "iwarp_ddp.tagged_flag", "iwarp_ddp.last_flag", "iwarp_ddp.dv", "iwarp_ddp.stag", "iwarp_ddp.tagged_offset",
        "iwarp_ddp.qn", "iwarp_ddp.msn", "iwarp_ddp.mo", "iwarp_rdma.version", "iwarp_rdma.opcode",
        "iwarp_rdma.inval_stag", "iwarp_rdma.sinkstag", "iwarp_rdma.sinkto", "iwarp_rdma.rdmardsz",
        "iwarp_rdma.srcstag", "iwarp_rdma.srcto", "iwarp_rdma.term_layer", "iwarp_rdma.term_etype_llp",
        "iwarp_rdma.term_errcode_llp",
    };
    /** RFC 5040 §4.2 opcode codes by the names our decoder prints. */
    private static final Map<String, String> OPCODES = Map.of(
            "RDMA Write", "0x00", "Read Request", "0x01", "Read Response", "0x02", "Send", "0x03",
            "Send with Invalidate", "0x04", "Send with SE", "0x05", "Send with SE and Invalidate", "0x06",
            "Terminate", "0x07");

    private static final Pattern LINE = Pattern.compile(
            "^ *(\\d+) \\S+ (\\S+) → (\\S+) (\\S+) (\\d+) (\\d+) → (\\d+) \\[[^]]*] Seq=(\\d+)(?: Ack=(\\d+))? Win=\\d+ "
            + "Len=(\\d+)(.*)$");
    private static final Pattern MPA = Pattern.compile(
            "MPA (Req|Rep) rev (\\d+)(?: \\[([^]]*)])? PD (\\d+)(?: IRD (\\d+) ORD (\\d+)( P2P)? RTR=(\\S+))?");
    private static final Pattern FPDU = Pattern.compile(
            "FPDU len (\\d+) CRC (ok|BAD|off)(?: \\(received (0x[0-9a-f]{8}), computed (0x[0-9a-f]{8})\\))? (.*)");
    private static final Pattern TAGGED = Pattern.compile(
            "DDP tagged STag (0x[0-9a-f]{8}) TO 0x([0-9a-f]+)( L)? RDMAP (.*)");
    private static final Pattern UNTAGGED = Pattern.compile(
            "DDP untagged QN (\\d+) MSN (\\d+) MO (\\d+)( L)? RDMAP (.*)");
    private static final Pattern READ_REQUEST = Pattern.compile(
            "Read Request \\(sink STag (0x[0-9a-f]{8}) TO 0x([0-9a-f]+) len (\\d+) source STag (0x[0-9a-f]{8}) "
            + "TO 0x([0-9a-f]+)\\)");
    private static final Pattern CRC_CHECK = Pattern.compile("CRC check: (0x[0-9a-f]{8}) \\((Good|Bad) CRC32");

    @TempDir
    static Path dir;

    private static Path file;
    private static List<String> ours;
    private static List<Map<String, String>> theirs;
    /** tshark's CRC verdict per frame number, from its verbose tree (4.0 has no CRC status field). */
    private static Map<Integer, String> crcVerdicts;

    @BeforeAll
    static void decodeBothWays() throws Exception {
        file = dir.resolve("handshake.pcap");
        SampleTrace.writeFile(file);
        ours = decode(Files.readAllBytes(file));
        List<String> args = new ArrayList<>(List.of("-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                // RPC-over-RDMA's heuristic claims Send payloads and calls them malformed; not ours to judge
                "--disable-protocol", "rpcordma", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"));
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
        crcVerdicts = new HashMap<>();
        int frame = 0;
        for (String line : Tshark.run(dir, file, "--disable-protocol", "rpcordma", "-V")) {
            if (line.startsWith("Frame ") && line.contains(": ")) {
                frame = Integer.parseInt(line.substring(6, line.indexOf(':')));
            }
            Matcher m = CRC_CHECK.matcher(line);
            if (m.find()) {
                crcVerdicts.put(frame, m.group(2) + " " + m.group(1));
            }
        }
    }

    static List<String> decode(byte[] pcap) throws IOException {
        List<String> lines = new ArrayList<>();
        FrameSummarizer s = new FrameSummarizer();
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(pcap))) {
            while (r.next()) {
                StringBuilder out = new StringBuilder();
                out.append(r.frameNumber()).append(" t ");
                s.summarize(r.frame(), 0, r.capturedLength(), out);
                lines.add(out.toString());
            }
        }
        return lines;
    }

    @Test
    void everyIpv4AndTcpChecksumIsGood() {
        assertEquals(SampleTrace.FRAMES, theirs.size());
        for (Map<String, String> f : theirs) {
            assertEquals("1", f.get("ip.checksum.status"), () -> "IPv4 checksum of frame " + f.get("frame.number"));
            assertEquals("1", f.get("tcp.checksum.status"), () -> "TCP checksum of frame " + f.get("frame.number"));
        }
    }

    @Test
    void addressesProtocolsAndTcpNumbersAgree() {
        assertEquals(theirs.size(), ours.size());
        for (int i = 0; i < ours.size(); i++) {
            String line = ours.get(i);
            Map<String, String> t = theirs.get(i);
            Matcher m = LINE.matcher(line);
            assertTrue(m.matches(), line);
            assertEquals(t.get("frame.number"), m.group(1), line);
            assertEquals(t.get("ip.src"), m.group(2), line);
            assertEquals(t.get("ip.dst"), m.group(3), line);
            assertEquals(t.get("_ws.col.Protocol"), m.group(4), line);
            assertEquals(t.get("frame.len"), m.group(5), line);
            assertEquals(t.get("tcp.srcport"), m.group(6), line);
            assertEquals(t.get("tcp.dstport"), m.group(7), line);
            assertEquals(t.get("tcp.seq"), m.group(8), line);
            // tshark shows tcp.ack 0 on a segment without ACK; we leave Ack= out, as its summary does
            assertEquals(t.get("tcp.ack"), m.group(9) == null ? "0" : m.group(9), line);
            assertEquals(t.get("tcp.len"), m.group(10), line);
            if (m.group(4).equals("TCP")) {
                // plain TCP: our whole info column is tshark's
                assertEquals(t.get("_ws.col.Info"), line.substring(line.indexOf(" TCP ") + 5).replaceFirst("^\\d+ ", ""),
                        line);
            }
        }
    }

    @Test
    void mpaRequestAndReplyAgree() {
        int seen = 0;
        for (int i = 0; i < ours.size(); i++) {
            Matcher m = MPA.matcher(ours.get(i));
            if (!m.find()) {
                assertEquals("", theirs.get(i).get("iwarp_mpa.rev"), ours.get(i));
                continue;
            }
            seen++;
            Map<String, String> t = theirs.get(i);
            String line = ours.get(i);
            boolean request = m.group(1).equals("Req");
            assertEquals(request, !t.get("iwarp_mpa.key.req").isEmpty(), line);
            assertEquals(!request, !t.get("iwarp_mpa.key.rep").isEmpty(), line);
            assertEquals(t.get("iwarp_mpa.rev"), m.group(2), line);
            String flags = m.group(3) == null ? "" : m.group(3);
            assertEquals(t.get("iwarp_mpa.marker_flag"), flags.contains("markers") ? "1" : "0", line);
            assertEquals(t.get("iwarp_mpa.crc_flag"), flags.contains("CRC") ? "1" : "0", line);
            assertEquals(t.get("iwarp_mpa.rej_flag"), flags.contains("reject") ? "1" : "0", line);
            // tshark 4.0 knows only RFC 5044, so it shows RFC 6581's H bit (0x10) as part of the reserved nibble
            assertEquals(t.get("iwarp_mpa.res"), flags.contains("enhanced") ? "0x10" : "0x00", line);
            assertEquals(t.get("iwarp_mpa.pdlength"), m.group(4), line);
            // RFC 6581 §5: the RTR message leads the private data: ctrl_ird (A P2P, B zero-length FPDU, IRD),
            // ctrl_ord (C RDMA Write, D RDMA Read, ORD), each 16 bits big-endian
            String rtr = m.group(8);
            int ird = Integer.parseInt(m.group(5)) | (m.group(7) != null ? 0x8000 : 0)
                    | (rtr.contains("send") ? 0x4000 : 0);
            int ord = Integer.parseInt(m.group(6)) | (rtr.contains("write") ? 0x8000 : 0)
                    | (rtr.contains("read") ? 0x4000 : 0);
            assertTrue(t.get("iwarp_mpa.privatedata").startsWith(String.format("%04x%04x", ird, ord)),
                    () -> line + " vs private data " + t.get("iwarp_mpa.privatedata"));
        }
        assertEquals(2, seen);
    }

    @Test
    void fpduDdpAndRdmapAgree() {
        int fpdus = 0;
        for (int i = 0; i < ours.size(); i++) {
            String line = ours.get(i);
            Map<String, String> t = theirs.get(i);
            int number = i + 1;
            Matcher f = FPDU.matcher(line);
            if (!f.find()) {
                assertEquals("", t.get("iwarp_mpa.ulpdulength"), line);
                continue;
            }
            fpdus++;
            assertEquals(t.get("iwarp_mpa.ulpdulength"), f.group(1), line);
            // tshark shows the CRC trailer's bytes in wire order; the CRC32c value is sent low byte first
            // (RFC 5044 §4.1 with RFC 3720 §12.1's bit/byte order), so the numbers are byte-swapped
            String verdict = crcVerdicts.get(number);
            if (f.group(2).equals("BAD")) {
                assertEquals("Bad " + swap(f.group(3)), verdict, line);
            } else {
                assertEquals("ok", f.group(2), line);
                assertTrue(verdict != null && verdict.startsWith("Good "), () -> line + " vs " + verdict);
            }
            String ddp = f.group(5);
            String rdmap;
            Matcher tagged = TAGGED.matcher(ddp);
            Matcher untagged = UNTAGGED.matcher(ddp);
            if (tagged.lookingAt()) {
                assertEquals("1", t.get("iwarp_ddp.tagged_flag"), line);
                assertEquals(t.get("iwarp_ddp.stag"), tagged.group(1), line);
                assertEquals(t.get("iwarp_ddp.tagged_offset"), String.format("0x%016x",
                        Long.parseUnsignedLong(tagged.group(2), 16)), line);
                assertEquals(t.get("iwarp_ddp.last_flag"), tagged.group(3) != null ? "1" : "0", line);
                rdmap = tagged.group(4);
            } else {
                assertTrue(untagged.lookingAt(), line);
                assertEquals("0", t.get("iwarp_ddp.tagged_flag"), line);
                assertEquals(t.get("iwarp_ddp.qn"), untagged.group(1), line);
                assertEquals(t.get("iwarp_ddp.msn"), untagged.group(2), line);
                assertEquals(t.get("iwarp_ddp.mo"), untagged.group(3), line);
                assertEquals(t.get("iwarp_ddp.last_flag"), untagged.group(4) != null ? "1" : "0", line);
                rdmap = untagged.group(5);
            }
            assertEquals("1", t.get("iwarp_ddp.dv"), line);
            assertEquals("1", t.get("iwarp_rdma.version"), line);
            String name = rdmap.replaceFirst(" (\\(|STag |\\d+ bytes).*$", "");
            assertEquals(t.get("iwarp_rdma.opcode"), OPCODES.get(name), line);
            if (name.equals("Send with Invalidate")) {
                String stag = rdmap.replaceFirst("^.*STag (0x[0-9a-f]{8}).*$", "$1");
                assertEquals(t.get("iwarp_rdma.inval_stag"), Long.toString(Long.decode(stag)), line);
            }
            if (name.equals("Read Request")) {
                Matcher rr = READ_REQUEST.matcher(rdmap);
                assertTrue(rr.matches(), line);
                assertEquals(t.get("iwarp_rdma.sinkstag"), rr.group(1), line);
                assertEquals(t.get("iwarp_rdma.sinkto"), String.format("0x%016x", Long.parseLong(rr.group(2), 16)), line);
                assertEquals(t.get("iwarp_rdma.rdmardsz"), rr.group(3), line);
                assertEquals(t.get("iwarp_rdma.srcstag"), rr.group(4), line);
                assertEquals(t.get("iwarp_rdma.srcto"), String.format("0x%016x", Long.parseLong(rr.group(5), 16)), line);
            }
            if (name.equals("Terminate")) {
                // RFC 5040 §7.1 layer 2 LLP; RFC 5044 §8 error type 0 MPA, code 2 CRC error
                assertTrue(rdmap.startsWith("Terminate (layer LLP, type MPA, code CRC error)"), line);
                assertEquals("0x02", t.get("iwarp_rdma.term_layer"), line);
                assertEquals("0x00", t.get("iwarp_rdma.term_etype_llp"), line);
                assertEquals("0x02", t.get("iwarp_rdma.term_errcode_llp"), line);
            }
        }
        assertEquals(8, fpdus);
        assertTrue(ours.get(SampleTrace.FRAME_BAD_CRC - 1).contains("CRC BAD"), ours.get(SampleTrace.FRAME_BAD_CRC - 1));
    }

    /**
     * CRC negotiation as Wireshark reads it: a connection where only the Request, only the Reply, or neither has
     * the C flag. RFC 5044 §7.1: CRC is used when either asks; both tools must then agree on every FPDU's length
     * and CRC verdict.
     */
    @Test
    void crcNegotiationAgrees() throws Exception {
        int[][] cases = {{MpaFrame.FLAG_CRC, 0}, {0, MpaFrame.FLAG_CRC}, {0, 0}};
        for (int k = 0; k < cases.length; k++) {
            int requestFlags = cases[k][0];
            int replyFlags = cases[k][1];
            boolean crc = (requestFlags | replyFlags) != 0;
            Path capture = dir.resolve("crc" + k + ".pcap");
            try (PcapWriter w = PcapWriter.open(capture, TimestampResolution.NANOSECONDS)) {
                MiniConversation c = new MiniConversation(w);
                c.send(true, TcpHeader.SYN, 0);
                c.send(false, TcpHeader.SYN | TcpHeader.ACK, 0);
                c.send(true, TcpHeader.ACK, 0);
                MpaFrame.Builder mpa = new MpaFrame.Builder();
                c.send(true, TcpHeader.PSH | TcpHeader.ACK, mpa.reset().request().flags(requestFlags)
                        .rtr(4, 4, true, false, true, false).build(c.payload, 0, 1024));
                c.send(false, TcpHeader.PSH | TcpHeader.ACK, mpa.reset().reply().flags(replyFlags)
                        .rtr(4, 4, true, false, true, false).build(c.payload, 0, 1024));
                IwarpFrame iwarp = new IwarpFrame();
                // RFC 5044 §4.1: the CRC field is in every FPDU; without CRC it holds any value (zeros, as siw)
                int n = iwarp.writeTagged(c.payload, 0, 1024, RdmapOpcode.CODE_RDMA_WRITE, true, 0, 0, null, 0, 0,
                        true);
                if (!crc) {
                    c.payload.writeInt(n - 4, 0);
                }
                c.send(true, TcpHeader.PSH | TcpHeader.ACK, n);
                n = iwarp.writeUntagged(c.payload, 0, 1024, RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, c.payload, 512, 9,
                        true);
                if (!crc) {
                    c.payload.writeInt(n - 4, 0);
                }
                c.send(false, TcpHeader.PSH | TcpHeader.ACK, n);
            }
            List<String> decoded = decode(Files.readAllBytes(capture));
            List<String> fields = Tshark.run(dir, capture, "--disable-protocol", "rpcordma", "-T", "fields",
                    "-e", "frame.number", "-e", "iwarp_mpa.ulpdulength", "-e", "_ws.col.Protocol");
            Map<Integer, String> verdicts = new HashMap<>();
            int frame = 0;
            for (String line : Tshark.run(dir, capture, "--disable-protocol", "rpcordma", "-V")) {
                if (line.startsWith("Frame ") && line.contains(": ")) {
                    frame = Integer.parseInt(line.substring(6, line.indexOf(':')));
                }
                Matcher m = CRC_CHECK.matcher(line);
                if (m.find()) {
                    verdicts.put(frame, m.group(2));
                }
            }
            String label = Arrays.toString(cases[k]);
            for (int i = 5; i < 7; i++) {
                Matcher f = FPDU.matcher(decoded.get(i));
                assertTrue(f.find(), label + " " + decoded.get(i));
                String[] t = fields.get(i).split("\t", -1);
                assertEquals(crc ? "ok" : "off", f.group(2), label + " " + decoded.get(i));
                assertEquals(crc ? "Good" : null, verdicts.get(i + 1), label + " " + decoded.get(i));
                assertEquals("DDP/RDMA", t[2], label + " " + fields.get(i));
                assertEquals(t[1], f.group(1), label + " " + decoded.get(i));
            }
        }
    }

    /** Frames of one TCP connection 192.0.2.1:49152 ⇄ 192.0.2.2:4791 with consistent numbers, to a pcap. */
    private static final class MiniConversation {
        final TcpPacketBuilder tcp = new TcpPacketBuilder();
        final BytesStore<?, byte[]> frame = BytesStore.wrap(new byte[2048]);
        final BytesStore<?, byte[]> payload = BytesStore.wrap(new byte[1024]);
        final PcapWriter out;
        long nextA = 100;
        long nextB = 900;
        long now;

        MiniConversation(PcapWriter out) {
            this.out = out;
        }

        void send(boolean fromA, int flags, int length) {
            tcp.reset();
            if (fromA) {
                tcp.ethernet(SampleTrace.RESPONDER_MAC, SampleTrace.INITIATOR_MAC)
                        .ipv4(SampleTrace.INITIATOR_IP, SampleTrace.RESPONDER_IP);
                tcp.tcp().ports(49152, 4791);
            } else {
                tcp.ethernet(SampleTrace.INITIATOR_MAC, SampleTrace.RESPONDER_MAC)
                        .ipv4(SampleTrace.RESPONDER_IP, SampleTrace.INITIATOR_IP);
                tcp.tcp().ports(4791, 49152);
            }
            tcp.tcp().sequenceNumber(fromA ? nextA : nextB).flags(flags).window(8192)
                    .acknowledgmentNumber((flags & TcpHeader.ACK) != 0 ? (fromA ? nextB : nextA) : 0);
            int n = tcp.build(frame, 0, payload, 0, length);
            out.frame(now += 10_000, frame, 0, n);
            long advance = length + ((flags & (TcpHeader.SYN | TcpHeader.FIN)) != 0 ? 1 : 0);
            if (fromA) {
                nextA += advance;
            } else {
                nextB += advance;
            }
        }
    }

    private static String swap(String hex) {
        return String.format("0x%08x", Integer.reverseBytes(Integer.parseUnsignedInt(hex.substring(2), 16)));
    }
}
