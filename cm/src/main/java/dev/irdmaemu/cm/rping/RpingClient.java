package dev.irdmaemu.cm.rping;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.QpEventType;
import dev.irdmaemu.driver.verbs.VerbsException;
import dev.irdmaemu.driver.verbs.WcOpcode;
import java.util.OptionalInt;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * rping's client (librdmacm examples/rping.c rping_run_client and rping_test_client) as a state machine on the
 * model's thread, driven by the CM's upcalls and the CQ's completions: no thread, no blocking, nothing allocated per
 * ping once it is set up.
 *
 * <p>{@link #start()} sets up as rping does (a PD, a CQ of 32, an RC QP with 16 send and 2 receive work requests of
 * one SGE, the receive and send buffers and rdma_buf and the start buffer registered with rping's access flags),
 * posts its receive and connects with IRD = ORD = 1 onto its own QP. Each ping: the start buffer filled with the
 * ping's data ({@link RpingPattern}) and advertised in a Send; the server's go-ahead (it has Read the start buffer);
 * rdma_buf advertised as the sink; the second go-ahead (it has Written the data back); with {@code -V} the sink
 * compared with the start buffer. Every receive must complete with 16 bytes. After {@code count} pings it
 * disconnects; when the connection has closed everything is freed and {@link #onDone} hears the
 * {@link RpingResult}.
 */
public final class RpingClient extends RpingEnd {
    private static final Logger LOG = LoggerFactory.getLogger(RpingClient.class);

    private final RpingOptions options;
    private final ConnectionManager cm;
    private final IrdmaVerbs verbs;
    private RpingBuffers buffers;
    private RpingControlBlock cb;
    private CmNode node;
    private boolean started;
    private boolean everConnected;
    private CmReason connectFailure;

    /** A client on this CM and these verbs (the same device), with {@code options} (not a server's). */
    public RpingClient(ConnectionManager cm, IrdmaVerbs verbs, RpingOptions options) {
        super(LOG, "rping client", RpingState.IDLE);
        if (options.server()) {
            throw new IllegalArgumentException("server options for a client");
        }
        this.options = options;
        this.cm = cm;
        this.verbs = verbs;
    }

    /** A client whose QP and CM are scripted: {@code start()} posts its receive, the test says when it is up. */
    RpingClient(RpingOptions options, RpingBuffers buffers, RpingVerbs scripted) {
        super(LOG, "rping client", RpingState.IDLE);
        if (options.server() || !buffers.hasStartBuffer() || buffers.size != options.size()) {
            throw new IllegalArgumentException("client options and buffers of its size with a start buffer");
        }
        this.options = options;
        this.cm = null;
        this.verbs = null;
        this.qp = scripted;
        this.buffers = buffers;
    }

    /** Who hears the result, once, when the run is over and its resources are freed. */
    public RpingClient onDone(Consumer<RpingResult> consumer) {
        this.onDone = consumer;
        return this;
    }

    /**
     * rping_run_client: sets up the QP and buffers, posts the receive and connects. A failure to set up or to
     * connect ends the run at once with a failed result.
     */
    public void start() {
        if (started) {
            throw new IllegalStateException("started already");
        }
        started = true;
        if (cm != null) {
            try {
                cb = RpingControlBlock.create(verbs, options.size(), false);
            } catch (VerbsException e) {
                fail("setup_qp / setup_buffers failed: " + e.getMessage());
                finish();
                return;
            }
            cb.deliverTo(this);
            qp = cb;
            buffers = cb.buffers();
        }
        PostStatus s = qp.postRecv();
        if (s != PostStatus.OK) {
            fail("ibv_post_recv failed: " + s.errno());
            release();
            return;
        }
        if (cm != null) {
            ConnectParams params = ConnectParams.of(new byte[0], RpingOptions.IRD, RpingOptions.ORD)
                    .withQp(cb.qpId());
            try {
                node = cm.connect(options.source(), options.address(), params, this::onCmEvent);
            } catch (IllegalStateException | IllegalArgumentException e) {
                fail("rdma_connect: " + e.getMessage());
                release();
                return;
            }
            cb.bind(cm, node);
        }
    }

    /** rping.c rping_cma_event_handler for the client's cm_id. */
    @Override
    void connectionEvent(CmEventType type, CmStatus status, CmReason reason) {
        switch (type) {
            case CONNECT_REPLY -> {
                if (status != CmStatus.OK) {
                    // RDMA_CM_EVENT_REJECTED / _CONNECT_ERROR / _UNREACHABLE: the node is gone already. At INFO:
                    // whether it is expected (a server not listening yet, tried again) is the caller's to say, from
                    // connectFailure(); the result carries the failure
                    inform("cma event " + (status == CmStatus.CONNECTION_REFUSED ? "RDMA_CM_EVENT_REJECTED"
                            : "RDMA_CM_EVENT_CONNECT_ERROR") + ", error " + status.errno() + " (" + reason + ")");
                    state = RpingState.ERROR;
                    connectFailure = reason;
                    release();
                    return;
                }
                connected = true;
                everConnected = true;
                state = RpingState.CONNECTED;
                nextPing();
            }
            case DISCONNECT -> {
                // RDMA_CM_EVENT_DISCONNECTED: rping's loop ends; short of the count it is a failure here
                if (state != RpingState.ERROR) {
                    state = RpingState.DISCONNECTED;
                }
                boolean orderly = status == CmStatus.OK && reason == CmReason.NONE;
                if (!disconnecting && (!orderly || options.count() != 0 && !countReached())) {
                    fail("the server disconnected after " + pings + " of "
                            + (options.count() == 0 ? "unlimited" : options.count()) + " pings"
                            + (orderly ? "" : " (" + status + ", " + reason + ")"));
                }
            }
            case CLOSE -> {
                connected = false;
                if (!disconnecting && options.count() != 0 && !countReached()) {
                    fail("the connection closed after " + pings + " of " + options.count() + " pings ("
                            + reason + ")");
                }
                release();
            }
            default -> LOG.debug("rping client: unhandled event {}, ignoring", type);
        }
    }

    private boolean countReached() {
        return options.count() != 0 && pings >= options.count();
    }

    /** rping_test_client: the start buffer filled with this ping's data and advertised. */
    private void nextPing() {
        state = RpingState.RDMA_READ_ADV;
        BytesStore<?, ?> store = buffers.store;
        RpingPattern.fill(store, buffers.startOffset, buffers.size, pings);
        RpingInfo.write(store, buffers.sendOffset, buffers.startAddress, buffers.startKey, buffers.size);
        postSend();
    }

    /** rping.c rping_cq_event_handler for a client. */
    @Override
    void completed(WcOpcode opcode, long byteLen) {
        switch (opcode) {
            case SEND -> {
            }
            case RECV -> received(byteLen);
            default -> error("unexpected " + opcode + " completion on a client");
        }
    }

    /** rping.c client_recv, then what rping_test_client does on each go-ahead. */
    private void received(long byteLen) {
        if (byteLen != RpingInfo.SIZE) {
            error("Received bogus data, size " + byteLen);
            return;
        }
        PostStatus s = qp.postRecv();
        if (s != PostStatus.OK) {
            error("post recv error: " + s.errno());
            return;
        }
        BytesStore<?, ?> store = buffers.store;
        if (state == RpingState.RDMA_READ_ADV) {
            // the server has read the start buffer: advertise the sink
            state = RpingState.RDMA_WRITE_ADV;
            bytesRead += buffers.size;
            RpingInfo.write(store, buffers.sendOffset, buffers.rdmaAddress, buffers.rdmaKey, buffers.size);
            postSend();
        } else if (state == RpingState.RDMA_WRITE_ADV) {
            state = RpingState.RDMA_WRITE_COMPLETE;
            bytesWritten += buffers.size;
            if (options.validate()) {
                OptionalInt differs = firstDifference(store, buffers.startOffset, buffers.rdmaOffset, buffers.size);
                if (differs.isPresent()) {
                    int at = differs.getAsInt();
                    error("data mismatch! (ping " + pings + ", byte " + at + ": sent 0x"
                            + Integer.toHexString(store.readByte(buffers.startOffset + at) & 0xff) + ", got 0x"
                            + Integer.toHexString(store.readByte(buffers.rdmaOffset + at) & 0xff) + ")");
                    return;
                }
                verified++;
            }
            if (options.verbose()) {
                LOG.info("ping data: {}", text(store, buffers.rdmaOffset, buffers.size));
            }
            pings++;
            if (countReached()) {
                // rping_run_client: rping_disconnect once the loop is done
                disconnect(false);
            } else {
                nextPing();
            }
        } else {
            error("wait for RDMA_WRITE_ADV state " + state + ": a go-ahead out of turn");
        }
    }

    @Override
    public void qpEvent(QpEventType event) {
        // once the connection is being closed, how the QP ends is the close's business (rping ignores QP events)
        if (!releasing && !disconnecting) {
            fail("QP event " + event);
        }
    }

    /**
     * Ends the run now (the boot is over, or a test is done): an abortive disconnect (or the connect given up),
     * then everything is freed. A run that has not made its count fails with "stopped".
     */
    public void stop() {
        if (releasing) {
            return;
        }
        if (!countReached()) {
            fail("stopped after " + pings + " of " + (options.count() == 0 ? "unlimited" : options.count())
                    + " pings");
        }
        // connected: an abortive close; still connecting: the CM resets the half-open connection
        resetAndRelease(true);
    }

    @Override
    void finish() {
        releasing = true;
        boolean ok = failure.isEmpty() && (options.count() == 0 || pings == options.count());
        done(new RpingResult(false, ok, pings, verified, bytesRead, bytesWritten, failure));
    }

    /** The first byte at which the two buffers differ, if any (rping's memcmp of start_buf and rdma_buf). */
    static OptionalInt firstDifference(BytesStore<?, ?> s, long a, long b, int size) {
        int i = 0;
        for (; i + 8 <= size; i += 8) {
            if (s.readLong(a + i) != s.readLong(b + i)) {
                break;
            }
        }
        for (; i < size; i++) {
            if (s.readByte(a + i) != s.readByte(b + i)) {
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    static String text(BytesStore<?, ?> s, long offset, int size) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < size; i++) {
            int c = s.readByte(offset + i) & 0xff;
            if (c == 0) {
                break;
            }
            b.append((char) c);
        }
        return b.toString();
    }

    /** The connection came up (CONNECT_REPLY with status OK). */
    public boolean wasConnected() {
        return everConnected;
    }

    /** Why the connect failed (the failed CONNECT_REPLY's reason), or null when it did not fail so. */
    public CmReason connectFailure() {
        return connectFailure;
    }

    /** The client's QP, CQ and buffers on the verbs (null before {@link #start()} or when scripted). */
    public RpingControlBlock controlBlock() {
        return cb;
    }

    public RpingOptions options() {
        return options;
    }
}
