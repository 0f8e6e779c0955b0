package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.SampleTrace;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.SampleFrames;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The irdma-emu command run in-process, with its output captured. */
class MainTest {
    private static final String UDP = "192.0.2.1 → 192.0.2.2 UDP 47 50000 → 50001 Len=5";
    private static final String TCP = "198.51.100.1 → 198.51.100.2 TCP 54 50002 → 50003 [SYN] Seq=0 Win=65535 Len=0";
    private static final String COUNT = "192.0.2.2 → 192.0.2.1 UDP 106 50001 → 50000 Len=64";

    record Run(int code, String out, String err) {
        List<String> outLines() {
            return out.lines().toList();
        }

        List<String> errLines() {
            return err.lines().toList();
        }
    }

    @TempDir
    Path dir;

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @AfterEach
    void quiet() {
        Verbosity.apply(0);
    }

    @Test
    void helpListsTheCommandsAndExitCodes() {
        Run r = run("--help");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("Usage: irdma-emu"), r.out());
        for (String expected : new String[] {"Commands:", "decode", "sample", "version", "help", "-v, --verbose",
            "Exit codes:", "65", "66", "74"}) {
            assertTrue(r.out().contains(expected), () -> "no " + expected + " in\n" + r.out());
        }
        assertEquals("", r.err());
    }

    @Test
    void versionPrintsTheProjectVersionAndJava() {
        String expected = System.getProperty("irdmaemu.expected.version");
        assertTrue(expected != null && !expected.isEmpty(), "surefire passes irdmaemu.expected.version");
        Run r = run("version");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("irdma-emu " + expected, BuildInfo.java()), r.outLines());
        assertTrue(BuildInfo.java().startsWith("Java " + System.getProperty("java.version")));
        assertEquals(r.out(), run("--version").out());
    }

    @Test
    void decodePrintsOneLinePerFrameWithMicrosecondTimes() throws IOException {
        Path pcap = dir.resolve("micro.pcap");
        try (PcapWriter w = PcapWriter.open(pcap, TimestampResolution.MICROSECONDS)) {
            w.frame(10_000_000_000L, SampleFrames.store(SampleFrames.UDP_HELLO_HEX), 0, 47);
            w.frame(10_000_001_999L, SampleFrames.store(SampleFrames.TCP_SYN_HEX), 0, 54);
            w.frame(12_500_000_000L, SampleFrames.store(SampleFrames.UDP_COUNT_HEX), 0, 106);
        }
        Run r = run("decode", pcap.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(
                "    1 0.000000 " + UDP,
                "    2 0.000001 " + TCP,
                "    3 2.500000 " + COUNT), r.outLines());
        assertEquals("", r.err());
    }

    @Test
    void decodePrintsNineDecimalsForANanosecondFileAndMarksCutFrames() throws IOException {
        Path pcap = dir.resolve("nano.pcap");
        try (PcapWriter w = PcapWriter.open(pcap, TimestampResolution.NANOSECONDS, 64, ByteOrder.BIG_ENDIAN)) {
            w.frame(7, SampleFrames.store(SampleFrames.UDP_HELLO_HEX), 0, 47);
            w.frame(1_000_000_008L, SampleFrames.store(SampleFrames.UDP_COUNT_HEX), 0, 106);
            w.frame(3, SampleFrames.store(SampleFrames.TCP_SYN_HEX), 0, 54);
        }
        Run r = run("decode", pcap.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(
                "    1 0.000000000 " + UDP,
                "    2 1.000000001 02:00:00:00:00:02 → 02:00:00:00:00:01 IPv4 64 "
                        + "IPv4: total length reaches past the end of the buffer at 16 [captured 64 of 106]",
                "    3 -0.000000004 " + TCP), r.outLines());
    }

    @Test
    void decodeOfAnEmptyCapturePrintsNothing() throws IOException {
        Path pcap = dir.resolve("empty.pcap");
        PcapWriter.open(pcap, TimestampResolution.MICROSECONDS).close();
        Run r = run("decode", pcap.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out());
    }

    @Test
    void missingFile() {
        Path absent = dir.resolve("absent.pcap");
        Run r = run("decode", absent.toString());
        assertEquals(ExitCodes.NO_INPUT, r.code());
        assertEquals(List.of("irdma-emu: decode: " + absent + ": no such file"), r.errLines());
        assertEquals("", r.out());
    }

    @Test
    void notAPcapFile() throws IOException {
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "these are notes, not packets\n");
        Run r = run("decode", text.toString());
        assertEquals(ExitCodes.DATA_ERROR, r.code());
        assertEquals(List.of("irdma-emu: decode: " + text
                + ": not a classic pcap file (unknown magic number) at byte 0: 0x74686573"), r.errLines());
        assertEquals("", r.out());
    }

    @Test
    void truncatedPcapPrintsTheFramesBeforeTheCutThenOneError() throws IOException {
        Path pcap = dir.resolve("cut.pcap");
        try (PcapWriter w = PcapWriter.open(pcap, TimestampResolution.MICROSECONDS)) {
            w.frame(0, SampleFrames.store(SampleFrames.UDP_HELLO_HEX), 0, 47);
            w.frame(1_000, SampleFrames.store(SampleFrames.TCP_SYN_HEX), 0, 54);
        }
        byte[] whole = Files.readAllBytes(pcap);
        Files.write(pcap, Arrays.copyOf(whole, whole.length - 10));
        Run r = run("decode", pcap.toString());
        assertEquals(ExitCodes.DATA_ERROR, r.code());
        assertEquals(List.of("    1 0.000000 " + UDP), r.outLines());
        assertEquals(List.of("irdma-emu: decode: " + pcap
                + ": truncated record data at byte 103: frame 2: 44 of 54 bytes"), r.errLines());
    }

    @Test
    void aDirectoryCannotBeRead() {
        Run r = run("decode", dir.toString());
        assertEquals(ExitCodes.IO_ERROR, r.code());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().startsWith("irdma-emu: decode: " + dir + ": cannot read: "), r.err());
    }

    @Test
    void usageErrors() {
        Run none = run();
        assertEquals(ExitCodes.USAGE, none.code());
        assertTrue(none.err().startsWith("irdma-emu: a command is required\n"), none.err());
        Run unknown = run("--frobnicate");
        assertEquals(ExitCodes.USAGE, unknown.code());
        assertTrue(unknown.err().startsWith("irdma-emu: Unknown option: '--frobnicate'"), unknown.err());
        Run twoFiles = run("decode", "a.pcap", "b.pcap");
        assertEquals(ExitCodes.USAGE, twoFiles.code());
        assertTrue(twoFiles.err().contains("Try 'irdma-emu decode --help'"), twoFiles.err());
        assertEquals(2, twoFiles.errLines().size(), twoFiles.err());
    }

    @Test
    void decodeWithoutAFileDecodesTheBuiltInSample() throws IOException {
        Run r = run("decode");
        assertEquals(0, r.code(), r.err());
        assertEquals(SampleTrace.FRAMES, r.outLines().size(), r.out());
        Path file = dir.resolve("handshake.pcap");
        SampleTrace.writeFile(file);
        assertEquals(r.out(), run("decode", file.toString()).out());
        assertTrue(r.outLines().get(0).startsWith("    1 0.000000000 192.0.2.1 → 192.0.2.2 TCP 66 49152 → 4791 [SYN]"),
                r.out());
    }

    @Test
    void sampleWritesTheTraceWhereAsked() throws IOException {
        Path file = dir.resolve("new/handshake.pcap");
        Run r = run("sample", file.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("wrote " + file + " (" + SampleTrace.FRAMES + " frames)"), r.outLines());
        assertArrayEquals(SampleTrace.pcapBytes(), Files.readAllBytes(file));
        Files.writeString(dir.resolve("plain"), "x");
        Run notADirectory = run("sample", dir.resolve("plain").resolve("x.pcap").toString());
        assertEquals(ExitCodes.IO_ERROR, notADirectory.code());
        assertEquals(1, notADirectory.errLines().size(), notADirectory.err());
        assertTrue(notADirectory.err().startsWith("irdma-emu: sample: "), notADirectory.err());
    }

    @Test
    void verboseRaisesTheProjectLogLevelWhereverItIsGiven() throws IOException {
        Path pcap = dir.resolve("v.pcap");
        PcapWriter.open(pcap, TimestampResolution.MICROSECONDS).close();
        ch.qos.logback.classic.Logger project = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.irdmaemu");
        assertEquals(0, run("-v", "decode", "-v", pcap.toString()).code());
        assertEquals(ch.qos.logback.classic.Level.DEBUG, project.getLevel());
        assertEquals(0, run("decode", "--verbose", pcap.toString()).code());
        assertEquals(ch.qos.logback.classic.Level.INFO, project.getLevel());
        assertEquals(0, run("decode", pcap.toString()).code());
        assertEquals(null, project.getLevel(), "without -v: the configured level (WARN in logback.xml)");
    }
}
