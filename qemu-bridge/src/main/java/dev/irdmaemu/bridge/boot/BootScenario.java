package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.kit.GuestLaunch.Siw;
import dev.irdmaemu.cm.rping.RpingOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The scenarios {@code irdma-emu boot} runs: what the guest does (the shell fragment
 * {@code qemu-bridge/src/main/kit/guest/scenarios/NAME.sh} its init runs), which siw build it loads, and what the
 * hosted node runs against it ({@link HostedService}s): rping's client or server on the node's CM and verbs
 * ({@link RpingClientService}, {@link RpingServerService}), the listener that meets the refused connection
 * ({@link AcceptingListener}), and the ucmatose placeholders on the CM ({@link ConnectingClient},
 * {@link AcceptingListener}).
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
    /** Issue 6 test 5, the guest as server: ucmatose connections from the node, connect and disconnect. */
    UCMATOSE_SERVER("ucmatose-server", Siw.STOCK, "the guest runs the ucmatose server; the node connects to it "
            + "and disconnects, " + BootScenario.UCMATOSE_CONNECTIONS + " times"),
    /** Issue 6 test 5, the guest as client (peer-to-peer siw): ucmatose connections to the node. */
    UCMATOSE_CLIENT("ucmatose-client", Siw.PEER_TO_PEER, "the guest's ucmatose (peer-to-peer siw) opens "
            + BootScenario.UCMATOSE_CONNECTIONS + " connections to the node and closes them");

    /** The scenario {@code irdma-emu boot} runs without {@code --scenario}. */
    public static final BootScenario DEFAULT = RPING_SERVER;
    /** rping's default port (librdmacm examples/rping.c). */
    public static final int RPING_PORT = 7174;
    /** Pings the node's rping client makes (the guest scenarios' COUNT, rping's -C). */
    public static final int RPING_COUNT = 10;
    /** ucmatose's default port (librdmacm examples/cmatose.c). */
    public static final int UCMATOSE_PORT = 7471;
    /** Connections per ucmatose run (the guest scenarios use the same number). */
    public static final int UCMATOSE_CONNECTIONS = 100;

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

    /** The guest's script in the jar (the same file the kit's initramfs was made with). */
    public String resource() {
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
                    HostedNode.V4.withPort(RPING_PORT)));
            case UCMATOSE_SERVER -> List.of(new ConnectingClient("ucmatose-client",
                    HostedNode.GUEST_V4.withPort(UCMATOSE_PORT), UCMATOSE_CONNECTIONS));
            case UCMATOSE_CLIENT -> List.of(new AcceptingListener("ucmatose-server", UCMATOSE_PORT));
        };
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
