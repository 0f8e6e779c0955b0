package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import dev.irdmaemu.bridge.kit.QemuProcess;
import dev.irdmaemu.bridge.kit.VfioUserDevice;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stock ice.ko of Linux 7.3 probing the model's E810 physical function over vfio-user (the kit's e810 flavour,
 * scenario {@code e810-probe}, irdma not loaded): QEMU realizes the function, the guest sees 8086:1592, ice binds
 * it without Safe Mode (the real DDP package downloaded through the admin queue and reported back as active), its
 * netdev carries the NVM's MAC, devlink reads the firmware versions, and the run's trace holds the admin queue
 * commands ice sent.
 */
class IceProbeOnTheModelBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(IceProbeOnTheModelBootTest.class);
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(300);
    private static final long MAC = 0x02_00_5E_10_00_01L;

    @TempDir
    Path tmp;

    @Test
    void iceProbesTheEmulatedE810() throws Exception {
        GuestKit kit;
        try {
            kit = GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            fail(e.getMessage());
            return;
        }
        Path dir = Path.of("target", "guest-boot");
        Files.createDirectories(dir);
        Path console = dir.resolve("ice-probe-console.log");
        Path tracePath = dir.resolve("ice-probe-trace.jsonl");
        Path socket = tmp.resolve("e810.sock");
        GuestResult result;
        String log;
        try (BufferedWriter traceOut = Files.newBufferedWriter(tracePath, StandardCharsets.UTF_8);
             E810Host host = E810Host.start(socket, 0, MAC, 1, new JsonLinesTraceSink(traceOut))) {
            GuestLaunch launch = kit.launch().machine(GuestLaunch.Machine.Q35).scenario("e810-probe").memoryMiB(512)
                    .kernelArgument("irdma_emu.rdma=none")
                    .vfioUser(VfioUserDevice.socket(socket).id("e810").messageTimeout(Duration.ofSeconds(20)).build());
            try (QemuProcess qemu = QemuProcess.start(launch, console)) {
                result = qemu.awaitResult(RESULT_TIMEOUT);
                qemu.awaitExit(Duration.ofSeconds(30));
            }
            log = Files.readString(console, StandardCharsets.UTF_8);
            LOG.info("ice on the model: {} after {} ms; vfio-user {}", result, result.afterStart().toMillis(),
                    host.server().counters().summary());
        }
        assertEquals("e810-probe", result.scenario());
        assertTrue(result.ok(), () -> result + "; console in " + console);
        assertTrue(log.contains("0000:01:00.0 [0200]: [8086:1592]"), () -> "the guest lists the E810 function; console in " + console);
        assertEquals("0000:01:00.0", result.field("e810"), "ice bound the function (its netdev and devlink exist)");
        assertEquals("loaded", result.field("ice"), result::toString);
        // no Safe Mode: the package went down the admin queue and came back as the active one (ice_ddp.c)
        assertTrue(log.contains("The DDP package was successfully loaded: ICE OS Default Package version 1.3.41.0"),
                () -> "ice loaded the DDP package; console in " + console);
        assertFalse(log.contains("Safe Mode"), "ice did not enter Safe Mode");
        assertFalse(log.contains("BUG:") || log.contains("Oops"), "no kernel oops");
        assertTrue(log.contains("link/ether 02:00:5e:10:00:01"), "the netdev carries the NVM's permanent MAC");
        assertTrue(log.contains("driver ice") && log.contains("fw.app.name ICE OS Default Package"),
                "devlink dev info reports the running package");
        assertTrue(log.contains("serial_number 02-00-5e-ff-ff-10-00-01"), "the DSN derived from the MAC");
        String trace = Files.readString(tracePath, StandardCharsets.UTF_8);
        for (String op : List.of("get_ver", "list_func_caps", "get_dflt_topo", "download_pkg", "get_pkg_info_list",
                "add_vsi", "add_sched_elems", "driver_ver")) {
            assertTrue(trace.contains("\"op\":\"" + op + "\""), "the trace holds ice's " + op);
        }
    }
}
