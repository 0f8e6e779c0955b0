package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.model.E810Holdings;
import dev.irdmaemu.model.E810Holdings.Kind;
import dev.irdmaemu.model.E810Holdings.Side;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a run of the {@code e810-lifecycle} scenario ({@link E810LifecycleRun}) must show, whichever host ran its
 * QEMU (a child of the test, {@link E810LifecycleBootTest}, or a guest container, {@code
 * E810LifecycleContainerTest}): both boots ok, no oops, and at each checkpoint what the model holds: a driver that
 * is gone has left nothing behind, a driver that is back holds exactly what the first probe held; the FLR, the one
 * withheld CQP completion and the PF reset irdma asked for after it, in the trace; DEVICE_RESET at start and at
 * reboot; the second boot probing a model back at power-on.
 */
public final class E810LifecycleExpectations {
    private static final Logger LOG = LoggerFactory.getLogger(E810LifecycleExpectations.class);
    /** The checkpoints where irdma and ice are loaded again by a fresh probe: each holds what the first probe held. */
    private static final List<String> BACK_UP = List.of("irdma-reloaded", "iwarp-on", "ice-reloaded");
    /**
     * The checkpoints after ice's devlink reinit (and the function reset and reboot preparation that follow on the
     * same VSI). ice_devlink_reinit_up configures the main VSI again with ice_vsi_cfg, not ice_vsi_setup, so the two
     * Tx drop rules (ETH_P_PAUSE, ETH_P_LLDP) only ice_vsi_setup adds are not there any more (ice_lib.c): the rest
     * is what the first probe held.
     */
    private static final List<String> AFTER_REINIT = List.of("devlink-reloaded", "function-reset", "pf-reset");
    /**
     * The checkpoints after `ip link set DEV address` there and back (on the same VSI as AFTER_REINIT): what the
     * first probe held, except irdma's ARP cache, which gains the entries irdma adds for the netdev's addresses under
     * each MAC it had (utils.c irdma_inetaddr_event / irdma_inet6addr_event: NETDEV_UP and NETDEV_CHANGEADDR add,
     * and the IPv6 link-local address follows the MAC). A reboot takes them (the second boot's probe is compared
     * in full).
     */
    private static final List<String> AFTER_MAC_CHANGE = List.of("mac-changed");
    /**
     * The checkpoints after ethtool's core reset (ice's CORER: every PF's state gone on the model, ice's rebuild and
     * a fresh irdma): what the first probe held, the switch rules no more than the first probe's, irdma's ARP cache
     * as after the MAC change.
     */
    private static final List<String> AFTER_CORE_RESET = List.of("core-reset", "before-reboot");
    private static final int TX_DROP_RULES = 2;
    private static final Pattern DEVICE_RESETS = Pattern.compile("DEVICE_RESET=(\\d+)");

    private E810LifecycleExpectations() {
    }

    /** Everything of the run {@code o}, with nothing left on the model at any checkpoint where a driver is gone. */
    public static void driversComeBackWithNothingLeft(E810LifecycleRun.Outcome o) throws IOException {
        GuestResult result = o.result();
        String log = Files.readString(o.console(), StandardCharsets.UTF_8);
        LOG.info("lifecycle on the model: {} after {} ms; boot 1: {}; {}", result, result.afterStart().toMillis(),
                o.firstBoot().map(Object::toString).orElse("none"), o.vfioUser());
        o.checkpoints().forEach(c -> LOG.info("boot {} {}: {}", c.boot(), c.name(), c.holdings()));
        assertTrue(o.firstBoot().isPresent(), () -> "boot 1 got through every step and rebooted; " + result
                + "; console in " + o.console());
        GuestResult first = o.firstBoot().get();
        assertTrue(first.ok(), first::toString);
        assertTrue(result.ok(), () -> result + "; console in " + o.console());
        assertEquals("2", result.field("boot"), "the result is the second boot's");
        assertEquals("ok", result.field("second_boot"));
        assertFalse(log.contains("BUG:") || log.contains("Oops") || log.contains("Call Trace"), "no kernel oops");

        E810Holdings probed = holdings(o, 1, "probed");
        // irdma's gen2 bring-up: the CQP, CEQs, the AEQ, the CCQ and PUDA queues, SDs, its WS root and qset
        assertEquals(1, probed.count(Kind.CQP), probed::toString);
        assertEquals(1, probed.count(Kind.AEQ), probed::toString);
        assertTrue(probed.count(Kind.CEQS) >= 1, probed::toString);
        assertTrue(probed.count(Kind.CQS) >= 3, () -> "the CCQ and the ILQ/IEQ CQs: " + probed);
        assertTrue(probed.count(Kind.QPS) >= 2, () -> "the ILQ and IEQ QPs: " + probed);
        assertTrue(probed.count(Kind.HMC_SDS) >= 1, probed::toString);
        assertTrue(probed.count(Kind.WS_NODES) >= 1, probed::toString);
        assertTrue(probed.count(Kind.RDMA_QSETS) >= 1, probed::toString);
        assertTrue(probed.count(Kind.VSIS) >= 1, probed::toString);
        // the netdev is up: ice's LAN rings are open on the model
        assertTrue(probed.count(Kind.TX_QUEUES) >= 1, probed::toString);
        assertTrue(probed.count(Kind.RX_QUEUES) >= 1, probed::toString);

        // a listening rping server: irdma's listen node is a quad-hash entry and an APBVT port; gone with rping
        E810Holdings listening = holdings(o, 1, "listening");
        assertTrue(listening.count(Kind.QHASH) >= 1, listening::toString);
        assertEquals(1, listening.count(Kind.APBVT_PORTS), listening::toString);
        E810Holdings closed = holdings(o, 1, "listener-closed");
        assertSameHoldings(probed, closed, null, 0, "after rping -s exited");

        // a removed irdma (rmmod, or its auxiliary device unplugged by enable_iwarp false) leaves no RDMA object
        for (String gone : List.of("irdma-removed", "iwarp-off")) {
            E810Holdings h = holdings(o, 1, gone);
            assertEquals(Map.of(), h.held(Side.RDMA), () -> gone + ": RDMA objects left on the model: " + h);
            assertSameHoldings(probed, h, Side.LAN, 0, gone + ": ice's side untouched");
        }
        // rmmod ice: ice frees its VSIs and queues and ends with a PF reset: nothing of either driver left
        E810Holdings iceGone = holdings(o, 1, "ice-removed");
        assertEquals(0, iceGone.total(Side.RDMA), iceGone::toString);
        assertEquals(0, iceGone.total(Side.LAN), () -> "LAN objects left after rmmod ice: " + iceGone);

        // every way back up holds what the first probe held, no more (no leak), no less
        for (String up : BACK_UP) {
            E810Holdings h = holdings(o, 1, up);
            assertSameHoldings(probed, h, null, 0, up + " against the first probe");
        }
        for (String up : AFTER_REINIT) {
            E810Holdings h = holdings(o, 1, up);
            assertSameHoldings(probed, h, null, TX_DROP_RULES, up);
        }
        for (String up : AFTER_MAC_CHANGE) {
            E810Holdings h = holdings(o, 1, up);
            assertSameHoldings(probed, h, null, TX_DROP_RULES, Kind.ARP_ENTRIES, up);
            assertTrue(h.count(Kind.ARP_ENTRIES) >= probed.count(Kind.ARP_ENTRIES), h::toString);
        }
        for (String up : AFTER_CORE_RESET) {
            E810Holdings h = holdings(o, 1, up);
            assertSameHoldings(probed, h, null, 0, Kind.ARP_ENTRIES, up);
        }
        // the function reset went through the PCI function's FLR (pci_reset_function; ice's reset_prepare/done)
        String trace = Files.readString(o.trace(), StandardCharsets.UTF_8);
        assertTrue(trace.contains("\"block\":\"pci\",\"cause\":\"flr\""), "the model saw the FLR");
        // the PF reset irdma asked for: the model withheld one Manage APBVT completion, irdma gave up on it after its
        // CQP timeout (about 5 s of polls), ice reset the PF (PFSWR: the RDMA block rebuilt) and irdma came back under
        // a new ib_device index; what its remove left behind (it skips the destroy ops) went with the reset
        int withheld = trace.indexOf("\"fault_injected\"");
        assertTrue(withheld >= 0, "the model withheld a completion");
        String fault = trace.substring(trace.lastIndexOf('\n', withheld) + 1, trace.indexOf('\n', withheld));
        assertTrue(fault.contains("\"op\":\"" + E810LifecycleRun.WITHHELD_OP.name() + "\""), fault);
        assertEquals(withheld, trace.lastIndexOf("\"fault_injected\""), "exactly one completion withheld");
        String rdmaReset = trace.substring(withheld).lines().filter(l -> l.contains("\"function_reset\"")
                && l.contains("\"block\":\"rdma\"")).findFirst().orElseThrow(() -> new AssertionError(
                        "the RDMA block was not reset after the withheld completion"));
        // irdma's remove with rf->reset skips its destroy ops: the PF reset found the CCQ and PUDA queues still there
        Matcher left = Pattern.compile("\"qps\":(\\d+),\"cqs\":(\\d+)").matcher(rdmaReset);
        assertTrue(left.find() && Integer.parseInt(left.group(1)) > 0 && Integer.parseInt(left.group(2)) > 0,
                () -> "the PF reset after the CQP timeout found irdma's queues in place: " + rdmaReset);
        String indices = first.field("rdma_index");
        assertTrue(indices != null && indices.matches("\\d+-\\d+"), () -> "rdma_index " + indices);
        long timedOut = Long.parseLong(first.field("timed_out_listen_ms"));
        assertTrue(timedOut >= 4_000 && timedOut < 30_000, () -> "the listen gave up after " + timedOut + " ms");
        assertTrue(log.contains("Requesting a reset"), "irdma asked ice for the reset");
        LOG.info("CQP timeout: the listen gave up after {} ms; the whole step took {} ms; ib_device index {}",
                timedOut, first.field("cqp_timeout_reset_ms"), indices);

        // ip link set DEV address there and back: ice wrote both addresses to the firmware (manage_mac_write),
        // which took them (the model's port LAA), and irdma stayed registered (rdma_up in the step)
        assertEquals("02:00:00:e8:10:2a", first.field("mac_change"));
        String macWrite = "\"op\":\"" + AqOpcode.name(AqOpcode.MANAGE_MAC_WRITE) + "\"";
        long macWrites = trace.lines().filter(l -> l.contains(macWrite)
                && l.contains("\"retval\":\"" + AqError.name(AqError.OK) + "\"")).count();
        assertTrue(macWrites >= 2, () -> "manage_mac_write answered OK " + macWrites + " times");
        assertFalse(log.contains("write to firmware failed"), "ice's MAC write was not refused");

        // ethtool --reset ... ram-shared: ice's CORER through GLGEN_RTRIG, the model's adapter reset, irdma back under
        // a new index
        String coreIndices = first.field("core_reset_index");
        assertTrue(coreIndices != null && coreIndices.matches("\\d+-\\d+"), () -> "core_reset_index " + coreIndices);
        assertTrue(trace.lines().anyMatch(l -> l.contains("\"ev\":\"reg_write\",\"reg\":\"GLGEN_RTRIG\"")
                && l.contains("\"val\":\"0x1\"")), "ice wrote GLGEN_RTRIG's CORER bit");

        // QEMU resets the vfio-user device at its start and again when the guest reboots
        Matcher resets = DEVICE_RESETS.matcher(o.vfioUser());
        assertTrue(resets.find(), o::vfioUser);
        assertTrue(Integer.parseInt(resets.group(1)) >= 2, () -> "DEVICE_RESET at start and at reboot: " + o.vfioUser());

        // the reboot: QEMU reset the machine, the model came back to power-on, and the second boot probed again
        E810Holdings rebooted = holdings(o, 2, "boot");
        assertEquals(0, rebooted.total(Side.RDMA), () -> "after the reboot, before ice: " + rebooted);
        assertEquals(0, rebooted.total(Side.LAN), () -> "after the reboot, before ice: " + rebooted);
        E810Holdings reprobed = holdings(o, 2, "reprobed");
        assertSameHoldings(probed, reprobed, null, 0, "the second boot's probe");
        assertTrue(o.checkpoints().stream().noneMatch(c -> c.boot() > 2), "two boots, no more");
    }

    private static E810Holdings holdings(E810LifecycleRun.Outcome o, int boot, String name) {
        return o.checkpoint(boot, name).orElseThrow(() -> new AssertionError("no checkpoint " + name + " in boot "
                + boot + "; got " + o.checkpoints().stream().map(c -> c.boot() + ":" + c.name()).toList()
                + "; console in " + o.console())).holdings();
    }

    /**
     * {@code h} holds what {@code probed} held, kind for kind, except the switch rules: ice adds the multicast MAC
     * filters of a netdev that came up from its service task, whenever the addresses sync, so their number at a
     * checkpoint is not fixed. A leak shows all the same: never more rules than the first probe's (less
     * {@code fewerRules} that a path leaves out by design), and at least the unicast and broadcast filters. With a
     * {@code side}, only that side's kinds are compared.
     */
    private static void assertSameHoldings(E810Holdings probed, E810Holdings h, Side side, int fewerRules,
                                           String what) {
        assertSameHoldings(probed, h, side, fewerRules, Kind.SWITCH_RULES, what);
    }

    /** As above, {@code alsoSkipped} not compared either. */
    private static void assertSameHoldings(E810Holdings probed, E810Holdings h, Side side, int fewerRules,
                                           Kind alsoSkipped, String what) {
        for (Kind k : Kind.values()) {
            if (k != Kind.SWITCH_RULES && k != alsoSkipped && (side == null || k.side() == side)) {
                assertEquals(probed.count(k), h.count(k), () -> what + ": " + probed.differences(h));
            }
        }
        int rules = h.count(Kind.SWITCH_RULES);
        assertTrue(rules <= probed.count(Kind.SWITCH_RULES) - fewerRules && rules >= 2,
                () -> what + ": switch rules " + rules + " (first probe " + probed.count(Kind.SWITCH_RULES)
                        + ", less " + fewerRules + ")");
    }
}
