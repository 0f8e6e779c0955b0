package dev.irdmaemu.driver.verbs;

/** The consumer's handler of asynchronous QP events (ib_qp_init_attr.event_handler). */
@FunctionalInterface
public interface QpEventHandler {
    void onEvent(QueuePair qp, QpEventType event);
}
