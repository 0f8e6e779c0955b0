package dev.irdmaemu.fw.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files from {@link PcapWriter} open in Wireshark's tshark with every frame intact: count, lengths, timestamps,
 * addresses, and the IPv4/UDP/TCP checksums (tshark verifies them, so one changed byte shows). Needs tshark on
 * PATH: {@code ./irdma-emu test} installs it; without it this test fails, it does not skip.
 */
class PcapTsharkTest {
    private static final String[] FIELDS = {
        "frame.number", "frame.time_epoch", "frame.len", "frame.cap_len", "eth.src", "eth.dst", "ip.src", "ip.dst",
        "ip.checksum.status", "udp.checksum.status", "tcp.checksum.status", "tcp.seq_raw", "data.data",
    };

    @TempDir
    Path dir;

    @Test
    void microsecondFileLittleEndian() throws Exception {
        Path file = dir.resolve("micro.pcap");
        try (PcapWriter w = PcapWriter.open(file, TimestampResolution.MICROSECONDS)) {
            w.frame(0L, SampleFrames.store(SampleFrames.UDP_HELLO_HEX), 0, 47);
            w.frame(1_000_001_000L, SampleFrames.store(SampleFrames.TCP_SYN_HEX), 0, 54);
            // 2.500000999 s: a microsecond file keeps 2.500000
            w.frame(2_500_000_999L, SampleFrames.store(SampleFrames.UDP_COUNT_HEX), 0, 106);
        }
        assertEquals(List.of(
                udpHello("1", "0.000000000"),
                tcpSyn("2", "1.000001000"),
                udpCount("3", "2.500000000", "106")), tshark(file));
    }

    @Test
    void nanosecondFileBigEndian() throws Exception {
        Path file = dir.resolve("nano.pcap");
        try (PcapWriter w = PcapWriter.open(file, TimestampResolution.NANOSECONDS, PcapWriter.DEFAULT_SNAPLEN,
                ByteOrder.BIG_ENDIAN)) {
            w.frame(5L, SampleFrames.store(SampleFrames.UDP_HELLO_HEX), 0, 47);
            w.frame(1_000_000_001L, SampleFrames.store(SampleFrames.TCP_SYN_HEX), 0, 54);
            w.frame(4_294_967_295_999_999_999L, SampleFrames.store(SampleFrames.UDP_COUNT_HEX), 0, 106);
        }
        assertEquals(List.of(
                udpHello("1", "0.000000005"),
                tcpSyn("2", "1.000000001"),
                udpCount("3", "4294967295.999999999", "106")), tshark(file));
    }

    @Test
    void snaplenCutsTheCapturedBytesButKeepsTheWireLength() throws Exception {
        Path file = dir.resolve("snap.pcap");
        BytesStore<?, byte[]> big = SampleFrames.store(SampleFrames.UDP_COUNT_HEX);
        try (PcapWriter w = PcapWriter.open(file, TimestampResolution.MICROSECONDS, 64, ByteOrder.LITTLE_ENDIAN)) {
            w.frame(7_000L, big, 0, 106);
        }
        List<String> lines = tshark(file);
        assertEquals(1, lines.size(), lines::toString);
        String[] f = lines.get(0).split("\t", -1);
        assertEquals("1", f[0]);
        assertEquals("0.000007000", f[1]);
        assertEquals("106", f[2], "frame.len is orig_len");
        assertEquals("64", f[3], "frame.cap_len is incl_len");
        assertEquals(SampleFrames.MAC_B, f[4]);
    }

    private static String udpHello(String number, String time) {
        return String.join("\t", number, time, "47", "47", SampleFrames.MAC_A, SampleFrames.MAC_B,
                "192.0.2.1", "192.0.2.2", "1", "1", "", "", "68656c6c6f");
    }

    private static String tcpSyn(String number, String time) {
        return String.join("\t", number, time, "54", "54", SampleFrames.MAC_B, SampleFrames.MAC_A,
                "198.51.100.1", "198.51.100.2", "1", "", "1", Long.toString(0x01020304L), "");
    }

    private static String udpCount(String number, String time, String length) {
        StringBuilder payload = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            payload.append(String.format("%02x", i));
        }
        return String.join("\t", number, time, length, length, SampleFrames.MAC_B, SampleFrames.MAC_A,
                "192.0.2.2", "192.0.2.1", "1", "1", "", "", payload);
    }

    /** tshark's field output for {@code file}, one line per frame. */
    private List<String> tshark(Path file) throws IOException, InterruptedException {
        String tshark = findOnPath("tshark");
        List<String> command = new ArrayList<>(List.of(tshark, "-n", "-r", file.toString(),
                "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                "-T", "fields", "-E", "separator=/t"));
        for (String field : FIELDS) {
            command.add("-e");
            command.add(field);
        }
        Path out = dir.resolve(file.getFileName() + ".out");
        Path err = dir.resolve(file.getFileName() + ".err");
        Process p = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        // a guard against a hung child, not a timing assertion
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail("tshark did not finish");
        }
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "tshark failed: " + stderr);
        assertTrue(!stderr.contains("appears to have been cut short") && !stderr.contains("isn't a capture file"),
                () -> "tshark complained: " + stderr);
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }

    private static String findOnPath(String program) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                File f = new File(d.isEmpty() ? "." : d, program);
                if (f.isFile() && f.canExecute()) {
                    return f.getPath();
                }
            }
        }
        return fail(program + " is not on PATH (" + path + "): this test needs it. `./irdma-emu test` installs it "
                + "(as root: apt-get install -y --no-install-recommends tshark)");
    }
}
