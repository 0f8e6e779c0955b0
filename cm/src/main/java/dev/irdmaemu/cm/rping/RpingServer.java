package dev.irdmaemu.cm.rping;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmListener;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.VerbsException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rping's server (librdmacm examples/rping.c rping_run_server, and rping_run_persistent_server with {@code -P}) on
 * the model's CM: it listens on the options' address and port with rping's backlog of 3; for a connection request
 * it sets up a {@link RpingControlBlock}, posts the first receive and accepts onto that QP; the connection then runs
 * as a {@link RpingServerConnection}. Without {@code -P} it serves the first connection only and rejects later
 * requests. Single-threaded on the CM's scheduler.
 */
public final class RpingServer {
    private static final Logger LOG = LoggerFactory.getLogger(RpingServer.class);

    private final ConnectionManager cm;
    private final IrdmaVerbs verbs;
    private final RpingOptions options;
    private final List<RpingServerConnection> live = new ArrayList<>();
    private final List<RpingResult> results = new ArrayList<>();
    private CmListener listener;
    private Consumer<RpingResult> onConnectionDone = r -> { };
    private int requests;
    private int accepted;
    private int rejected;

    public RpingServer(ConnectionManager cm, IrdmaVerbs verbs, RpingOptions options) {
        if (!options.server()) {
            throw new IllegalArgumentException("client options for a server");
        }
        this.cm = cm;
        this.verbs = verbs;
        this.options = options;
    }

    /** Who hears each connection's result when it is over and its resources are freed. */
    public RpingServer onConnectionDone(Consumer<RpingResult> consumer) {
        this.onConnectionDone = consumer;
        return this;
    }

    /**
     * rping_bind_server: listens.
     *
     * @throws IllegalStateException when the CM cannot listen there (rdma_listen's failure)
     */
    public RpingServer start() {
        if (listener != null) {
            throw new IllegalStateException("listening already");
        }
        listener = cm.listen(options.address(), RpingOptions.BACKLOG, this::listenerEvent);
        LOG.info("rping server: listening on {}", options.address());
        return this;
    }

    private void listenerEvent(CmEvent e) {
        if (e.type() != CmEventType.CONNECT_REQUEST) {
            LOG.debug("rping server: {} on the listener", e);
            return;
        }
        requests++;
        if (!options.persistent() && accepted > 0) {
            LOG.info("rping server: a second connection request, from {}: rejected (not persistent)",
                    e.node().remote());
            rejected++;
            cm.reject(e.node(), new byte[0]);
            return;
        }
        RpingControlBlock cb;
        try {
            cb = RpingControlBlock.create(verbs, options.size(), true);
        } catch (VerbsException ve) {
            LOG.warn("rping server: setup_qp / setup_buffers failed for {}: {}", e.node().remote(), ve.getMessage());
            rejected++;
            cm.reject(e.node(), new byte[0]);
            return;
        }
        RpingServerConnection c = new RpingServerConnection(options, cb.buffers(), cb);
        cb.deliverTo(c);
        live.add(c);
        c.onDone(r -> {
            live.remove(c);
            results.add(r);
            onConnectionDone.accept(r);
        });
        if (!c.start()) {
            rejected++;
            cm.reject(e.node(), new byte[0]);
            return;
        }
        cb.bind(cm, e.node());
        if (cm.accept(e.node(), new byte[0], c::onCmEvent, cb.qpId())) {
            accepted++;
        } else {
            c.acceptFailed("the connection went away before the accept");
        }
    }

    /** Stops listening and ends the connections still up (abortively). */
    public void stop() {
        if (listener != null) {
            cm.destroyListener(listener);
        }
        for (RpingServerConnection c : List.copyOf(live)) {
            c.stop();
        }
    }

    /** Results of the connections that are over, in the order they ended. */
    public List<RpingResult> results() {
        return List.copyOf(results);
    }

    /** Connections still running (or freeing their resources). */
    public int liveConnections() {
        return live.size();
    }

    public int requests() {
        return requests;
    }

    public int accepted() {
        return accepted;
    }

    public int rejected() {
        return rejected;
    }

    public RpingOptions options() {
        return options;
    }
}
