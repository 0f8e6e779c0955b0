package dev.irdmaemu.bridge.decode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code samples/handshake.pcap} is exactly what {@link SampleTrace} generates (so it cannot go
 * stale: after changing the trace, run {@code ./irdma-emu sample}), and it decodes to the lines below, which the
 * docs/trace.md quotes.
 */
class SampleTraceTest {
    /** {@code ./irdma-emu decode samples/handshake.pcap}, frame number and time included. */
    static final List<String> DECODED = List.of(
            "    1 0.000000000 192.0.2.1 → 192.0.2.2 TCP 66 49152 → 4791 [SYN] Seq=0 Win=64240 Len=0 MSS=1460 SACK_PERM WS=128",
            "    2 0.000041250 192.0.2.2 → 192.0.2.1 TCP 66 4791 → 49152 [SYN, ACK] Seq=0 Ack=1 Win=64240 Len=0 MSS=1460 SACK_PERM WS=128",
            "    3 0.000081125 192.0.2.1 → 192.0.2.2 TCP 54 49152 → 4791 [ACK] Seq=1 Ack=1 Win=64256 Len=0",
            "    4 0.000093250 192.0.2.1 → 192.0.2.2 MPA 90 49152 → 4791 [PSH, ACK] Seq=1 Ack=1 Win=64256 Len=36 | MPA Req rev 2 [CRC, enhanced] PD 16 IRD 16 ORD 16 P2P RTR=write",
            "    5 0.000133750 192.0.2.2 → 192.0.2.1 TCP 54 4791 → 49152 [ACK] Seq=1 Ack=37 Win=64256 Len=0",
            "    6 0.000218750 192.0.2.2 → 192.0.2.1 MPA 82 4791 → 49152 [PSH, ACK] Seq=1 Ack=37 Win=64256 Len=28 | MPA Rep rev 2 [CRC, enhanced] PD 8 IRD 16 ORD 16 P2P RTR=write",
            "    7 0.000262083 192.0.2.1 → 192.0.2.2 DDP/RDMA 74 49152 → 4791 [PSH, ACK] Seq=37 Ack=29 Win=64256 Len=20 | FPDU len 14 CRC ok DDP tagged STag 0x00000000 TO 0x0 L RDMAP RDMA Write 0 bytes",
            "    8 0.000309084 192.0.2.2 → 192.0.2.1 DDP/RDMA 94 4791 → 49152 [PSH, ACK] Seq=29 Ack=57 Win=64256 Len=40 | FPDU len 34 CRC ok DDP untagged QN 0 MSN 1 MO 0 L RDMAP Send 16 bytes",
            "    9 0.000360318 192.0.2.1 → 192.0.2.2 DDP/RDMA 138 49152 → 4791 [PSH, ACK] Seq=57 Ack=69 Win=64256 Len=84 | FPDU len 78 CRC ok DDP tagged STag 0x00012345 TO 0x7f0000001000 L RDMAP RDMA Write 64 bytes",
            "   10 0.000363528 192.0.2.1 → 192.0.2.2 DDP/RDMA 106 49152 → 4791 [PSH, ACK] Seq=141 Ack=69 Win=64256 Len=52 | FPDU len 46 CRC ok DDP untagged QN 1 MSN 1 MO 0 L RDMAP Read Request (sink STag 0x00abcd01 TO 0x7f0000002000 len 32 source STag 0x00012345 TO 0x7f0000001040)",
            "   11 0.000407972 192.0.2.2 → 192.0.2.1 DDP/RDMA 106 4791 → 49152 [PSH, ACK] Seq=69 Ack=193 Win=64256 Len=52 | FPDU len 46 CRC ok DDP tagged STag 0x00abcd01 TO 0x7f0000002000 L RDMAP Read Response 32 bytes",
            "   12 0.000446737 192.0.2.1 → 192.0.2.2 DDP/RDMA 82 49152 → 4791 [PSH, ACK] Seq=193 Ack=121 Win=64256 Len=28 | FPDU len 22 CRC ok DDP untagged QN 0 MSN 1 MO 0 L RDMAP Send with Invalidate STag 0x00012345 4 bytes",
            "   13 0.000486837 192.0.2.2 → 192.0.2.1 TCP 54 4791 → 49152 [ACK] Seq=121 Ack=221 Win=64256 Len=0",
            "   14 0.000636837 192.0.2.2 → 192.0.2.1 DDP/RDMA 90 4791 → 49152 [PSH, ACK] Seq=121 Ack=221 Win=64256 Len=36 | FPDU len 28 CRC BAD (received 0x31c07eed, computed 0x6bc07eed) DDP untagged QN 0 MSN 2 MO 0 L RDMAP Send 10 bytes",
            "   15 0.000656837 192.0.2.1 → 192.0.2.2 DDP/RDMA 102 49152 → 4791 [PSH, ACK] Seq=221 Ack=157 Win=64256 Len=48 | FPDU len 42 CRC ok DDP untagged QN 2 MSN 1 MO 0 L RDMAP Terminate (layer LLP, type MPA, code CRC error) M len 28 D [DDP untagged QN 0 MSN 2 MO 0 L]",
            "   16 0.000661837 192.0.2.1 → 192.0.2.2 TCP 54 49152 → 4791 [FIN, ACK] Seq=269 Ack=157 Win=64256 Len=0",
            "   17 0.000703837 192.0.2.2 → 192.0.2.1 TCP 54 4791 → 49152 [FIN, ACK] Seq=157 Ack=270 Win=64256 Len=0",
            "   18 0.000744837 192.0.2.1 → 192.0.2.2 TCP 54 49152 → 4791 [ACK] Seq=270 Ack=158 Win=64256 Len=0");

    @TempDir
    Path dir;

    /** The repository root: surefire runs in the module directory (qemu-bridge). */
    static Path committedSample() {
        Path module = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        return module.toAbsolutePath().getParent().resolve(SampleTrace.DEFAULT_FILE);
    }

    @Test
    void theCommittedSampleIsWhatTheGeneratorWrites() throws IOException {
        Path committed = committedSample();
        assertTrue(Files.isRegularFile(committed), () -> committed + " is missing: run ./irdma-emu sample");
        assertArrayEquals(Files.readAllBytes(committed), SampleTrace.pcapBytes(),
                "samples/handshake.pcap is stale: regenerate it with ./irdma-emu sample and commit it");
    }

    @Test
    void generationIsDeterministicAndWriteFileWritesTheSameBytes() throws IOException {
        Path file = dir.resolve("sub/dir/trace.pcap");
        SampleTrace.writeFile(file);
        assertArrayEquals(SampleTrace.pcapBytes(), Files.readAllBytes(file));
        byte[] bytes = SampleTrace.pcapBytes();
        // pcap global header (libpcap format): nanosecond magic 0xa1b23c4d, little-endian
        assertEquals(0x4d, bytes[0] & 0xff);
        assertEquals(0x3c, bytes[1] & 0xff);
        assertEquals(0xb2, bytes[2] & 0xff);
        assertEquals(0xa1, bytes[3] & 0xff);
    }

    @Test
    void theReadmeQuotesTheseLines() throws IOException {
        Path readme = committedSample().getParent().getParent().resolve("docs").resolve("trace.md");
        String text = Files.readString(readme);
        String excerpt = "$ ./irdma-emu decode samples/handshake.pcap\n" + String.join("\n", DECODED) + "\n```";
        assertTrue(text.contains(excerpt), "docs/trace.md's \"Reading a trace\" excerpt differs from SampleTraceTest.DECODED");
    }

    @Test
    void itDecodesToTheDocumentedLines() throws IOException {
        List<String> lines = new ArrayList<>();
        for (String l : DecoderTsharkTest.decode(SampleTrace.pcapBytes())) {
            lines.add(l);
        }
        assertEquals(SampleTrace.FRAMES, lines.size());
        for (int i = 0; i < lines.size(); i++) {
            // DECODED has the CLI's number and time columns; decode() puts "N t " before the summary
            String summary = lines.get(i).substring(lines.get(i).indexOf(" t ") + 3);
            String expected = DECODED.get(i);
            assertEquals(expected.substring(expected.indexOf(' ', 7) + 1), summary);
        }
    }
}
