package dev.irdmaemu.cm.rping;

import dev.irdmaemu.driver.verbs.QpEventType;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;

/**
 * What an rping side hears from its QP: each work completion polled from its CQ (rping.c rping_cq_event_handler
 * looks at status, opcode and byte_len only) and the QP's asynchronous events.
 */
public interface RpingCompletions {
    void completion(WcStatus status, WcOpcode opcode, long byteLen);

    void qpEvent(QpEventType event);
}
