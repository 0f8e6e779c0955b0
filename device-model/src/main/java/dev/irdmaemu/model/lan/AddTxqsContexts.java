package dev.irdmaemu.model.lan;

import dev.irdmaemu.fw.aq.TxQueueContext;
import dev.irdmaemu.model.ice.TxQueues;

/**
 * The Tx contexts add_txqs (0x0C30) stored ({@link TxQueues}), as the Tx engine reads them on each doorbell. A queue
 * added anew (after dis_txqs, or the first time) starts at descriptor 0, as ice_vsi_cfg_txq expects: ice reuses the
 * same ring memory across ifdown/ifup with next_to_use back at 0 (ice_clean_tx_ring), so the engine notices a new
 * queue by its identity, not by its ring address.
 */
public final class AddTxqsContexts implements TxContextSource {
    private final TxQueues queues;
    private final TxPath tx;
    private final TxQueueContext view = new TxQueueContext();
    private final Object[] seen = new Object[LanQueues.QUEUES];

    public AddTxqsContexts(TxQueues queues, TxPath tx) {
        this.queues = queues;
        this.tx = tx;
    }

    @Override
    public boolean lookup(int queue, TxRing out) {
        if (queue < 0 || queue >= seen.length) {
            return false;
        }
        TxQueues.TxQueue q = queues.queue(queue);
        if (q == null || !queues.wrapContext(queue, view) || !view.complete()) {
            seen[queue] = null;
            return false;
        }
        if (seen[queue] != q) {
            seen[queue] = q;
            tx.queueCreated(queue);
        }
        out.set(view.ringBase(), view.queueLength());
        return true;
    }
}
