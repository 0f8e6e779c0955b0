package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code irdma-emu trace}: its exit codes and its answer to a malformed line (the line's number). */
class TraceCommandTest {
    private static final String GOOD = "{\"t\":1000,\"ev\":\"reg_write\",\"reg\":\"CQPDB\",\"idx\":0,"
            + "\"off\":\"0x500800\",\"val\":\"0x1\",\"handler\":\"cqp_doorbell\"}\n"
            + "{\"t\":2000,\"ev\":\"cqp_error\",\"op\":\"CREATE_QP\",\"wqe\":0,\"result\":\"BAD_QP\","
            + "\"major\":\"0xffff\",\"minor\":\"0x1\",\"ret\":0,\"latency_ns\":2600,\"qp\":3}\n";

    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

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

    private Path file(String text) throws IOException {
        Path p = dir.resolve("trace.jsonl");
        Files.writeString(p, text);
        return p;
    }

    @Test
    void printsTheTimeline() throws IOException {
        Run r = run("trace", file(GOOD).toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("  0.000001000 mmio  rdma  W PFPE_CQPDB 0x00000001 SQ_HEAD=1\n"
                + "  0.000002000 cqp   rdma  CREATE_QP wqe=0 qp=3 → ERROR BAD_QP major=0xffff minor=0x1 2.6 µs"
                + "  <== error\n", r.out());
    }

    @Test
    void aMalformedLineIsADataErrorNamingItsLine() throws IOException {
        Run r = run("trace", file(GOOD + "\n{\"t\":3000,\"ev\":\"reg_read\",\"reg\":\n").toString());
        assertEquals(ExitCodes.DATA_ERROR, r.code());
        assertTrue(r.err().contains("line 4: "), r.err());
        assertTrue(r.out().contains("SQ_HEAD=1"), "the lines before it were printed: " + r.out());
        for (String bad : new String[] {"not json\n", "{\"ev\":\"x\"}\n", "{\"t\":\"12\",\"ev\":\"x\"}\n",
            "{\"t\":1,\"ev\":2}\n", "{\"t\":1,\"ev\":\"x\"} trailing\n", "{\"t\":1,\"ev\":\"x\",\"k\":tru}\n",
            "{\"t\":1,\"ev\":\"x\",\"k\":\"unterminated}\n", "[1,2]\n"}) {
            Run b = run("trace", file(bad).toString());
            assertEquals(ExitCodes.DATA_ERROR, b.code(), bad);
            assertTrue(b.err().startsWith("irdma-emu: trace: ") && b.err().contains(": line 1: "), b.err());
        }
    }

    @Test
    void exitCodes() throws IOException {
        Path f = file(GOOD);
        assertEquals(ExitCodes.NO_INPUT, run("trace", dir.resolve("missing.jsonl").toString()).code());
        assertEquals(ExitCodes.IO_ERROR, run("trace", dir.toString()).code());
        assertEquals(ExitCodes.USAGE, run("trace", f.toString(), "--from", "banana").code());
        assertEquals(ExitCodes.USAGE, run("trace", f.toString(), "--kind", "nonsense!").code());
        assertEquals(ExitCodes.USAGE, run("trace", f.toString(), "--before", "qp<x").code());
        assertEquals(ExitCodes.USAGE, run("trace", f.toString(), "--before", "error", "--until-error").code());
        Run until = run("trace", f.toString(), "--until-error", "--context", "5");
        assertEquals(0, until.code(), until.err());
        assertTrue(until.out().lines().toList().get(1).startsWith(">> "), until.out());
        Run none = run("trace", f.toString(), "--before", "ae");
        assertEquals(ExitCodes.FAILED, none.code());
        assertTrue(none.err().contains("no event matches 'ae' (2 events read)"), none.err());
        Run sum = run("trace", f.toString(), "--summary");
        assertEquals(0, sum.code());
        assertTrue(sum.out().startsWith("events    2, simulated time"), sum.out());
        assertTrue(sum.out().contains("errors    1"), sum.out());
    }
}
