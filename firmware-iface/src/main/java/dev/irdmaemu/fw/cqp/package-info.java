/**
 * The control QP contract: the CQP host context ({@link dev.irdmaemu.fw.cqp.CqpHostContext}), the CQP SQ WQEs
 * ({@link dev.irdmaemu.fw.cqp.CqpWqe} to read and validate what the host posted, {@link
 * dev.irdmaemu.fw.cqp.CqpWqeWriter} to write exactly what ctrl.c writes), the CCQ completion
 * ({@link dev.irdmaemu.fw.cqp.CqpCompletion}), the error codes ({@link dev.irdmaemu.fw.cqp.CqpErrorCode}) and the
 * RDMA feature buffer ({@link dev.irdmaemu.fw.cqp.RdmaFeatureBuffer}). Gen2 layouts, Linux 7.3 irdma.
 */
package dev.irdmaemu.fw.cqp;
