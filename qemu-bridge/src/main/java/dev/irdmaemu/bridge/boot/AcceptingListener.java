package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmListener;
import dev.irdmaemu.cm.IpEndpoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server placeholder on the node's connection manager: listens on the node's addresses at one port and accepts
 * every connection request that reaches it, with no private data. It stands in for the model-side rping (or
 * ucmatose) server until the verbs API and the iWARP data path let one run: the CM's side of the connection
 * (listen, MPA negotiation, accept, offload, close) is real, what would follow on the QP is not there yet.
 * Whatever the CM refuses before indicating a request (irdma refuses an MPA v2 request without the peer-to-peer
 * bit) never reaches it; the node's counters and trace show those.
 */
public final class AcceptingListener extends ReportingService {
    private static final Logger LOG = LoggerFactory.getLogger(AcceptingListener.class);
    /** Connection requests waiting for accept, as irdma's default backlog would allow. */
    static final int BACKLOG = 64;

    private final int port;
    private final List<CmListener> listeners = new ArrayList<>();
    private int requests;
    private int accepted;
    private int established;
    private int disconnects;
    private int closes;

    public AcceptingListener(String name, int port) {
        super(name);
        if (port < 1 || port > 0xffff) {
            throw new IllegalArgumentException("port " + port);
        }
        this.port = port;
    }

    @Override
    public void start(HostedNode node) {
        for (IpEndpoint address : List.of(HostedNode.V4, HostedNode.V6)) {
            listeners.add(node.cm.listen(address.withPort(port), BACKLOG, e -> event(node, e)));
        }
        LOG.info("{}: listening on port {}", name(), port);
    }

    private void event(HostedNode node, CmEvent e) {
        LOG.info("{}: {}", name(), e);
        switch (e.type()) {
            case CONNECT_REQUEST -> {
                requests++;
                if (node.cm.accept(e.node(), new byte[0], c -> event(node, c))) {
                    accepted++;
                }
            }
            case ESTABLISHED -> established++;
            case DISCONNECT -> disconnects++;
            case CLOSE -> closes++;
            default -> {
            }
        }
    }

    /** It reports when stopped. */
    @Override
    public boolean reportsBeforeStop() {
        return false;
    }

    @Override
    public void stop(HostedNode node) {
        for (CmListener l : listeners) {
            node.cm.destroyListener(l);
        }
        listeners.clear();
        Map<String, String> f = new LinkedHashMap<>();
        f.put("port", Integer.toString(port));
        f.put("requests", Integer.toString(requests));
        f.put("accepted", Integer.toString(accepted));
        f.put("established", Integer.toString(established));
        f.put("disconnects", Integer.toString(disconnects));
        f.put("closed", Integer.toString(closes));
        report(true, f);
    }
}
