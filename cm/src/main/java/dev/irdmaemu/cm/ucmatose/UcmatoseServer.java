package dev.irdmaemu.cm.ucmatose;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmListener;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ucmatose's server (librdmacm examples/cmatose.c run_server) on the model's CM: it listens on the options' address
 * and port; each connection request up to {@code -c} gets a {@link UcmatoseConnection} (connect_handler: init_node,
 * the {@code -C} receives posted, rdma_accept onto its QP), a request beyond that is rejected ("failing connection
 * request"). When all {@code -c} are established it Sends {@code -C} messages on each, waits for its Sends and for
 * the client's {@code -C} replies on each, then disconnects them all and waits for each to close; then it stops
 * listening and reports. A failure (a connection that cannot be set up or accepted, a failed completion, a
 * connection that ends early) ends the run at once.
 */
public final class UcmatoseServer extends UcmatoseRun {
    private static final Logger LOG = LoggerFactory.getLogger(UcmatoseServer.class);

    private CmListener listener;
    private int requests;
    private boolean exchanging;

    public UcmatoseServer(ConnectionManager cm, IrdmaVerbs verbs, UcmatoseOptions options) {
        super(cm, verbs, options, true);
    }

    /**
     * rdma_bind_addr and rdma_listen.
     *
     * @throws IllegalStateException when the CM cannot listen there (rdma_listen's failure)
     */
    @Override
    public UcmatoseServer start() {
        begin();
        listener = cm.listen(options.address(), UcmatoseOptions.BACKLOG, this::listenerEvent);
        LOG.info("ucmatose server: listening on {} for {} connections, {} messages of {} bytes each way",
                options.address(), options.connections(), options.messages(), options.size());
        return this;
    }

    /** cmatose.c connect_handler. */
    private void listenerEvent(CmEvent e) {
        if (e.type() != CmEventType.CONNECT_REQUEST) {
            return;
        }
        requests++;
        if (firstConnectAt < 0) {
            firstConnectAt = cm.scheduler().now();
        }
        if (aborting || connections.size() == options.connections()) {
            LOG.info("ucmatose server: failing connection request from {} ({} connections made)", e.node().remote(),
                    connections.size());
            rejected++;
            cm.reject(e.node(), new byte[0]);
            return;
        }
        UcmatoseConnection c;
        try {
            c = UcmatoseConnection.create(this, verbs, connections.size(), options);
        } catch (VerbsException ve) {
            refuse(e, "init_node: " + ve.getMessage());
            return;
        }
        c.node = e.node();
        connections.add(c);
        PostStatus s = c.postReceives();
        if (s != PostStatus.OK) {
            c.closed = true;
            release(c);
            refuse(e, "failed to post receives: " + s.errno());
            return;
        }
        if (!cm.accept(e.node(), new byte[0], ev -> cmEvent(c, ev), c.qpId())) {
            connectsLeft--;
            c.closed = true;
            fail("failure accepting " + e.node().remote() + ": the connection went away");
            release(c);
            abort();
        }
    }

    /** connect_handler's error path: connect_error, "failing connection request", rdma_reject; the run fails. */
    private void refuse(CmEvent e, String why) {
        connectsLeft--;
        rejected++;
        fail(why);
        cm.reject(e.node(), new byte[0]);
        abort();
    }

    @Override
    void allEstablished() {
        if (options.messages() == 0) {
            disconnectAll();
            return;
        }
        // "initiating data transfers"; then poll_cqs(SEND_CQ_INDEX) and poll_cqs(RECV_CQ_INDEX)
        exchanging = true;
        sendAll();
        progress(null);
    }

    @Override
    void progress(UcmatoseConnection c) {
        if (exchanging && !disconnecting && !aborting && allExchanged()) {
            // "data transfers complete"
            disconnectAll();
        }
    }

    /** run_server: "cmatose: disconnecting", rdma_disconnect on every connected connection. */
    private void disconnectAll() {
        disconnecting = true;
        for (UcmatoseConnection c : connections) {
            if (c.connected) {
                disconnect(c, false);
            }
        }
        checkDone();
    }

    @Override
    void ended() {
        if (listener != null) {
            cm.destroyListener(listener);
            listener = null;
        }
    }

    @Override
    public void stop() {
        super.stop();
        if (!isDone()) {
            // connections still closing: stop listening now; the run reports when they are freed
            ended();
        }
    }

    /** Connection requests that reached the listener. */
    public int requests() {
        return requests;
    }

    /** Requests refused (beyond {@code -c}, or when one could not be set up). */
    public int rejected() {
        return rejected;
    }
}
