package dev.irdmaemu.model.port;

import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.model.qp.QueuePair;

/**
 * Where the port hands a validated TCP segment its classifier routed to a QP: the PUDA queues (ILQ and IEQ) or the
 * offloaded QPs' data path. False when the receiver dropped it (it counts and traces why).
 */
@FunctionalInterface
public interface SegmentReceiver {
    SegmentReceiver NONE = (qp, segment) -> false;

    boolean receive(QueuePair qp, TcpPacket segment);
}
