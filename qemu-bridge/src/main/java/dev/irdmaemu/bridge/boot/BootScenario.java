package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.kit.GuestLaunch.Siw;
import dev.irdmaemu.bridge.lan.LanTag;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.cm.ucmatose.UcmatoseOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The scenarios {@code irdma-emu boot} runs: what the guest does (the shell fragment
 * {@code qemu-bridge/src/main/kit/guest/scenarios/NAME.sh} its init runs), which siw build it loads, and what the
 * hosted node runs against it ({@link HostedService}s): rping's client or server on the node's CM and verbs
 * ({@link RpingClientService}, {@link RpingServerService}), the listener that meets the refused connection
 * ({@link AcceptingListener}), and ucmatose's client or server ({@link UcmatoseClientService},
 * {@link UcmatoseServerService}).
 *
 * <p>The ucmatose scenarios run rounds of {@value #UCMATOSE_CONNECTIONS} connections, "connect" ({@code -C 0}:
 * connections only, timed; ucmatose-client only) and "exchange" (cmatose's default {@code -C 10 -S 100}: ten Sends
 * of 100 bytes each way on each connection), each round as {@value #UCMATOSE_PROCESSES} guest processes of
 * {@value #UCMATOSE_PER_PROCESS} connections: one process cannot hold more than 36 connections on siw. The kernel
 * hands each CQ, SQ and RQ mapping the next free page offset of the process's context (ib_core
 * rdma_user_mmap_entry_insert), but siw's ABI (siw-abi.h) reserves key 0x90000, page offset 0x90, as
 * SIW_INVAL_UOBJ_KEY, and libsiw (rdma-core providers/siw) refuses an object whose key equals it: the 145th mapping,
 * the first CQ of the 37th connection (2 CQs, an SQ and an RQ each), fails, and cmatose reports "unable to create
 * CQ" with its fixed -ENOMEM. Every later try gets the same freed offset again.
 *
 * <p>In ucmatose-server the node's clients run cmatose's default exchange only, and Send their messages 200 ms after
 * each connection is up (cmatose's client waits for the server's first; its server does not mind). A connection on
 * which nothing reaches the guest after the RTR may never come up there: siw_cm.c siw_accept sends its MPA reply and
 * only then hooks the socket's data-ready callback that reads the initiator's RTR (siw_sk_assign_rtr_upcalls; until
 * then siw_cm_llp_data_ready ignores data in RDMA mode). The model, like irdma, sends the RTR microseconds after
 * the reply; under TCG on a busy host it sometimes lands in that window (seen for 1 to 9 connections in a hundred):
 * the socket keeps the 20-byte RTR unread, the connection never reports ESTABLISHED and the guest's server waits
 * for ever. Data that arrives later wakes the callback, which then reads everything queued; the delay keeps the
 * node's Sends clear of the window even when the guest's CPU is held up for a while. With -C 0 nothing would come;
 * MPA revision 1 is no way out either: irdma's initiator then sends a zero-length RDMA Read as its first FPDU,
 * which siw answers with a Terminate (MPA layer, no matching RTR model). ucmatose-client, where the guest
 * initiates, runs both rounds.
 */
public enum BootScenario {
    /** siw on a dummy netdev inside the guest, a loopback rping: the kit works (no traffic to the model). */
    SMOKE("smoke", Siw.STOCK, "siw on a dummy netdev and a loopback rping inside the guest (no model traffic)"),
    /** Issue 6 test 1: ARP + ping to 192.0.2.1, Neighbor Discovery + ping to 2001:db8::1. */
    PING("ping", Siw.STOCK, "the guest pings the node: ARP and ICMP echo to 192.0.2.1, ND and ICMPv6 echo to "
            + "2001:db8::1"),
    /** Issue 6 test 2 (the default): the guest's stock siw serves rping, the node's rping client connects. */
    RPING_SERVER("rping-server", Siw.STOCK, "the guest runs `rping -s -C 10 -V` on stock siw; the node's rping "
            + "client connects with MPA v2 (the model sends the RTR)"),
    /**
     * Issue 6 test 3: stock siw's rping client against the node's server. siw's MPA v2 request lacks the
     * peer-to-peer bit (siw_main.c peer_to_peer is false), which irdma refuses (irdma_negotiate_mpa_v2_ird_ord):
     * the node resets the connection after the request, and that is the expected result.
     */
    RPING_CLIENT_REFUSED("rping-client-refused", Siw.STOCK, "stock siw's `rping -c` against the node: refused "
            + "as irdma refuses an MPA v2 request without the peer-to-peer bit (expected)"),
    /** Issue 6 test 4: the peer-to-peer siw build's rping client against the node's server. */
    RPING_CLIENT("rping-client", Siw.PEER_TO_PEER, "siw built with peer_to_peer true runs `rping -c -C 10 -V` "
            + "against the node's rping server"),
    /**
     * rping's throughput seen by the guest: the peer-to-peer siw build's {@code rping -c -C 100 -S 65535} against
     * the node's rping server, timed in the guest (the figure, not a test of its own); then, in the same guest and
     * run, the same rping between two endpoints of a second siw device on a dummy netdev (the guest's kernel TCP on
     * both ends), and the ratio of the two rates ({@code model_over_local}); then that pair again with siw
     * reloaded to ask for MPA CRCs as the model's CM does ({@link SiwCrcModule}), and the like-for-like ratio
     * ({@code model_over_local_crc}).
     */
    RPING_THROUGHPUT("rping-throughput", Siw.PEER_TO_PEER, "the peer-to-peer siw's `rping -c -C "
            + BootScenario.THROUGHPUT_COUNT + " -S " + BootScenario.THROUGHPUT_SIZE + "` against the node's rping "
            + "server, then between two siw endpoints on a dummy netdev inside the guest, without and with MPA "
            + "CRCs, all timed in the guest, and the ratios"),
    /** Issue 6 test 5, the guest as server: the node's ucmatose clients connect, exchange and are disconnected. */
    UCMATOSE_SERVER("ucmatose-server", Siw.STOCK, "the guest's ucmatose servers (stock siw) take "
            + BootScenario.UCMATOSE_CONNECTIONS + " connections from the node's ucmatose clients, -C 10 -S 100 "
            + "each way"),
    /** Issue 6 test 5, the guest as client (peer-to-peer siw): the guest's ucmatose connects to the node's. */
    UCMATOSE_CLIENT("ucmatose-client", Siw.PEER_TO_PEER, "the guest's ucmatose clients (peer-to-peer siw) open "
            + BootScenario.UCMATOSE_CONNECTIONS + " connections to the node's ucmatose servers twice: -C 0, then "
            + "-C 10 -S 100, then (virtio-net) the same between two siw endpoints inside the guest, and the ratios"),
    /**
     * Issue 29 item 4, the E810 only: the RDMA paths the other scenarios skip, one after the other in one boot,
     * each `rping -c -V` and ucmatose against the node: over IPv6, over a VLAN netdev whose frames carry a priority,
     * and at MTU 9000 (the node's port runs at that MTU throughout, its LAN side answers on the VLAN too; see
     * {@link #nodeLink()}).
     */
    RDMA_PATHS("rdma-paths", Siw.PEER_TO_PEER, "on the emulated E810 only: irdma's `rping -c -C 10 -V` and "
            + "ucmatose (" + BootScenario.PATHS_UCMATOSE_CONNECTIONS + " connections, -C 10) against the node over "
            + "IPv6 (2001:db8::1), over VLAN " + BootScenario.PATHS_VLAN_ID + " with priority "
            + BootScenario.PATHS_VLAN_PCP + " (203.0.113.1), and untagged at MTU " + BootScenario.PATHS_JUMBO_MTU);

    /** The scenario {@code irdma-emu boot} runs without {@code --scenario}. */
    public static final BootScenario DEFAULT = RPING_SERVER;
    /** rping's default port (librdmacm examples/rping.c). */
    public static final int RPING_PORT = 7174;
    /** Pings the node's rping client makes (the guest scenarios' COUNT, rping's -C). */
    public static final int RPING_COUNT = 10;
    /** ucmatose's default port (librdmacm examples/cmatose.c). */
    public static final int UCMATOSE_PORT = 7471;
    /** Connections per ucmatose round (the guest scenarios use the same numbers). */
    public static final int UCMATOSE_CONNECTIONS = 100;
    /** Guest processes per ucmatose round, and the connections of each (see the class comment for why). */
    public static final int UCMATOSE_PROCESSES = 4;
    public static final int UCMATOSE_PER_PROCESS = UCMATOSE_CONNECTIONS / UCMATOSE_PROCESSES;
    /** The node's servers' ports in ucmatose-client: the connect round on 7471, the exchange round on 7472. */
    public static final int UCMATOSE_NODE_EXCHANGE_PORT = UCMATOSE_PORT + 1;
    /** cmatose.c's default exchange: -C 10 -S 100. */
    public static final int UCMATOSE_MESSAGES = UcmatoseOptions.DEFAULT_MESSAGES;
    public static final int UCMATOSE_SIZE = UcmatoseOptions.DEFAULT_SIZE;
    /** How long after each connection is up the node's clients in ucmatose-server Send (see the class comment). */
    static final long UCMATOSE_SEND_FIRST_NANOS = 200_000_000L;
    /** The node's clients' first local port in ucmatose-server, per round. */
    static final int UCMATOSE_CLIENT_PORT = 40000;
    /** rping-throughput's pings and their size (rping's largest, RPING_BUFSIZE - 1). */
    public static final int THROUGHPUT_COUNT = 100;
    public static final int THROUGHPUT_SIZE = 65535;
    /** rdma-paths: the VLAN, the priority the guest's VLAN netdev maps every skb priority to, the jumbo MTU. */
    public static final int PATHS_VLAN_ID = 100;
    public static final int PATHS_VLAN_PCP = 5;
    public static final int PATHS_JUMBO_MTU = 9000;
    /** rdma-paths: the node's address on the VLAN (the guest's is 203.0.113.2/24) and its IPv6 one there. */
    public static final IpEndpoint PATHS_VLAN_V4 = IpEndpoint.of("203.0.113.1", 0);
    public static final IpEndpoint PATHS_VLAN_V6 = IpEndpoint.of("2001:db8:100::1", 0);
    /** rdma-paths: connections of each ucmatose variant, and the jumbo variant's sizes (Sends, rping buffer). */
    public static final int PATHS_UCMATOSE_CONNECTIONS = 5;
    public static final int PATHS_JUMBO_UCMATOSE_SIZE = 8000;
    public static final int PATHS_JUMBO_RPING_SIZE = 20000;
    /** rdma-paths: the node's rping servers' ports (v6, vlan, jumbo) and its ucmatose servers' first port. */
    public static final int PATHS_RPING_PORT = RPING_PORT;
    public static final int PATHS_UCMATOSE_PORT = 7481;

    private final String word;
    private final Siw siw;
    private final String description;

    BootScenario(String word, Siw siw, String description) {
        this.word = word;
        this.siw = siw;
        this.description = description;
    }

    /** The name on the command line and the guest's scenario file ({@code scenarios/NAME.sh}). */
    public String word() {
        return word;
    }

    /** The siw build the guest loads unless told otherwise. */
    public Siw siw() {
        return siw;
    }

    public String description() {
        return description;
    }

    /**
     * The description for a run on the emulated E810 ({@code --nic e810}), where the guest's RDMA device at the
     * node's end is the stock irdma's iWARP device, not siw (siw stays only where the scenario compares with a
     * siw pair inside the guest).
     */
    public String descriptionOnE810() {
        return description.replace("on stock siw", "on the E810's irdma (iWARP)")
                .replace("(stock siw)", "(irdma on the E810)")
                .replace("stock siw's", "irdma's")
                .replace("the peer-to-peer siw's", "irdma's")
                .replace("siw built with peer_to_peer true runs", "irdma runs");
    }

    /** The guest's script in the jar (the same file the kit's initramfs was made with). */
    public String resource() {
        return resourceOf(word);
    }

    /** The jar's resource of the guest script or fragment {@code word} ({@code scenarios/WORD.sh} in the kit). */
    static String resourceOf(String word) {
        return "/dev/irdmaemu/bridge/boot/scenarios/" + word + ".sh";
    }

    /** What the hosted node runs for this scenario; new instances on each call. */
    public List<HostedService> services() {
        return switch (this) {
            case SMOKE, PING -> List.of();
            case RPING_SERVER -> List.of(new RpingClientService("rping-client",
                    HostedNode.GUEST_V4.withPort(RPING_PORT), RPING_COUNT, RpingOptions.DEFAULT_SIZE));
            case RPING_CLIENT_REFUSED -> List.of(new AcceptingListener("rping-server", RPING_PORT));
            case RPING_CLIENT -> List.of(new RpingServerService("rping-server",
                    HostedNode.V4.withPort(RPING_PORT), RpingOptions.DEFAULT_SIZE));
            case RPING_THROUGHPUT -> List.of(new RpingServerService("rping-server",
                    HostedNode.V4.withPort(RPING_PORT), THROUGHPUT_SIZE));
            case UCMATOSE_SERVER -> List.of(new UcmatoseClientService("ucmatose-client", HostedNode.GUEST_V4,
                    List.of(clientRound("exchange", UCMATOSE_PORT, UCMATOSE_MESSAGES, 0))));
            case UCMATOSE_CLIENT -> List.of(new UcmatoseServerService("ucmatose-server", List.of(
                    new UcmatoseRound("connect", List.of(UcmatoseOptions.server(HostedNode.V4.withPort(UCMATOSE_PORT),
                            UCMATOSE_CONNECTIONS).withMessages(0, UCMATOSE_SIZE))),
                    new UcmatoseRound("exchange", List.of(UcmatoseOptions.server(
                            HostedNode.V4.withPort(UCMATOSE_NODE_EXCHANGE_PORT), UCMATOSE_CONNECTIONS)
                            .withMessages(UCMATOSE_MESSAGES, UCMATOSE_SIZE))))));
            case RDMA_PATHS -> List.of(
                    new RpingServerService("rping-v6", HostedNode.V6.withPort(PATHS_RPING_PORT),
                            RpingOptions.DEFAULT_SIZE),
                    new RpingServerService("rping-vlan", PATHS_VLAN_V4.withPort(PATHS_RPING_PORT + 1),
                            RpingOptions.DEFAULT_SIZE),
                    new RpingServerService("rping-jumbo", HostedNode.V4.withPort(PATHS_RPING_PORT + 2),
                            PATHS_JUMBO_RPING_SIZE),
                    new UcmatoseServerService("ucmatose-server", List.of(
                            pathsRound("v6", HostedNode.V6, 0, UCMATOSE_SIZE),
                            pathsRound("vlan", PATHS_VLAN_V4, 1, UCMATOSE_SIZE),
                            pathsRound("jumbo", HostedNode.V4, 2, PATHS_JUMBO_UCMATOSE_SIZE))));
        };
    }

    /** rdma-paths: one ucmatose server of the variant, {@code ucmatose -b ADDRESS -p 7481+i -c 5 -C 10 -S size}. */
    private static UcmatoseRound pathsRound(String name, IpEndpoint address, int i, int size) {
        return new UcmatoseRound(name, List.of(UcmatoseOptions.server(address.withPort(PATHS_UCMATOSE_PORT + i),
                PATHS_UCMATOSE_CONNECTIONS).withMessages(UCMATOSE_MESSAGES, size)));
    }

    /**
     * The node's link for this scenario: {@link NodeLink#PLAIN} but for rdma-paths, whose node runs at the jumbo MTU
     * (the guest's 1500-byte variants still get segments of their own MSS: cm.c takes the smaller of the two) with
     * VLAN {@value #PATHS_VLAN_ID}'s netdev (203.0.113.1/24, 2001:db8:100::1/64), sending at priority
     * {@value #PATHS_VLAN_PCP} as the guest does.
     */
    public NodeLink nodeLink() {
        if (this != RDMA_PATHS) {
            return NodeLink.PLAIN;
        }
        return new NodeLink(PATHS_JUMBO_MTU, List.of(new NodeLink.VlanNetdev(
                new LanTag.Vlan(PATHS_VLAN_ID, PATHS_VLAN_PCP), PATHS_VLAN_V4, 24, PATHS_VLAN_V6, 64)));
    }

    /**
     * A round of the node's ucmatose clients: one per guest server process, on ports {@code firstPort} up, each
     * {@code ucmatose -s 192.0.2.2 -p PORT -c 25 -C messages}, from local ports of its own, Sending first (see the
     * class comment).
     */
    private static UcmatoseRound clientRound(String name, int firstPort, int messages, int portBase) {
        List<UcmatoseOptions> clients = new java.util.ArrayList<>();
        for (int i = 0; i < UCMATOSE_PROCESSES; i++) {
            clients.add(UcmatoseOptions.client(HostedNode.GUEST_V4.withPort(firstPort + i),
                    HostedNode.V4.withPort(UCMATOSE_CLIENT_PORT + portBase + 100 * i), UCMATOSE_PER_PROCESS)
                    .withMessages(messages, UCMATOSE_SIZE).sendingFirst(UCMATOSE_SEND_FIRST_NANOS));
        }
        return new UcmatoseRound(name, clients);
    }

    /** The scenario of that name, case-insensitive. */
    public static BootScenario named(String word) {
        String w = word == null ? "" : word.toLowerCase(Locale.ROOT);
        for (BootScenario s : values()) {
            if (s.word.equals(w)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown scenario '" + word + "' (known: " + names() + ")");
    }

    /** The scenario names, comma-separated. */
    public static String names() {
        return Arrays.stream(values()).map(BootScenario::word).collect(Collectors.joining(", "));
    }
}
