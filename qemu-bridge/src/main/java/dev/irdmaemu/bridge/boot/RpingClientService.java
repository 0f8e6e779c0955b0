package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.rping.RpingClient;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.cm.rping.RpingResult;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node as rping client (issue 6 test 2: the guest runs {@code rping -s}): once the node has learned the
 * guest's MAC (its first ARP, as rping's rdma_resolve_addr needs it), an {@link RpingClient} on the node's CM and
 * verbs connects to the guest's server with MPA v2 (the model, as initiator, sends the RTR) and makes {@code count}
 * verified pings of {@code size} bytes ({@code rping -c -C count -S size -V}). A connection reset before the MPA
 * exchange (the guest's server is not listening yet: its kernel answers the SYN with a RST) is tried again after
 * {@value #RETRY_MILLIS} ms from the next local port, up to {@value #ATTEMPTS} times, each try with a fresh client.
 * Its outcome is the client's result.
 */
public final class RpingClientService implements HostedService {
    private static final Logger LOG = LoggerFactory.getLogger(RpingClientService.class);
    static final long RETRY_MILLIS = 250;
    static final int ATTEMPTS = 240;
    /** The first local port; each try takes the next (rdma_cm picks ephemeral ports so). */
    static final int FIRST_LOCAL_PORT = 40000;

    private final String name;
    private final IpEndpoint server;
    private final int count;
    private final int size;
    private final CompletableFuture<ServiceOutcome> outcome = new CompletableFuture<>();
    private HostedNode node;
    private SimTimer retry;
    /** Stopped before the peer was known: a late neighbour must not start anything. */
    private boolean stopped;
    private RpingClient client;
    private RpingResult last;
    private int attempts;
    private int localPort = FIRST_LOCAL_PORT;

    /** {@code count} verified pings of {@code size} bytes to the rping server at {@code server}. */
    public RpingClientService(String name, IpEndpoint server, int count, int size) {
        if (count < 1) {
            throw new IllegalArgumentException("count " + count);
        }
        this.name = name;
        this.server = server;
        this.count = count;
        this.size = size;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start(HostedNode n) {
        this.node = n;
        this.retry = n.scheduler.newTimer(name + "-retry", this::attempt);
        // rdma_resolve_addr: wait until the peer has announced itself (its ARP or ND for the node)
        n.whenNeighbourKnown(server, () -> {
            if (!stopped) {
                attempt();
            }
        });
    }

    private void attempt() {
        if (outcome.isDone()) {
            return;
        }
        attempts++;
        IpEndpoint local = (server.ipv4() ? HostedNode.V4 : HostedNode.V6).withPort(localPort++);
        RpingOptions options = RpingOptions.client(server, local, count).withSize(size).validating();
        LOG.info("{}: rping -c -a {} -C {} -S {} -V from {} (attempt {})", name, server, count, size, local,
                attempts);
        RpingClient c = new RpingClient(node.cm, node.port.verbs(), options);
        client = c;
        c.onDone(r -> ended(c, r));
        c.start();
    }

    private void ended(RpingClient c, RpingResult r) {
        last = r;
        if (c != client) {
            return;
        }
        client = null;
        if (!r.ok() && !c.wasConnected() && c.connectFailure() == CmReason.PEER_RESET && attempts < ATTEMPTS
                && !outcome.isDone()) {
            LOG.info("{}: {}; trying again in {} ms", name, r.failure(), RETRY_MILLIS);
            retry.scheduleIn(RETRY_MILLIS * 1_000_000L);
            return;
        }
        if (c.connectFailure() != null) {
            // the client logs a failed connect at INFO (a reset is expected while the server is not listening yet):
            // one not tried again is a failure of the run
            LOG.warn("{}: {}; giving up after attempt {}", name, r.failure(), attempts);
        }
        finish(r.ok() && r.pings() == count && r.verified() == count);
    }

    private void finish(boolean ok) {
        if (outcome.isDone()) {
            return;
        }
        if (retry != null) {
            retry.cancel();
        }
        Map<String, String> f = new LinkedHashMap<>();
        f.put("server", server.toString());
        f.put("attempts", Integer.toString(attempts));
        f.put("pings", Integer.toString(last == null ? 0 : last.pings()));
        f.put("verified", Integer.toString(last == null ? 0 : last.verified()));
        f.put("of", Integer.toString(count));
        f.put("size", Integer.toString(size));
        if (last != null) {
            f.put("bytes_read", Long.toString(last.bytesRead()));
            f.put("bytes_written", Long.toString(last.bytesWritten()));
            if (!last.failure().isEmpty()) {
                f.put("failure", last.failure().replace(' ', '_'));
            }
        }
        outcome.complete(new ServiceOutcome(name, ok, f));
    }

    @Override
    public CompletableFuture<ServiceOutcome> outcome() {
        return outcome;
    }

    @Override
    public void stop(HostedNode n) {
        stopped = true;
        if (retry != null) {
            retry.cancel();
        }
        RpingClient c = client;
        if (c != null && !c.isDone()) {
            c.stop();
        }
        finish(false);
    }
}
