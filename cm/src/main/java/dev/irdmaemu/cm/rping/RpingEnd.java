package dev.irdmaemu.cm.rping;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * What both ends of an rping connection keep and do alike (librdmacm examples/rping.c, the client's and the
 * server's halves of rping_cq_event_handler and rping_disconnect): the protocol state, the ping and byte counts, the
 * first failure, the result and who hears it; the completion filter in front of each end's own steps (a completion
 * after an error or during the release is ignored, a flushed one silently, any other failed one is an error); and
 * what a failed step does, rping's err path: the failure kept and logged, the state ERROR, a graceful disconnect, or
 * the release when the connection never came up.
 */
abstract sealed class RpingEnd implements RpingCompletions permits RpingClient, RpingServerConnection {
    private final Logger log;
    /** "rping client" or "rping server", the log lines' prefix. */
    private final String name;
    /** The QP's calls; null for a client before its start (or when its setup failed). */
    RpingVerbs qp;
    RpingState state;
    int pings;
    int verified;
    long bytesRead;
    long bytesWritten;
    String failure = "";
    boolean connected;
    boolean disconnecting;
    boolean releasing;
    RpingResult result;
    Consumer<RpingResult> onDone = r -> { };

    RpingEnd(Logger log, String name, RpingState initial) {
        this.log = log;
        this.name = name;
        this.state = initial;
    }

    /** An upcall of the CM for this end's cm_id. */
    final void onCmEvent(CmEvent e) {
        log.debug("{}: {}", name, e);
        cmEvent(e.type(), e.status(), e.reason());
    }

    /** rping.c rping_cma_event_handler: an event once the release has begun is ignored. */
    final void cmEvent(CmEventType type, CmStatus status, CmReason reason) {
        if (releasing) {
            return;
        }
        connectionEvent(type, status, reason);
    }

    /** A CM event for this end's protocol (the connection came up, failed, is disconnecting or closed). */
    abstract void connectionEvent(CmEventType type, CmStatus status, CmReason reason);

    /** rping.c rping_cq_event_handler: what every completion is checked for before its opcode's step. */
    @Override
    public final void completion(WcStatus status, WcOpcode opcode, long byteLen) {
        if (releasing || state == RpingState.ERROR) {
            return;
        }
        if (status != WcStatus.SUCCESS) {
            if (status != WcStatus.WR_FLUSH_ERR) {
                error("cq completion failed status " + status + " (" + opcode + ")");
            }
            return;
        }
        completed(opcode, byteLen);
    }

    /** A successful completion of {@code opcode}, for this end's protocol step. */
    abstract void completed(WcOpcode opcode, long byteLen);

    /** The result is made and handed on, once the QP and buffers are freed. */
    abstract void finish();

    /** A Send posted (an advertisement or a go-ahead); a refusal is an error. */
    final void postSend() {
        PostStatus s = qp.postSend();
        if (s != PostStatus.OK) {
            error("post send error " + s.errno());
        }
    }

    /** A step failed: rping prints why and disconnects (rping_run_client's err4, rping_run_server's err3). */
    final void error(String reason) {
        fail(reason);
        state = RpingState.ERROR;
        disconnect(false);
    }

    /** The first failure is kept (and logged); later ones are what it caused. */
    final void fail(String reason) {
        if (failure.isEmpty()) {
            failure = reason;
            log.warn("{}: {}", name, reason);
        }
    }

    /** As {@link #fail}, logged at INFO: a failure the caller may expect and handle. */
    final void inform(String reason) {
        if (failure.isEmpty()) {
            failure = reason;
            log.info("{}: {}", name, reason);
        }
    }

    /** rping_disconnect, once: the QP's disconnect when connected, else everything is freed at once. */
    final void disconnect(boolean abortive) {
        if (disconnecting) {
            return;
        }
        disconnecting = true;
        if (connected) {
            qp.disconnect(abortive);
        } else {
            release();
        }
    }

    /** The QP, regions and buffers are freed (once), then {@link #finish} runs. */
    final void release() {
        if (releasing) {
            return;
        }
        releasing = true;
        if (qp == null) {
            finish();
        } else {
            qp.release(this::finish);
        }
    }

    /** Ends now: an abortive disconnect when {@code reset} and none has begun yet, then everything is freed. */
    final void resetAndRelease(boolean reset) {
        if (reset && !disconnecting) {
            disconnecting = true;
            qp.disconnect(true);
        }
        release();
    }

    /** The run is closed: the result is logged and handed to who hears it. */
    final void done(RpingResult r) {
        state = RpingState.CLOSED;
        result = r;
        log.info("{}", r);
        onDone.accept(r);
    }

    public RpingState state() {
        return state;
    }

    /** Pings completed so far. */
    public int pings() {
        return pings;
    }

    /** The result, once the run is over; null before. */
    public RpingResult result() {
        return result;
    }

    public boolean isDone() {
        return result != null;
    }
}
