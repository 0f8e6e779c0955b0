package dev.irdmaemu.fw.roce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
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
 * Wireshark's InfiniBand dissector (tshark 4.0, which takes UDP port 4791 as RoCEv2) reads the representative
 * frames as {@link RoceFrame} does: no malformed frame, and the same opcode, DestQP, PSN, AckReq, SE, pad count,
 * P_Key, RETH, AETH, DETH, ImmDt, IETH and ICRC bytes, with every IPv4 and filled-in UDP checksum good. (tshark 4.0
 * shows the ICRC but does not verify it; {@link IcrcTest} checks it against a hardware capture.) Needs tshark on
 * PATH: fails, never skips, without it.
 */
class RoceTsharkTest {
    private static final String[] FIELDS = {
        "frame.number", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.a",
        "infiniband.bth.se", "infiniband.bth.padcnt", "infiniband.bth.p_key", "infiniband.reth.va",
        "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
        "infiniband.deth.q_key", "infiniband.deth.srcqp", "infiniband.immdt", "infiniband.ieth",
        "infiniband.invariant.crc", "ip.checksum.status", "udp.checksum.status", "udp.dstport",
    };

    @TempDir
    Path dir;

    private final RoceFrame frame = new RoceFrame();

    @Test
    void tsharkReadsEverySampleAsWeDo() throws Exception {
        List<RoceSamples.Sample> samples = RoceSamples.all();
        Path file = dir.resolve("roce.pcap");
        try (PcapWriter w = PcapWriter.open(file, TimestampResolution.MICROSECONDS)) {
            long t = 0;
            for (RoceSamples.Sample s : samples) {
                w.frame(t += 1000, BytesStore.wrap(s.bytes()), 0, s.bytes().length);
            }
        }
        assertEquals(List.of(), tshark(file, "-Y", "_ws.malformed"), "malformed frames");
        List<String> args = new ArrayList<>(List.of("-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
                "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"));
        for (String f : FIELDS) {
            args.add("-e");
            args.add(f);
        }
        List<String> lines = tshark(file, args.toArray(String[]::new));
        assertEquals(samples.size(), lines.size());
        for (int i = 0; i < samples.size(); i++) {
            RoceSamples.Sample s = samples.get(i);
            String[] t = lines.get(i).split("\t", -1);
            assertEquals(FIELDS.length, t.length, lines.get(i));
            assertEquals(RoceCheck.ACCEPTED, frame.wrap(BytesStore.wrap(s.bytes()), 0, s.bytes().length)
                    .validate(PathMtu.MTU_256), s.name());
            compare(s.name(), t);
        }
    }

    private void compare(String name, String[] t) {
        Bth bth = frame.bth();
        assertEquals(Integer.toString(bth.opcodeCode()), t[1], name);
        assertEquals(String.format("0x%06x", bth.destinationQp()), t[2], name);
        assertEquals(Integer.toString(bth.psn()), t[3], name);
        assertEquals(bth.ackRequest() ? "1" : "0", t[4], name);
        assertEquals(bth.solicitedEvent() ? "1" : "0", t[5], name);
        assertEquals(Integer.toString(bth.padCount()), t[6], name);
        assertEquals(Integer.toString(bth.partitionKey()), t[7], name);
        BthOpcode op = frame.opcode().orElseThrow();
        ExtensionHeaders h = frame.headers();
        if (op.carries(ExtensionHeader.RETH)) {
            assertEquals(String.format("0x%016x", h.reth().virtualAddress()), t[8], name);
            assertEquals(String.format("0x%08x", h.reth().remoteKey()), t[9], name);
            assertEquals(Long.toString(h.reth().dmaLength()), t[10], name);
        } else if (op.carries(ExtensionHeader.ATOMIC_ETH)) {
            // tshark 4.0 files the AtomicETH's address and R_Key under the RETH's field names
            assertEquals(String.format("0x%016x", h.atomicEth().virtualAddress()), t[8], name);
            assertEquals(String.format("0x%08x", h.atomicEth().remoteKey()), t[9], name);
        } else {
            assertEquals("", t[8], name);
        }
        if (op.carries(ExtensionHeader.AETH)) {
            assertEquals(Integer.toString(h.aeth().syndrome()), t[11], name);
            assertEquals(Integer.toString(h.aeth().msn()), t[12], name);
        } else {
            assertEquals("", t[11], name);
        }
        if (op.carries(ExtensionHeader.DETH)) {
            assertEquals(String.format("0x%016x", h.deth().queueKey() & 0xffff_ffffL), t[13], name);
            assertEquals(String.format("0x%08x", h.deth().sourceQp()), t[14], name);
        }
        assertEquals(op.carries(ExtensionHeader.IMM_DT) ? String.format("%08x", h.immDt().immediate()) : "", t[15],
                name);
        assertEquals(op.carries(ExtensionHeader.IETH) ? String.format("%08x", h.ieth().remoteKey()) : "", t[16], name);
        if (op != BthOpcode.CNP) { // tshark 4.0 does not know the CNP and shows its tail as vendor data
            assertEquals(String.format("0x%08x", Integer.reverseBytes(frame.receivedIcrc())), t[17], name);
        }
        assertEquals(frame.isIpv6() ? "" : "1", t[18], name + ": IPv4 checksum status");
        assertEquals(frame.udp().checksumAbsent() ? "3" : "1", t[19], name + ": UDP checksum status");
        assertEquals("4791", t[20], name);
    }

    /** tshark's stdout lines for {@code tshark -n -r file ARGS}. */
    private List<String> tshark(Path file, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(findOnPath("tshark"), "-n", "-r", file.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "tshark", ".out");
        Path err = Files.createTempFile(dir, "tshark", ".err");
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
        assertEquals(0, p.exitValue(), () -> "tshark failed: " + command + "\n" + stderr);
        assertTrue(!stderr.contains("appears to have been cut short"), () -> "tshark complained: " + stderr);
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
