package dev.irdmaemu.cm;

import dev.irdmaemu.cm.mpa.MpaRejection;
import java.util.function.Consumer;

/**
 * Opens that fail: the active side's (its consumer hears CONNECT_REPLY with a reset) and the passive side's (the
 * node is dropped, with or without a reset to the peer, and only the refusal listener hears why), and their
 * counts. After irdma cm.c irdma_active_open_err, irdma_passive_open_err and irdma_event_connect_error.
 */
final class OpenErrors {
    private final ConnectionManager cm;
    private long connectErrors;
    private long passiveErrors;
    private Consumer<PassiveRefusal> passiveRefusals;

    OpenErrors(ConnectionManager cm) {
        this.cm = cm;
    }

    /** cm.c irdma_active_open_err: the connect failed; CONNECT_REPLY with -ECONNRESET follows. */
    void active(CmNode n, boolean reset, CmReason reason) {
        n.failure = reason;
        cm.sender.clearSendEntry(n);
        connectErrors++;
        if (reset) {
            CmNodeTable.retain(n);
            cm.sender.sendReset(n);
        }
        n.state = CmState.CLOSED;
        cm.events.post(n, CmEvents.Work.ABORTED);
    }

    /**
     * cm.c irdma_passive_open_err: the passive node is dropped, with or without a reset to the peer. The refusal
     * listener hears why ({@code mpa}: the irdma_parse_mpa rule, for BAD_MPA).
     */
    void passive(CmNode n, boolean reset, CmReason reason, MpaRejection mpa) {
        cm.sender.clearSendEntry(n);
        passiveErrors++;
        if (passiveRefusals != null) {
            passiveRefusals.accept(new PassiveRefusal(n.local(), n.remote(), reason, mpa, reset));
        }
        n.state = CmState.CLOSED;
        if (reset) {
            cm.sender.sendReset(n);
        } else {
            cm.table.release(n);
        }
    }

    /** An active open that failed before it had a node to fail, or after its offload. */
    void countConnectError() {
        connectErrors++;
    }

    /** A passive open that failed after its offload. */
    void countPassiveError() {
        passiveErrors++;
    }

    /** Who hears each passive refusal (null: nobody); see {@link ConnectionManager#onPassiveRefusal}. */
    void onPassiveRefusal(Consumer<PassiveRefusal> listener) {
        this.passiveRefusals = listener;
    }

    long connectErrors() {
        return connectErrors;
    }

    long passiveErrors() {
        return passiveErrors;
    }
}
