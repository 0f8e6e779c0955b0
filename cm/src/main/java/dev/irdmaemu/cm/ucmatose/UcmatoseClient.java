package dev.irdmaemu.cm.ucmatose;

import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ucmatose's client (librdmacm examples/cmatose.c run_client) on the model's CM: it opens {@code -c} connections to
 * the server at once, each from its own local port, each with its {@link UcmatoseConnection} set up and its
 * {@code -C} receives posted before the connect (route_handler: init_node, post_recvs, rdma_connect with
 * responder_resources and initiator_depth 1 and no private data). When all are established it waits for the
 * server's {@code -C} messages on each, then Sends as many back on each ("sending replies"), and waits for the
 * server to disconnect them, answering each with its own disconnect; when every connection has closed and been
 * freed it reports. A failed connect (cmatose's connect_error) or any other failure ends the run at once: the
 * connections still up are reset. With {@link UcmatoseOptions#sendFirst()} each connection Sends its messages a
 * set time after it is up, without waiting for the server's.
 */
public final class UcmatoseClient extends UcmatoseRun {
    private static final Logger LOG = LoggerFactory.getLogger(UcmatoseClient.class);

    private boolean repliesSent;
    private boolean anyConnected;
    private CmReason connectFailure;

    public UcmatoseClient(ConnectionManager cm, IrdmaVerbs verbs, UcmatoseOptions options) {
        super(cm, verbs, options, false);
    }

    /** run_client: every connection set up and connected, one after the other, without waiting in between. */
    @Override
    public UcmatoseClient start() {
        begin();
        firstConnectAt = startedAt;
        LOG.info("ucmatose client: {} connections to {}, {} messages of {} bytes each way", options.connections(),
                options.address(), options.messages(), options.size());
        IpEndpoint source = options.source();
        for (int i = 0; i < options.connections() && !aborting; i++) {
            UcmatoseConnection c;
            try {
                c = UcmatoseConnection.create(this, verbs, i, options);
            } catch (VerbsException e) {
                connectsLeft--;
                fail("init_node: " + e.getMessage());
                abort();
                break;
            }
            connections.add(c);
            PostStatus s = c.postReceives();
            if (s != PostStatus.OK) {
                abandon(c, "failed to post receives: " + s.errno());
                break;
            }
            ConnectParams params = ConnectParams.of(new byte[0], UcmatoseOptions.IRD, UcmatoseOptions.ORD)
                    .withQp(c.qpId());
            try {
                c.node = cm.connect(source.withPort(source.port() + i), options.address(), params,
                        e -> connectEvent(c, e));
            } catch (IllegalStateException | IllegalArgumentException e) {
                abandon(c, "failure connecting: " + e.getMessage());
                break;
            }
        }
        checkDone();
        return this;
    }

    /** A connection that could not be brought up: freed, and the run fails and ends. */
    private void abandon(UcmatoseConnection c, String why) {
        connectsLeft--;
        c.closed = true;
        release(c);
        fail(why);
        abort();
    }

    private void connectEvent(UcmatoseConnection c, CmEvent e) {
        if (e.type() == CmEventType.CONNECT_REPLY) {
            if (e.status() == CmStatus.OK) {
                anyConnected = true;
            } else if (connectFailure == null) {
                connectFailure = e.reason();
            }
        }
        cmEvent(c, e);
    }

    @Override
    void connectionUp(UcmatoseConnection c) {
        if (options.sendFirst()) {
            c.sendLater(options.sendFirstNanos(), () -> {
                if (aborting || !c.connected) {
                    return;
                }
                PostStatus s = c.postSends();
                if (s != PostStatus.OK) {
                    fail("failed to post sends: " + s.errno() + " on " + c);
                    abort();
                }
            });
        }
    }

    @Override
    void allEstablished() {
        // connect_events is done; with messages "receiving data transfers", then disconnect_events
        disconnecting = true;
        progress(null);
    }

    @Override
    void progress(UcmatoseConnection c) {
        if (options.messages() == 0 || options.sendFirst() || repliesSent || aborting || connectsLeft > 0) {
            return;
        }
        for (UcmatoseConnection x : connections) {
            if (x.receivesCompleted < options.messages()) {
                return;
            }
        }
        // poll_cqs(RECV_CQ_INDEX) is over: "sending replies"
        repliesSent = true;
        sendAll();
    }

    /** Some connection came up. */
    public boolean wasConnected() {
        return anyConnected;
    }

    /** Why the first failed connect failed (its CONNECT_REPLY's reason), or null when none did. */
    public CmReason connectFailure() {
        return connectFailure;
    }
}
