/**
 * The control QP: {@link dev.irdmaemu.model.cqp.CqpEngine} (creation through PFPE_CCQPHIGH / LOW, the SQ ring with
 * its valid-bit polarity, fetch / execute / complete as scheduler events, PFPE_CQPTAIL and the CCQ completion) and
 * {@link dev.irdmaemu.model.cqp.CqpOperations} (one handler per op). Errors are
 * {@link dev.irdmaemu.model.cqp.CqpFault}s: major/minor pairs in the completion and PFPE_CQPERRCODES.
 */
package dev.irdmaemu.model.cqp;
