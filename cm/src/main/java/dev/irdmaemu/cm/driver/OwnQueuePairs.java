package dev.irdmaemu.cm.driver;

import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.VerbsException;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The QPs {@link ModelHardwarePort} makes for connections whose caller names none: one PD and one CQ for all of
 * them (made on first use), the CQ drained as completions come; each QP is destroyed with its connection.
 */
final class OwnQueuePairs {
    private static final Logger LOG = LoggerFactory.getLogger(ModelHardwarePort.class);

    /** Sizes of the port's own QPs. */
    static final int OWN_QP_DEPTH = 16;
    static final int OWN_CQ_ENTRIES = 256;

    private final IrdmaVerbs verbs;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private final WorkCompletion wc = new WorkCompletion();

    OwnQueuePairs(IrdmaVerbs verbs) {
        this.verbs = verbs;
    }

    /** A new QP of the port's own. */
    QueuePair create() {
        if (pd == null) {
            pd = verbs.allocatePd();
        }
        if (cq == null) {
            cq = verbs.createCq(OWN_CQ_ENTRIES);
            cq.onCompletion(c -> {
                while (c.poll(wc)) {
                    LOG.trace("own QP completion {}", wc);
                }
                c.requestNotify(false);
            });
            cq.requestNotify(false);
        }
        return verbs.createQp(QpInit.of(pd, cq, OWN_QP_DEPTH, 1));
    }

    /** Destroys one of them; false when the device refused (the caller counts it). */
    boolean destroy(QueuePair qp) {
        try {
            qp.destroy();
            return true;
        } catch (VerbsException y) {
            return false;
        }
    }
}
