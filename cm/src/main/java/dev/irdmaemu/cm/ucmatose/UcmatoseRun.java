package dev.irdmaemu.cm.ucmatose;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.QpEventType;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What cmatose.c's client and server share (struct cmatest and cma_handler): the connections, the count of
 * connections still to come up ({@code connects_left}) and still to go down ({@code disconnects_left}), the
 * disconnect handling (RDMA_CM_EVENT_DISCONNECTED is answered with rdma_disconnect), and beyond cmatose, which
 * frees everything after its loops end: each connection's resources are freed once the CM has closed it, on the
 * next scheduler event (never inside a CM or CQ handler), and the run ends with a {@link UcmatoseResult} when all
 * are freed. A failure ends the run: every connection still up is reset and freed. Single-threaded on the CM's
 * scheduler.
 */
public abstract sealed class UcmatoseRun permits UcmatoseServer, UcmatoseClient {
    private static final Logger LOG = LoggerFactory.getLogger(UcmatoseRun.class);

    final ConnectionManager cm;
    final IrdmaVerbs verbs;
    final UcmatoseOptions options;
    final List<UcmatoseConnection> connections = new ArrayList<>();
    private final SimTimer reaper;
    private final List<UcmatoseConnection> toRelease = new ArrayList<>();
    private Consumer<UcmatoseResult> onDone = r -> { };
    /** cmatose.c connects_left and disconnects_left. */
    int connectsLeft;
    int disconnectsLeft;
    int established;
    int disconnected;
    int rejected;
    long startedAt = -1;
    long firstConnectAt = -1;
    long allEstablishedAt = -1;
    /** The disconnect phase has begun (server: it disconnected all; client: all are up, it waits for the server). */
    boolean disconnecting;
    boolean started;
    boolean aborting;
    String failure = "";
    private UcmatoseResult result;

    /** A run of the {@code server} side or the client's; {@code options} must be that side's. */
    UcmatoseRun(ConnectionManager cm, IrdmaVerbs verbs, UcmatoseOptions options, boolean server) {
        this.cm = cm;
        this.verbs = verbs;
        this.options = options;
        this.connectsLeft = options.connections();
        this.reaper = cm.scheduler().newTimer("ucmatose-release", this::releaseClosed);
        if (options.server() != server) {
            throw new IllegalArgumentException(server ? "client options for a server" : "server options for a client");
        }
    }

    /** Who hears the result, once, when the run is over and everything is freed. */
    public UcmatoseRun onDone(Consumer<UcmatoseResult> consumer) {
        this.onDone = consumer;
        return this;
    }

    /** Starts the run: the server listens, the client connects. */
    public abstract UcmatoseRun start();

    /** The start, once: the run's clock starts now. */
    final void begin() {
        if (started) {
            throw new IllegalStateException("started already");
        }
        started = true;
        startedAt = cm.scheduler().now();
    }

    /** A completion was counted on {@code c}. */
    abstract void progress(UcmatoseConnection c);

    /** Connection {@code c} came up (before the count is looked at). */
    void connectionUp(UcmatoseConnection c) {
    }

    /** The last connection came up. */
    abstract void allEstablished();

    /** Everything is freed: the server also stops listening. */
    void ended() {
    }

    /** cmatose.c cma_handler: the events common to both sides, after the side's own connect events. */
    final void cmEvent(UcmatoseConnection c, CmEvent e) {
        LOG.debug("ucmatose: {} on {}", e, c);
        switch (e.type()) {
            case CONNECT_REPLY, ESTABLISHED -> {
                if (e.status() == CmStatus.OK) {
                    connected(c);
                } else {
                    // RDMA_CM_EVENT_REJECTED / _CONNECT_ERROR: cmatose's connect_error; the CM has let the node go
                    connectsLeft--;
                    c.closed = true;
                    fail("event " + e.type() + ", error " + e.status().errno() + " (" + e.reason() + ") on "
                            + c);
                    release(c);
                    abort();
                }
            }
            case DISCONNECT -> {
                // iw_cm's DISCONNECT (the peer's FIN, or a reset) reaches no rdma_cm consumer: irdma answers the
                // FIN itself and the CLOSE that follows is cmatose's RDMA_CM_EVENT_DISCONNECTED (cma.c
                // cma_iw_handler maps IW_CM_EVENT_CLOSE to it); only a reset is worth a failure here
                boolean orderly = e.status() == CmStatus.OK && e.reason() == CmReason.NONE;
                if (!aborting && !orderly) {
                    fail("connection " + c.id + " ended: " + e.status() + ", " + e.reason());
                }
            }
            case CLOSE -> {
                // RDMA_CM_EVENT_DISCONNECTED: cmatose answers it with rdma_disconnect, which finds the connection
                // closed already; disconnects_left--
                c.closed = true;
                c.connected = false;
                if (!aborting && !disconnecting) {
                    fail("connection " + c.id + " closed before the test was done (" + e.reason() + ")");
                } else if (!aborting && e.reason() != CmReason.NONE && e.reason() != CmReason.CLOSE_TIMEOUT) {
                    // an orderly close may end on irdma's close timer when the peer is slow to acknowledge the
                    // last FIN (cm.c irdma_handle_close_entry forces it): the connection is closed all the same
                    fail("connection " + c.id + " closed: " + e.reason());
                }
                countDisconnect(c);
                release(c);
            }
            default -> LOG.debug("ucmatose: unhandled {}", e);
        }
    }

    private void connected(UcmatoseConnection c) {
        c.connected = true;
        c.established = true;
        established++;
        connectsLeft--;
        disconnectsLeft++;
        if (aborting) {
            disconnect(c, true);
            return;
        }
        connectionUp(c);
        if (connectsLeft == 0 && !aborting) {
            allEstablishedAt = cm.scheduler().now();
            LOG.info("ucmatose {}: all {} connections established in {} us", side(), options.connections(),
                    (allEstablishedAt - firstConnectAt) / 1000);
            allEstablished();
        }
    }

    private void countDisconnect(UcmatoseConnection c) {
        if (c.established && !c.disconnectCounted) {
            c.disconnectCounted = true;
            disconnectsLeft--;
            disconnected++;
        }
    }

    /** rdma_disconnect, once per connection; abortive when the run is being torn down. */
    final void disconnect(UcmatoseConnection c, boolean abortive) {
        c.connected = false;
        if (c.disconnectRequested || c.closed || c.node == null || c.node.isDestroyed()) {
            return;
        }
        c.disconnectRequested = true;
        cm.disconnect(c.node, abortive);
    }

    /** Posts {@code -C} Sends on every connected connection (cmatose.c post_sends in its loop). */
    final void sendAll() {
        for (UcmatoseConnection c : connections) {
            PostStatus s = c.postSends();
            if (s != PostStatus.OK) {
                fail("failed to post sends: " + s.errno() + " on " + c);
                abort();
                return;
            }
        }
    }

    /** Every established connection has carried its messages both ways. */
    final boolean allExchanged() {
        for (UcmatoseConnection c : connections) {
            if (c.established && !c.exchanged()) {
                return false;
            }
        }
        return true;
    }

    final void qpEvent(UcmatoseConnection c, QpEventType e) {
        if (!aborting && !c.disconnectRequested && !c.closed) {
            fail("QP event " + e + " on " + c);
            abort();
        }
    }

    final void completionFailed(UcmatoseConnection c, String what) {
        if (!aborting) {
            fail("completion " + what + " on " + c);
            abort();
        }
    }

    final void fail(String reason) {
        if (failure.isEmpty()) {
            failure = reason;
            LOG.warn("ucmatose {}: {}", side(), reason);
        }
    }

    /**
     * Ends the run now (the boot is over, a test is done): a run that has not finished fails with "stopped"; every
     * connection is reset (or its connect given up) and freed.
     */
    public void stop() {
        if (result != null) {
            return;
        }
        if (!done()) {
            fail("stopped with " + established + " of " + options.connections() + " connections established and "
                    + disconnected + " disconnected");
        }
        abort();
        checkDone();
    }

    /**
     * A failure: every connection still up is reset (one still connecting is given up: the CM resets it) and freed
     * on the next event, as rping's stop does; the CM's later events for them change nothing.
     */
    final void abort() {
        if (aborting) {
            return;
        }
        aborting = true;
        for (UcmatoseConnection c : connections) {
            if (c.closed) {
                continue;
            }
            if (c.node != null && !c.node.isDestroyed()) {
                c.connected = false;
                c.disconnectRequested = true;
                cm.disconnect(c.node, true);
            }
            c.closed = true;
            release(c);
        }
        checkDone();
    }

    /** The run did what it was asked: all connections established, exchanged and disconnected. */
    final boolean done() {
        return established == options.connections() && disconnected == options.connections() && allExchanged();
    }

    /** Frees {@code c} on the next scheduler event. */
    final void release(UcmatoseConnection c) {
        if (!c.isReleased() && !toRelease.contains(c)) {
            toRelease.add(c);
            reaper.scheduleIn(0);
        }
    }

    private void releaseClosed() {
        for (UcmatoseConnection c : List.copyOf(toRelease)) {
            c.release();
        }
        toRelease.clear();
        checkDone();
    }

    /** The run ends when it is done or failed and every connection it made is freed. */
    final void checkDone() {
        if (result != null || !started) {
            return;
        }
        if (!aborting && !done()) {
            return;
        }
        for (UcmatoseConnection c : connections) {
            if (!c.isReleased()) {
                return;
            }
        }
        ended();
        long now = cm.scheduler().now();
        long sent = 0;
        long received = 0;
        long bytes = 0;
        for (UcmatoseConnection c : connections) {
            sent += c.sendsCompleted;
            received += c.receivesCompleted;
            bytes += c.bytesReceived;
        }
        boolean ok = failure.isEmpty() && done();
        result = new UcmatoseResult(options.server(), ok, options.connections(), established, disconnected,
                rejected, sent, received, bytes, allEstablishedAt < 0 ? -1 : allEstablishedAt - firstConnectAt,
                now - startedAt, failure);
        LOG.info("{}", result);
        onDone.accept(result);
    }

    private String side() {
        return options.server() ? "server" : "client";
    }

    /** The result once the run is over and everything is freed; null before. */
    public UcmatoseResult result() {
        return result;
    }

    public boolean isDone() {
        return result != null;
    }

    public UcmatoseOptions options() {
        return options;
    }

    /** Connections that came up so far. */
    public int established() {
        return established;
    }

    /** Connections made (set up) so far, freed or not. */
    public int connectionCount() {
        return connections.size();
    }
}
