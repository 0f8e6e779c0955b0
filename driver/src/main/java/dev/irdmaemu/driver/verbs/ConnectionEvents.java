package dev.irdmaemu.driver.verbs;


/**
 * What the connection a QP carries hears from the QP's asynchronous events (the cm_node / cm_id side of hw.c
 * irdma_process_aeq and cm.c irdma_cm_disconn_true): the RTS AE, and how the connection ended, as the CM's
 * {@link QpEvent}s. Called on the scheduler's thread, outside any CQP op.
 */
@FunctionalInterface
public interface ConnectionEvents {
    void connectionEvent(QueuePair qp, QpEvent event);
}
