package dev.irdmaemu.bridge.lan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.io.File;
import java.io.IOException;
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
 * The responder's answers, as Wireshark sees them: each request and its answer written to a pcap and dissected by
 * tshark, with checksum validation on, must decode as the expected protocol and message with good checksums.
 * Without tshark on PATH this fails with the command that installs it (./irdma-emu test installs it).
 */
class LanResponderTsharkTest {
    @TempDir
    Path dir;

    @Test
    void tsharkDecodesEveryAnswerWithGoodChecksums() throws IOException, InterruptedException {
        Path pcap = dir.resolve("lan.pcap");
        try (PcapWriter w = PcapWriter.open(pcap, TimestampResolution.NANOSECONDS)) {
            long[] t = {0};
            LanResponder r = new LanResponder(LanFrames.MODEL, (s, o, l) -> w.frame(t[0] += 1000, s, o, l),
                    LanResponder.NeighbourSink.NONE);
            for (byte[] f : List.of(LanFrames.arpRequest(), LanFrames.echo(0x1d, 1, 56), LanFrames.solicitation(),
                    LanFrames.echo6(0x1e, 2, 56))) {
                w.frame(t[0] += 1000, BytesStore.wrap(f), 0, f.length);
                r.frame(BytesStore.wrap(f), 0, f.length);
            }
            assertEquals(4, r.answered());
        }
        List<String> lines = tshark(pcap, "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "separator=|",
                "-e", "frame.number", "-e", "arp.opcode", "-e", "ip.checksum.status", "-e", "icmp.type",
                "-e", "icmp.checksum.status", "-e", "icmpv6.type", "-e", "icmpv6.checksum.status",
                "-e", "icmpv6.nd.na.flag.s", "-e", "icmpv6.opt.linkaddr", "-e", "icmp.resp_to", "-e", "icmpv6.resp_to");
        // checksum status 1 is Good (Wireshark's proto.h PROTO_CHECKSUM_E_GOOD); resp_to links a reply to its request
        assertEquals(List.of(
                "1|1|||||||||",
                "2|2|||||||||",
                "3||1|8|1||||||",
                "4||1|0|1|||||3|",
                "5|||||135|1||02:00:00:00:00:02||",
                "6|||||136|1|1|02:00:00:00:00:01||",
                "7|||||128|1||||",
                "8|||||129|1||||7"), lines, String.join("\n", lines));
    }

    private List<String> tshark(Path file, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(onPath("tshark"), "-n", "-r", file.toString()));
        command.addAll(List.of(args));
        Path out = dir.resolve("tshark.out");
        Path err = dir.resolve("tshark.err");
        Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        // a guard against a hung child, not a timing assertion
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            fail("tshark did not finish: " + command);
        }
        assertEquals(0, p.exitValue(), () -> "tshark failed: " + command + "\n" + read(err));
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static String onPath(String program) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(File.pathSeparator)) {
                File f = new File(d.isEmpty() ? "." : d, program);
                if (f.isFile() && f.canExecute()) {
                    return f.getPath();
                }
            }
        }
        return fail(program + " is not on PATH: `./irdma-emu test` installs it "
                + "(as root: apt-get install -y --no-install-recommends tshark)");
    }
}
