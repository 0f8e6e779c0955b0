package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The dmesg-warn block as the e810-probe scenario prints it, read against the allow-list; lines below level 4 are not its. */
class ProbeWarningsTest {
    private static final String CONSOLE = String.join("\n",
            "irdma-emu-guest: step rdma",
            "IRDMA-EMU-BEGIN dmesg-warn",
            "<6>[    8.441425] ice 0000:01:00.0: firmware: failed to load intel/ice/ddp/ice-02005effff100001.pkg (-2)",
            "<4>[    8.825348] ice 0000:01:00.0: FW logging is not supported in this NVM image. Please update the NVM",
            "<3>[   17.337238] ice 0000:01:00.0: Error initializing DCB -95",
            "<3>[   19.1] irdma 0000:01:00.0: some irdma error",
            "IRDMA-EMU-END dmesg-warn",
            "IRDMA-EMU-RESULT scenario=e810-probe status=ok");

    @Test
    void everyLineOfWarningLevelIsReportedWhileNoneIsAllowed() {
        assertEquals(3, ProbeWarnings.block(CONSOLE).size());
        assertEquals(List.of(
                "<4>[    8.825348] ice 0000:01:00.0: FW logging is not supported in this NVM image. Please update the NVM",
                "<3>[   17.337238] ice 0000:01:00.0: Error initializing DCB -95",
                "<3>[   19.1] irdma 0000:01:00.0: some irdma error"), ProbeWarnings.unexpected(CONSOLE));
    }

    @Test
    void anEmptyBlockIsClean() {
        assertEquals(List.of(), ProbeWarnings.unexpected("IRDMA-EMU-BEGIN dmesg-warn\nIRDMA-EMU-END dmesg-warn\n"));
    }

    @Test
    void aConsoleWithoutTheBlockFails() {
        assertThrows(AssertionError.class, () -> ProbeWarnings.unexpected("IRDMA-EMU-RESULT status=ok"));
    }
}
