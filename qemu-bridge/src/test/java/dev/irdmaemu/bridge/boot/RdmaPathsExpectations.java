package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.Tshark;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.run.BootReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the rdma-paths scenario must show (issue 29 item 4): for each variant (IPv6, VLAN 100 with priority 5, MTU
 * 9000) the guest's rping client made its ten verified pings and its ucmatose connected and exchanged, the node's
 * servers say the same, ice and irdma logged no error while it ran, and the capture holds what the variant is
 * about, read by tshark's own dissectors: iWARP over IPv6, iWARP frames tagged with VLAN 100 and priority 5 both
 * ways, and iWARP frames longer than a 1500-byte MTU allows both ways.
 */
final class RdmaPathsExpectations {
    static final List<String> VARIANTS = List.of("v6", "vlan", "jumbo");
    /** The longest untagged frame at MTU 1500 (without FCS): longer ones are jumbo. */
    static final int LONGEST_STANDARD_FRAME = 1514;
    static final String GUEST_MAC = "02:00:5e:10:00:01";
    static final String NODE_MAC = "02:00:00:00:00:01";

    private RdmaPathsExpectations() {
    }

    static void verify(BootReport r, Path tsharkDir) throws IOException, InterruptedException {
        ScenarioExpectations.ranAndPassed(r, BootScenario.RDMA_PATHS);
        GuestResult g = r.guest();
        for (String v : VARIANTS) {
            assertEquals("0", g.field(v + "_rping_exit"), v);
            assertEquals("10", g.field(v + "_rping_pings"), v + ": the guest's rping client made 10 pings");
            assertEquals("complete", g.field(v + "_ucmatose"), v + ": the guest's ucmatose connected and exchanged");
            assertEquals("0", g.field(v + "_errors"), v + ": ice and irdma logged no error");
            ServiceOutcome rping = ScenarioExpectations.service(r, "rping-" + v);
            assertEquals("10", rping.field("verified"), v + ": each Read brought rping's ping data");
        }
        ScenarioExpectations.service(r, "ucmatose-server");
        int lines = Integer.parseInt(g.field("kernel_log_lines"));
        assertTrue(lines > 100 && Integer.parseInt(g.field("kernel_log_leveled")) == lines,
                "the error checks read the kernel's log with a level on every line: " + g);
        assertEquals(Integer.toString(BootScenario.PATHS_JUMBO_MTU), g.field("jumbo_mtu"));

        Path pcap = r.pcap();
        List<String> v6 = Tshark.run(Files.createDirectories(tsharkDir), pcap, "-Y", "ipv6 && iwarp_ddp_rdmap",
                "-T", "fields", "-e", "ipv6.src", "-e", "ipv6.dst");
        assertTrue(v6.contains("2001:db8::2\t2001:db8::1") && v6.contains("2001:db8::1\t2001:db8::2"),
                "iWARP over IPv6 both ways: " + head(v6));
        String pcp = Integer.toString(BootScenario.PATHS_VLAN_PCP);
        String vid = Integer.toString(BootScenario.PATHS_VLAN_ID);
        List<String> vlan = Tshark.run(tsharkDir, pcap, "-Y", "vlan && iwarp_ddp_rdmap", "-T", "fields",
                "-e", "eth.src", "-e", "vlan.id", "-e", "vlan.priority");
        assertTrue(vlan.contains(GUEST_MAC + "\t" + vid + "\t" + pcp), "the guest's irdma tags its iWARP frames with "
                + "VLAN " + vid + " and priority " + pcp + ": " + head(vlan));
        assertTrue(vlan.contains(NODE_MAC + "\t" + vid + "\t" + pcp), "and so does the node: " + head(vlan));
        assertTrue(vlan.stream().allMatch(l -> l.endsWith("\t" + vid + "\t" + pcp)),
                "every tagged iWARP frame is VLAN " + vid + ", priority " + pcp + ": " + head(vlan));
        List<String> jumbo = Tshark.run(tsharkDir, pcap, "-Y", "frame.len > " + LONGEST_STANDARD_FRAME
                + " && iwarp_ddp_rdmap", "-T", "fields", "-e", "eth.src", "-e", "frame.len");
        assertTrue(jumbo.stream().anyMatch(l -> l.startsWith(GUEST_MAC + "\t")), "the guest sends jumbo frames: "
                + head(jumbo));
        assertTrue(jumbo.stream().anyMatch(l -> l.startsWith(NODE_MAC + "\t")), "the node sends jumbo frames: "
                + head(jumbo));
        assertTrue(jumbo.stream().allMatch(l -> Integer.parseInt(l.substring(l.indexOf('\t') + 1))
                <= BootScenario.PATHS_JUMBO_MTU + 14), "none is longer than the MTU allows: " + head(jumbo));
    }

    private static List<String> head(List<String> lines) {
        return lines.subList(0, Math.min(lines.size(), 20));
    }
}
