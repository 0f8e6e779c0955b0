package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.rping.RpingClient;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.cm.rping.RpingResult;
import java.util.LinkedHashMap;
import java.util.Map;
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
public final class RpingClientService extends ReportingService {
    private static final Logger LOG = LoggerFactory.getLogger(RpingClientService.class);
    static final long RETRY_MILLIS = 250;
    static final int ATTEMPTS = 240;
    /** The first local port; each try takes the next (rdma_cm picks ephemeral ports so). */
    static final int FIRST_LOCAL_PORT = 40000;

    private final IpEndpoint server;
    private final int count;
    private final int size;
    private HostedNode node;
    private final PeerRetry retry = new PeerRetry();
    private RpingClient client;
    private RpingResult last;
    private int attempts;
    private int localPort = FIRST_LOCAL_PORT;

    /** {@code count} verified pings of {@code size} bytes to the rping server at {@code server}. */
    public RpingClientService(String name, IpEndpoint server, int count, int size) {
        super(name);
        if (count < 1) {
            throw new IllegalArgumentException("count " + count);
        }
        this.server = server;
        this.count = count;
        this.size = size;
    }

    @Override
    public void start(HostedNode n) {
        this.node = n;
        retry.arm(n, name(), server, this::attempt, this::attempt);
    }

    private void attempt() {
        if (reported()) {
            return;
        }
        attempts++;
        IpEndpoint local = (server.ipv4() ? HostedNode.V4 : HostedNode.V6).withPort(localPort++);
        RpingOptions options = RpingOptions.client(server, local, count).withSize(size).validating();
        LOG.info("{}: rping -c -a {} -C {} -S {} -V from {} (attempt {})", name(), server, count, size, local,
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
                && !reported()) {
            LOG.info("{}: {}; trying again in {} ms", name(), r.failure(), RETRY_MILLIS);
            retry.againIn(RETRY_MILLIS);
            return;
        }
        if (c.connectFailure() != null) {
            // the client logs a failed connect at INFO (a reset is expected while the server is not listening yet):
            // one not tried again is a failure of the run
            LOG.warn("{}: {}; giving up after attempt {}", name(), r.failure(), attempts);
        }
        finish(r.ok() && r.pings() == count && r.verified() == count);
    }

    private void finish(boolean ok) {
        if (reported()) {
            return;
        }
        retry.cancel();
        Map<String, String> f = new LinkedHashMap<>();
        f.put("server", server.toString());
        f.put("attempts", Integer.toString(attempts));
        f.put("pings", Integer.toString(last == null ? 0 : last.pings()));
        f.put("verified", Integer.toString(last == null ? 0 : last.verified()));
        f.put("of", Integer.toString(count));
        f.put("size", Integer.toString(size));
        if (last != null) {
            RpingSummaryFields.put(f, last);
        }
        report(ok, f);
    }

    @Override
    public void stop(HostedNode n) {
        retry.stop();
        RpingClient c = client;
        if (c != null && !c.isDone()) {
            c.stop();
        }
        finish(false);
    }
}
