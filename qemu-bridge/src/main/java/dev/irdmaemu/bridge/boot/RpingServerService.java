package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.rping.RpingOptions;
import dev.irdmaemu.cm.rping.RpingResult;
import dev.irdmaemu.cm.rping.RpingServer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node as rping server (issue 6 test 4: the guest's peer-to-peer siw runs {@code rping -c}): an
 * {@link RpingServer} on the node's CM and verbs, listening on {@code address} ({@code rping -s -a address -p
 * port -V}), for one connection as rping without {@code -P} serves. Each Read is checked to be rping's ping data.
 * Its outcome is that connection's result when the guest's client disconnects; a stop before then (the guest never
 * connected, or is still at it) is a failure.
 */
public final class RpingServerService extends ReportingService {
    private static final Logger LOG = LoggerFactory.getLogger(RpingServerService.class);

    private final IpEndpoint address;
    private final int size;
    private RpingServer server;

    /** rping's server on {@code address}, its buffer {@code size} bytes ({@code -S}: the most a client may ping). */
    public RpingServerService(String name, IpEndpoint address, int size) {
        super(name);
        this.address = address;
        this.size = size;
    }

    @Override
    public void start(HostedNode node) {
        RpingOptions options = new RpingOptions(true, address, null, 0, size, true, false, false);
        server = new RpingServer(node.cm, node.port.verbs(), options).onConnectionDone(this::connectionDone);
        server.start();
        LOG.info("{}: rping -s -a {} -p {} -S {} -V", name(), address, address.port(), size);
    }

    private void connectionDone(RpingResult r) {
        finish(r.ok() && r.pings() > 0, r);
    }

    private void finish(boolean ok, RpingResult r) {
        if (reported()) {
            return;
        }
        Map<String, String> f = new LinkedHashMap<>();
        f.put("address", address.toString());
        f.put("requests", Integer.toString(server == null ? 0 : server.requests()));
        f.put("accepted", Integer.toString(server == null ? 0 : server.accepted()));
        f.put("pings", Integer.toString(r == null ? 0 : r.pings()));
        f.put("verified", Integer.toString(r == null ? 0 : r.verified()));
        if (r != null) {
            RpingSummaryFields.put(f, r);
        } else {
            f.put("failure", "no_connection_ended");
        }
        report(ok, f);
    }

    @Override
    public void stop(HostedNode node) {
        if (server != null) {
            server.stop();
        }
        if (!reported()) {
            // a connection still up is ended by the stop: its result (failed) arrives after its teardown
            finish(false, server == null || server.results().isEmpty() ? null : server.results().get(0));
        }
    }
}
