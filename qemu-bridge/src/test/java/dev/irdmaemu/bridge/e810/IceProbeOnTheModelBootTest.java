package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
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

    /** What one boot left: the guest's result and console, the model's trace, and what the model still held. */
    private record Run(GuestResult result, String log, Path console, String trace, int liveQps, int liveCqs) {
    }

    private Run boot(String name, String rdma, String... kernelArguments) throws Exception {
        GuestKit kit;
        try {
            kit = GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            return fail(e.getMessage());
        }
        E810ProbeRun.Outcome o = E810ProbeRun.run(kit, Path.of("target", "guest-boot", name), rdma, RESULT_TIMEOUT,
                s -> LOG.info("{}: {}", name, s), kernelArguments);
        LOG.info("{} on the model: {} after {} ms; {}", name, o.result(), o.result().afterStart().toMillis(),
                o.vfioUser());
        return new Run(o.result(), Files.readString(o.console(), StandardCharsets.UTF_8), o.console(),
                Files.readString(o.trace(), StandardCharsets.UTF_8), o.liveQps(), o.liveCqs());
    }

    @Test
    void iceProbesTheEmulatedE810() throws Exception {
        Run run = boot("ice-probe", "none");
        GuestResult result = run.result();
        String log = run.log();
        Path console = run.console();
        assertEquals("e810-probe", result.scenario());
        assertTrue(result.ok(), () -> result + "; console in " + console);
        assertTrue(log.contains("0000:01:00.0 [0200]: [8086:1592]"), () -> "the guest lists the E810 function; console in " + console);
        assertEquals("0000:01:00.0", result.field("e810"), "ice bound the function (its netdev and devlink exist)");
        assertEquals("loaded", result.field("ice"), result::toString);
        // no Safe Mode: the package went down the admin queue and came back as the active one (ice_ddp.c)
        assertTrue(log.contains("The DDP package was successfully loaded: ICE OS Default Package version 1.3.41.0"),
                () -> "ice loaded the DDP package; console in " + console);
        assertFalse(log.contains("Safe Mode"), "ice did not enter Safe Mode");
        // ice_init_fdir: the FD control VSI's descriptor-only Rx ring enables and the default FD profiles go in by
        // update_pkg (ice_fdir_create_dflt_rules)
        assertFalse(log.contains("could not initialize flow director"), "ice's flow director initialised");
        assertFalse(log.contains("BUG:") || log.contains("Oops"), "no kernel oops");
        assertTrue(log.contains("link/ether 02:00:5e:10:00:01"), "the netdev carries the NVM's permanent MAC");
        assertTrue(log.contains("driver ice") && log.contains("fw.app.name ICE OS Default Package"),
                "devlink dev info reports the running package");
        assertTrue(log.contains("serial_number 02-00-5e-ff-ff-10-00-01"), "the DSN derived from the MAC");
        String trace = run.trace();
        for (String op : List.of("get_ver", "list_func_caps", "get_dflt_topo", "download_pkg", "get_pkg_info_list",
                "add_vsi", "add_sched_elems", "driver_ver")) {
            assertTrue(trace.contains("\"op\":\"" + op + "\""), "the trace holds ice's " + op);
        }
    }

    /**
     * Then the stock irdma.ko on top, in iWARP mode (devlink enable_iwarp, as the guest recipe of the fact sheet
     * does): it probes the model's RDMA block through ice (MSI-X vectors, the RDMA qset through the admin queue),
     * brings it up with the gen2 CQP sequence and registers irdma0 with transport iWARP; at the guest's poweroff it
     * tears everything down again, and the model holds no QP and no CQ afterwards. Neither driver prints a line of
     * warning level or above that a real E810 would not ({@link ProbeWarnings}).
     */
    @Test
    void irdmaRegistersAnIwarpDeviceOnTheEmulatedE810AndTearsDownAtPoweroff() throws Exception {
        Run run = boot("irdma-probe", "iwarp");
        GuestResult result = run.result();
        assertTrue(result.ok(), () -> result + "; console in " + run.console());
        assertEquals("loaded", result.field("irdma"), result::toString);
        assertEquals("iwarp", result.field("rdma_mode"));
        assertEquals("1", result.field("rdma_links"), "rdma link lists irdma0");
        assertEquals("iWARP", result.field("transport"), "ibv_devinfo: transport iWARP");
        assertTrue(run.log().contains("hca_id:\tirdma0"), "ibv_devinfo names irdma0");
        assertTrue(run.log().contains("link irdma0/1") && run.log().contains("netdev eth0"),
                "irdma0 sits on ice's netdev");
        assertFalse(run.log().contains("BUG:") || run.log().contains("Oops"), "no kernel oops");
        assertTrue(run.trace().contains("\"op\":\"add_rdma_qset\""), "ice asked the firmware for irdma's qset");
        // irdma's gen2 bring-up, in the kernel's order (icrdma_probe -> irdma_ctrl_init_hw, irdma_rt_init_hw)
        List<String> expected = List.of("QUERY_RDMA_FEATURES", "QUERY_FPM_VAL", "COMMIT_FPM_VAL", "UPDATE_PE_SDS",
                "SHMC_PAGES_ALLOCATED", "CREATE_CQ", "CREATE_CEQ", "CREATE_AEQ", "CREATE_CQ", "WORK_SCHED_NODE",
                "CREATE_QP", "CREATE_CQ", "CREATE_QP");
        int at = 0;
        for (String op : expected) {
            int found = run.trace().indexOf("\"op\":\"" + op + "\"", at);
            assertTrue(found >= 0, "CQP op " + op + " after the ones before it");
            at = found;
        }
        for (String op : List.of("DESTROY_QP", "DESTROY_CQ", "DESTROY_AEQ", "DESTROY_CEQ")) {
            assertTrue(run.trace().indexOf("\"op\":\"" + op + "\"", at) > 0, "teardown's " + op);
        }
        // a clean probe: no ice or irdma line of warning level or above that a real E810 would not print
        // (ProbeWarnings, docs/e810.md), and the lines of the paths a real card takes
        assertTrue(Integer.parseInt(result.field("dmesg_levels")) > 0, "dmesg -r gave lines with their level");
        assertTrue(result.field("ptp_clocks").startsWith("ice-"), () -> "ice registered its PHC: " + result);
        assertEquals(List.of(), ProbeWarnings.unexpected(run.log()), () -> "console in " + run.console());
        for (String line : List.of("PTP init successful",
                "DCB is enabled in the hardware, max number of TCs supported on this port are 8",
                "FW LLDP is disabled, DCBx/LLDP in SW mode.", "Commit DCB Configuration to the hardware")) {
            assertTrue(run.log().contains(line), () -> "ice printed '" + line + "'; console in " + run.console());
        }
        for (String line : List.of("FW logging is not supported", "Failed to apply Tx scheduling configuration",
                "Error initializing DCB", "DCB init failed")) {
            assertFalse(run.log().contains(line), () -> "ice printed '" + line + "'; console in " + run.console());
        }
        assertEquals(0, run.liveQps(), "no QP left on the model after irdma's teardown");
        assertEquals(0, run.liveCqs(), "no CQ left on the model after irdma's teardown");
    }

    /**
     * {@code ip link set eth0 up} on the emulated E810: ice opens its LAN rings (Tx queues through add_txqs, Rx
     * queue contexts through QRX_CONTEXT) and reads the link status, and the netdev comes up with carrier.
     */
    @Test
    void iceSetsItsNetdevUpWithCarrierOnTheEmulatedE810() throws Exception {
        Run run = boot("ice-link-up", "none", "irdma_emu.link=up");
        GuestResult result = run.result();
        assertTrue(result.ok(), () -> result + "; console in " + run.console());
        assertEquals("up", result.field("link"), () -> result + "; console in " + run.console());
        String up = run.log().substring(run.log().indexOf("IRDMA-EMU-BEGIN ip-link-up"));
        // busybox ip: the flags of an interface that is up with carrier
        assertTrue(up.contains("eth0: <BROADCAST,MULTICAST,UP,LOWER_UP>"), up);
        assertFalse(run.log().contains("BUG:") || run.log().contains("Oops"), "no kernel oops");
        assertTrue(run.trace().contains("\"op\":\"add_txqs\""), "ice added its Tx queues");
    }
}
