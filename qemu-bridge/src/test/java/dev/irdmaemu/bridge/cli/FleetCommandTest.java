package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * {@code irdma-emu fleet}: what it says it does, and usage errors before any container (the runs themselves are
 * {@code FleetTest}'s against a fake engine and {@code RemoteEngineIT}'s against the second private engine).
 */
class FleetCommandTest {
    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void theHelpSaysWhatItDoes() {
        Run help = run("fleet", "--help");
        assertEquals(ExitCodes.OK, help.code());
        assertTrue(help.out().contains("--engine") && help.out().contains("--parallel")
                && help.out().contains("JUnit XML") && help.out().contains("container"), help.out());
        assertTrue(run("--help").out().contains("fleet"), "listed among the commands");
    }

    @Test
    void badOptionsAreUsageErrors() {
        String e = "tcp://127.0.0.1:1";
        assertEquals(ExitCodes.USAGE, run("fleet", "--engine", e, "--image", "i").code(), "no --scenarios");
        Run unknown = run("fleet", "--engine", e, "--image", "i", "--scenarios", "ping,no-such");
        assertEquals(ExitCodes.USAGE, unknown.code());
        assertTrue(unknown.err().contains("no-such"), unknown.err());
        assertEquals(ExitCodes.USAGE, run("fleet", "--engine", e, "--image", "i", "--scenarios", "ping,ping").code());
        assertEquals(ExitCodes.USAGE, run("fleet", "--engine", e, "--image", "i", "--scenarios", "ping",
                "--parallel", "0").code());
        assertEquals(ExitCodes.USAGE, run("fleet", "--engine", e, "--image", "i", "--scenarios", "ping",
                "--timeout", "5").code());
        Run badEngine = run("fleet", "--engine", "http://x", "--image", "i", "--scenarios", "ping");
        assertEquals(ExitCodes.USAGE, badEngine.code());
        assertTrue(badEngine.err().contains("tcp://HOST:PORT"), badEngine.err());
    }
}
