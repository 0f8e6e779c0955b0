package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code irdma-emu e810}: usage errors before anything starts, and one whole run (Linux 7.3's ice and irdma on the
 * emulated E810) whose report names the guest's verdict, the model's state afterwards and the run folder's files.
 */
class E810CommandTest {
    private record Run(int code, String out, String err) {
    }

    @TempDir
    Path tmp;

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertEquals(ExitCodes.USAGE, run("e810", "--rdma", "infiniband").code());
        assertEquals(ExitCodes.USAGE, run("e810", "--timeout", "1").code());
        Run help = run("e810", "--help");
        assertEquals(ExitCodes.OK, help.code());
        assertTrue(help.out().contains("--rdma") && help.out().contains("vfio-user"), help.out());
    }

    @Test
    void aRunReportsIceAndIrdmaOnTheModelAndWritesConsoleAndTrace() throws Exception {
        Path dir = tmp.resolve("run");
        Run r = run("e810", "--rdma", "iwarp", "--out", dir.toString());
        assertEquals(ExitCodes.OK, r.code(), () -> r.out() + r.err());
        assertTrue(r.out().contains("guest: ok"), r.out());
        assertTrue(r.out().contains("ice: loaded, E810 function 0000:01:00.0, DDP package ice-1.3."), r.out());
        assertTrue(r.out().contains("irdma: loaded, mode iwarp, rdma links 1, transport iWARP"), r.out());
        assertTrue(r.out().contains("afterwards 0 QPs and 0 CQs held"), r.out());
        assertTrue(Files.readString(dir.resolve("trace.jsonl")).contains("\"op\":\"QUERY_RDMA_FEATURES\""));
        assertTrue(Files.readString(dir.resolve("console.log")).contains("hca_id:\tirdma0"));
    }
}
