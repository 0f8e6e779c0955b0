package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code irdma-emu rping}: the Java rping pair on two model nodes, its printout, its capture, its refusals. */
class RpingCommandTest {
    @TempDir
    Path dir;

    @Test
    void tenVerifiedPingsAndACaptureThatDecodesToRpingsProtocol() {
        Path pcap = dir.resolve("rping.pcap");
        MainTest.Run r = MainTest.run("rping", "-C", "10", "-V", "--pcap", pcap.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("client: ok, 10 pings, 10 verified, 640 bytes read, 640 bytes written"), r.out());
        assertTrue(r.out().contains("server: ok, 10 pings, 10 verified, 640 bytes read, 640 bytes written"), r.out());
        MainTest.Run decoded = MainTest.run("decode", pcap.toString());
        assertEquals(0, decoded.code(), decoded.err());
        List<String> frames = decoded.outLines();
        assertEquals(40, frames.stream().filter(l -> l.contains("RDMAP Send 16 bytes")).count(),
                "4 Sends a ping: " + decoded.out());
        assertEquals(10, frames.stream().filter(l -> l.contains("RDMA Write 64 bytes")).count(), decoded.out());
        assertEquals(10, frames.stream().filter(l -> l.contains("Read Response 64 bytes")).count(), decoded.out());
    }

    @Test
    void overIpv6WithBiggerPings() {
        MainTest.Run r = MainTest.run("rping", "--ipv6", "-C", "3", "-S", "5000", "-V");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("server [2001:db8:0:0:0:0:0:2]:7174"), r.out());
        assertTrue(r.out().contains("client: ok, 3 pings, 3 verified, 15000 bytes read"), r.out());
    }

    /** Both models' trace in one file, each line tagged with its node; the trace command reads it. */
    @Test
    void traceOfBothNodesTaggedAndReadableByTheTraceCommand() throws IOException {
        Path trace = dir.resolve("rping.jsonl");
        MainTest.Run r = MainTest.run("rping", "-C", "3", "--trace", trace.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("the models' trace is in " + trace), r.out());
        List<String> lines = Files.readAllLines(trace);
        assertTrue(lines.stream().allMatch(l -> l.startsWith("{\"node\":\"A\",\"t\":")
                || l.startsWith("{\"node\":\"B\",\"t\":")), lines.get(0));
        for (String node : new String[] {"A", "B"}) {
            String tag = "{\"node\":\"" + node + "\"";
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(tag) && l.contains("\"ev\":\"frame_tx\"")), node);
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(tag) && l.contains("\"ev\":\"cqe\"")), node);
        }
        MainTest.Run read = MainTest.run("trace", trace.toString(), "--kind", "cqp");
        assertEquals(0, read.code(), read.err());
        assertTrue(read.out().contains("CREATE_QP"), read.out());
    }

    @Test
    void aTraceThatCannotBeWrittenIsAnIoError() {
        MainTest.Run r = MainTest.run("rping", "-C", "1", "--trace", dir.resolve("no/such/dir/t.jsonl").toString());
        assertEquals(ExitCodes.IO_ERROR, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("cannot write"), r.err());
    }

    @Test
    void rpingsSizeLimitsAreUsageErrors() {
        MainTest.Run r = MainTest.run("rping", "-S", "25");
        assertEquals(ExitCodes.USAGE, r.code());
        assertTrue(r.err().contains("Invalid size 25 (valid range is 26 to 65535)"), r.err());
        assertEquals(ExitCodes.USAGE, MainTest.run("rping", "-C", "0").code());
    }
}
