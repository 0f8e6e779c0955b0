package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client placeholder on the node's connection manager: once the node has learned the guest's MAC (the guest's
 * first ARP), it connects to the guest's server {@code count} times, one after the other, with MPA v2 (the model,
 * as initiator, sends the RTR), and closes each connection gracefully once it is up. A reset before the MPA
 * exchange (the guest's server is not listening yet: its kernel answers the SYN with a RST) is retried after
 * {@value #RETRY_MILLIS} ms, up to {@value #ATTEMPTS} times. It stands in for the model-side rping (or ucmatose)
 * client until the verbs API and the iWARP data path let one run: it proves the connection, not the pings.
 */
public final class ConnectingClient implements HostedService {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectingClient.class);
    static final long RETRY_MILLIS = 250;
    static final int ATTEMPTS = 240;
    /** The first local port; each connection takes the next (rdma_cm picks ephemeral ports so). */
    static final int FIRST_LOCAL_PORT = 40000;
    /** What rping asks for (rping.c: one outstanding RDMA read/write each way is all it needs). */
    static final int IRD = 16;
    static final int ORD = 16;

    private final String name;
    private final IpEndpoint server;
    private final int count;
    private final CompletableFuture<ServiceOutcome> outcome = new CompletableFuture<>();
    private HostedNode node;
    private SimTimer retry;
    private CmNode current;
    private int attempts;
    private int connected;
    private int refused;
    private int closed;
    private int localPort = FIRST_LOCAL_PORT;
    private String lastFailure = "";
    private int ird = -1;
    private int ord = -1;
    private int mpaRevision;

    /** {@code count} connections in turn to {@code server} (the guest's address and port). */
    public ConnectingClient(String name, IpEndpoint server, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count " + count);
        }
        this.name = name;
        this.server = server;
        this.count = count;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start(HostedNode n) {
        this.node = n;
        this.retry = n.scheduler.newTimer(name + "-retry", this::connect);
        if (n.neighbour(server) >= 0) {
            connect();
        } else {
            // rdma_resolve_addr: wait until the guest has announced itself (its ARP for the node)
            n.onNeighbour((address, mac) -> {
                if (address.ipv4() == server.ipv4() && address.addressLo() == server.addressLo()
                        && address.addressHi() == server.addressHi() && current == null && connected == 0
                        && attempts == 0) {
                    connect();
                }
            });
        }
    }

    private void connect() {
        if (outcome.isDone()) {
            return;
        }
        attempts++;
        IpEndpoint local = (server.ipv4() ? HostedNode.V4 : HostedNode.V6).withPort(localPort++);
        LOG.info("{}: connecting {} -> {} (attempt {})", name, local, server, attempts);
        current = node.cm.connect(local, server, ConnectParams.of(new byte[0], IRD, ORD), this::event);
    }

    private void event(CmEvent e) {
        LOG.info("{}: {}", name, e);
        if (e.type() == CmEventType.CONNECT_REPLY) {
            if (e.status() == CmStatus.OK) {
                connected++;
                ird = e.ird();
                ord = e.ord();
                mpaRevision = e.node().mpaRevision();
                node.cm.disconnect(e.node(), false);
            } else {
                refused++;
                lastFailure = e.status() + "/" + e.reason();
                current = null;
                if (e.reason() == CmReason.PEER_RESET && connected == 0 && attempts < ATTEMPTS) {
                    retry.scheduleIn(RETRY_MILLIS * 1_000_000L);
                } else {
                    finish(false);
                }
            }
        } else if (e.type() == CmEventType.CLOSE && e.node() == current) {
            closed++;
            current = null;
            if (connected == count) {
                finish(true);
            } else if (connected > 0) {
                connect();
            }
        }
    }

    private void finish(boolean ok) {
        if (retry != null) {
            retry.cancel();
        }
        Map<String, String> f = new LinkedHashMap<>();
        f.put("server", server.toString());
        f.put("attempts", Integer.toString(attempts));
        f.put("connected", Integer.toString(connected));
        f.put("closed", Integer.toString(closed));
        f.put("refused", Integer.toString(refused));
        if (connected > 0) {
            f.put("mpa", "v" + mpaRevision);
            f.put("ird", Integer.toString(ird));
            f.put("ord", Integer.toString(ord));
        }
        if (!lastFailure.isEmpty()) {
            f.put("last_failure", lastFailure);
        }
        outcome.complete(new ServiceOutcome(name, ok && connected == count, f));
    }

    @Override
    public CompletableFuture<ServiceOutcome> outcome() {
        return outcome;
    }

    @Override
    public void stop(HostedNode n) {
        if (current != null && !current.isDestroyed()) {
            n.cm.disconnect(current, true);
        }
        finish(false);
    }
}
