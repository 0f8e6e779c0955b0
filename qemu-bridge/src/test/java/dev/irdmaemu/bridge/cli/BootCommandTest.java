package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code irdma-emu boot}'s options and usage errors (the boots themselves are bridge.boot's end-to-end tests). */
class BootCommandTest {
    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void helpNamesTheOptionsAndTheScenarios() {
        Run r = run("boot", "--help");
        assertEquals(ExitCodes.OK, r.code());
        for (String s : new String[] {"--scenario", "--nic", "e810|virtio", "--siw", "--kernel", "--initrd", "--out", "--timeout", "--memory",
            "rping-server (default)", "rping-client-refused", "ucmatose-client", "vhost-user"}) {
            assertTrue(r.out().contains(s), s + " in\n" + r.out());
        }
        Run top = run("--help");
        assertTrue(top.out().contains("boot"), top.out());
        assertTrue(top.out().contains("the scenario did not pass"), "exit code 1 is listed: " + top.out());
    }

    @Test
    void badOptionsAreUsageErrorsBeforeAnythingStarts() {
        Run scenario = run("boot", "--scenario", "nope");
        assertEquals(ExitCodes.USAGE, scenario.code());
        assertTrue(scenario.err().contains("unknown scenario 'nope'") && scenario.err().contains("rping-server"),
                scenario.err());
        Run siw = run("boot", "--siw", "rxe");
        assertEquals(ExitCodes.USAGE, siw.code());
        assertTrue(siw.err().contains("--siw is stock or p2p"), siw.err());
        assertEquals(ExitCodes.USAGE, run("boot", "--timeout", "0").code());
        Run nic = run("boot", "--nic", "tap");
        assertEquals(ExitCodes.USAGE, nic.code());
        assertTrue(nic.err().contains("NIC tap (virtio or e810)"), nic.err());
        assertEquals(ExitCodes.USAGE, run("boot", "--memory", "16").code());
        Run kernel = run("boot", "--kernel", "target/no-such-kernel");
        assertEquals(ExitCodes.NO_INPUT, kernel.code());
        assertTrue(kernel.err().contains("no such file"), kernel.err());
    }
}
