package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.MissingGuestKitException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stock irdma.ko of Linux 7.3 in ice's default mode, RoCEv2, on an emulated E810 of two functions (scenario
 * {@code e810-roce}, one boot): no devlink switch, irdma registers a RoCEv2 device on each function (QP1 created
 * and taken to RTS by the MAD layer, so no CQP error), `rdma link` lists both, ibv_devinfo says transport
 * InfiniBand and link layer Ethernet, the GID tables hold RoCE v2 GIDs for each netdev's IPv4 address and IPv6
 * link-local address, the kernel log has no irdma error, and ibv_ud_pingpong runs between the two functions over
 * their RoCEv2 IPv4 GIDs (UD QPs and AHs through the model's UD data path). rping's rdma_cm connection between the
 * two is established (the IB CM's MADs over QP1 both ways), then `rping -C 10 -V` runs its RC SENDs, READs and
 * WRITEs through the model's RC transport (model.roce.RcQueuePairs) with the data verified on both sides, and
 * ucmatose runs 100 connections with ten Sends each way, with no irdma error in the log. After the poweroff the
 * model holds no QP or CQ.
 */
class E810RoceBootTest {
    private static final Logger LOG = LoggerFactory.getLogger(E810RoceBootTest.class);
    /** A guard against a hung guest under TCG on a busy machine, not a timing assertion. */
    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(600);

    @Test
    void irdmaRegistersRoceV2DevicesAndUdPingpongRpingAndUcmatoseRunBetweenTwoFunctions() throws Exception {
        GuestKit kit;
        try {
            kit = GuestKit.locate().e810();
        } catch (MissingGuestKitException e) {
            fail(e.getMessage());
            return;
        }
        E810ProbeRun.Outcome o = E810ProbeRun.run(kit, Path.of("target", "guest-boot", "e810-roce"), "e810-roce",
                "roce", 2, RESULT_TIMEOUT, s -> LOG.info("e810-roce: {}", s));
        GuestResult r = o.result();
        String log = Files.readString(o.console(), StandardCharsets.UTF_8);
        String trace = Files.readString(o.trace(), StandardCharsets.UTF_8);
        LOG.info("e810-roce: {} after {} ms; {}", r, r.afterStart().toMillis(), o.vfioUser());
        assertEquals("e810-roce", r.scenario());
        assertTrue(r.ok(), () -> r + "; console in " + o.console().toAbsolutePath());
        assertEquals("2", r.field("functions"));
        assertEquals("2", r.field("rdma_links"), "rdma link lists a device per function");
        assertEquals("ACTIVE", r.field("port_state"));
        assertEquals("InfiniBand", r.field("transport"), "ibv_devinfo: a RoCE device's transport");
        assertEquals("Ethernet", r.field("link_layer"));
        assertNotEquals("none", r.field("gid_ipv4_a"), "A's RoCE v2 GID of 192.0.2.2");
        assertNotEquals("none", r.field("gid_ipv4_b"), "B's RoCE v2 GID of 192.0.2.3");
        assertEquals("yes", r.field("gid_ll_a"), "A's RoCE v2 GID of its fe80:: address");
        assertEquals("yes", r.field("gid_ll_b"));
        assertEquals("0", r.field("irdma_errors"), () -> "irdma logged errors; console in " + o.console());
        assertFalse(log.contains("Couldn't create ib_mad QP1"), "the MAD layer's QP1 was created");
        assertFalse(log.contains("BUG:") || log.contains("Oops"), "no kernel oops");
        // QP1 of each function: created as a RoCE UD QP and taken to RTS, no CQP error anywhere
        assertTrue(trace.contains("\"role\":\"ROCE_UD\",\"from\":\"RTR\",\"to\":\"RTS\""), "QP1 reached RTS");
        // Flush WQEs of a QP with nothing posted (rdma_cm's disconnect) answers Flush No WQE Pending, which irdma
        // counts among its non-critical CQP errors (utils.c irdma_noncrit_err_list); no other CQP op may fail
        assertEquals(0, trace.lines().filter(l -> l.contains("\"ev\":\"cqp_error\""))
                .filter(l -> !l.contains("\"result\":\"FLUSH_NO_WQE_PENDING\"")).count(), "no CQP op failed");
        assertEquals("ok", r.field("udpp"), () -> "ibv_ud_pingpong: " + r + "; console in " + o.console());
        assertEquals("100", r.field("udpp_iters"));
        assertTrue(trace.contains("\"ev\":\"roce_tx\"") && trace.contains("\"ev\":\"roce_rx\""),
                "the UD frames went through the model's RoCE data path");
        // the IB CM's REQ, REP and RTU over QP1 both ways (MADs posted with Q_Key 0x80000000 leave with the GSI
        // Q_Key), then rping's RC traffic through the model's RC transport: ten verified pings each side
        assertEquals("1", r.field("cm_client_established"), () -> "rping -c saw ESTABLISHED; console in " + o.console());
        assertEquals("1", r.field("cm_server_established"), "rping -s saw ESTABLISHED");
        assertTrue(trace.contains("\"ev\":\"roce_tx\",\"qp\":1,") && trace.contains("\"ev\":\"roce_rx\",\"qp\":1,"),
                "QP1 sent and received MADs");
        assertTrue(trace.contains("\"dest_qp\":1,\"qkey\":\"0x80010000\""), "MADs leave with the GSI Q_Key");
        assertEquals("0/0", r.field("rping_rc"), () -> "rping -C 10 -V both ways; console in " + o.console());
        assertEquals("10", r.field("rping_client_pings"), "the client's ten verified pings");
        assertEquals("10", r.field("rping_server_pings"), "the server's ten verified pings");
        assertTrue(trace.contains("\"receipt\":\"REQUEST_EXECUTED\""), "RC requests through the model's RC engine");
        assertEquals("complete", r.field("ucmatose"), () -> "ucmatose: " + r + "; console in " + o.console());
        assertEquals("0/0", r.field("ucmatose_rc"));
        // rping's two RC QPs and ucmatose's 100 a side, each taken to RTS with its context and engine
        assertEquals(202, trace.lines().filter(l -> l.contains("\"role\":\"ROCE_RC\",\"from\":\"RTR\",\"to\":\"RTS\""))
                .count(), "RC QPs reaching RTS");
        assertFalse(trace.contains("\"ev\":\"roce_drop\""), "no RoCE frame dropped between the two functions");
        assertEquals("0", r.field("irdma_errors_after"), () -> "irdma logged errors in the RC runs; " + o.console());
        assertEquals(0, o.liveQps(), "no QP left on the model after the poweroff");
        assertEquals(0, o.liveCqs(), "no CQ left on the model after the poweroff");
    }
}
