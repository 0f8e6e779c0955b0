/**
 * CQs and QPs as the device holds them (STags are {@code model.mr}'s): CQ rings with shadow-area head and arm
 * word, QP state and the context fields decoded from the HMC QP object, the iWARP state machine
 * ({@link dev.irdmaemu.model.qp.QpState}).
 * The offloaded data path is issue 5; {@link dev.irdmaemu.model.qp.QueuePair#steered(long)} is its seam.
 */
package dev.irdmaemu.model.qp;
