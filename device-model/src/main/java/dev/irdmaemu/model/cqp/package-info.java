/**
 * The control QP: {@link dev.irdmaemu.model.cqp.CqpEngine} (creation through PFPE_CCQPHIGH / LOW, the SQ ring with
 * its valid-bit polarity, fetch / execute / complete as scheduler events, PFPE_CQPTAIL and the CCQ completion) and
 * {@link dev.irdmaemu.model.cqp.CqpOperations} (the dispatcher: each op to its family's class, in ctrl.c's grouping:
 * HMC, event queues, CQ, QP, memory registration, port tables, work scheduler, address handles, device
 * queries). Errors are
 * {@link dev.irdmaemu.model.cqp.CqpFault}s: major/minor pairs in the completion and PFPE_CQPERRCODES.
 */
package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpFault;
