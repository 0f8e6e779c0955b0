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
        assertEquals(ExitCodes.USAGE, run("e810", "--functions", "0").code());
        assertEquals(ExitCodes.USAGE, run("e810", "--functions", "9").code());
        assertEquals(ExitCodes.USAGE, run("e810", "--pair", "3", "--functions", "2").code());
        Run help = run("e810", "--help");
        assertEquals(ExitCodes.OK, help.code());
        assertTrue(help.out().contains("--rdma") && help.out().contains("vfio-user"), help.out());
    }

    /**
     * A two-function adapter (one slot, functions 0.0 and 0.1, one serial number): ice probes both and irdma registers
     * an iWARP device on each; the trace tells the functions apart.
     */
    @Test
    void aRunReportsIceAndIrdmaOnEachFunctionOfTheModelAndWritesConsoleAndTrace() throws Exception {
        Path dir = tmp.resolve("run");
        Run r = run("e810", "--rdma", "iwarp", "--functions", "2", "--out", dir.toString());
        assertEquals(ExitCodes.OK, r.code(), () -> r.out() + r.err());
        assertTrue(r.out().contains("guest: ok"), r.out());
        assertTrue(r.out().contains("ice: loaded, E810 functions 0000:01:00.0,0000:01:00.1, DDP package ice-1.3."),
                r.out());
        assertTrue(r.out().contains("irdma: loaded, mode iwarp, rdma links 2, transport iWARP"), r.out());
        assertTrue(r.out().contains("afterwards 0 QPs and 0 CQs held"), r.out());
        String trace = Files.readString(dir.resolve("trace.jsonl"));
        assertTrue(trace.contains("{\"pf\":0,") && trace.contains("{\"pf\":1,"), "both functions traced");
        assertTrue(trace.contains("\"op\":\"QUERY_RDMA_FEATURES\""));
        String console = Files.readString(dir.resolve("console.log"));
        assertTrue(console.contains("hca_id:\tirdma0") && console.contains("hca_id:\tirdma1"), console);
        // one adapter: devlink shows both functions with the same serial number (the DSN, which ice keys the adapter
        // it shares between them by)
        assertEquals(2, console.split("serial_number 02-00-5e-ff-ff-10-00-01", -1).length - 1, console);
    }
}
