/**
 * Verbs for Java consumers on the irdma driver layer: what verbs.c, uk.c and the iWARP parts of hw.c / utils.c /
 * cm.c do for a kernel consumer, over {@link dev.irdmaemu.driver.IrdmaDriver}.
 * {@link dev.irdmaemu.driver.verbs.IrdmaVerbs} makes {@link dev.irdmaemu.driver.verbs.ProtectionDomain}s,
 * {@link dev.irdmaemu.driver.verbs.CompletionQueue}s, iWARP RC {@link dev.irdmaemu.driver.verbs.QueuePair}s and
 * {@link dev.irdmaemu.driver.verbs.MemoryRegion}s with the CQP ops irdma issues, in the driver's host RAM (PBLEs in the
 * HMC PBLE object, the driver's {@link dev.irdmaemu.driver.PbleResource}); CQ and QP rings are coherent buffers,
 * or with {@link dev.irdmaemu.driver.verbs.IrdmaVerbs#userModeRings} pinned pages behind a PBL as for a user-space
 * consumer (VIRTMAP / VQ). The data path posts WQEs and rings PFPE_WQEALLOC as uk.c does and polls
 * CQEs into reusable {@link dev.irdmaemu.driver.verbs.WorkCompletion}s; it answers a
 * {@link dev.irdmaemu.driver.verbs.PostStatus} and allocates nothing. AEs of a QP are handled as hw.c
 * irdma_process_aeq does (terminate in Q2 by {@link dev.irdmaemu.driver.verbs.TerminateBuilder}, Modify QP to
 * TERMINATE / ERROR, Flush WQEs, generated flush completions), reaching the consumer as
 * {@link dev.irdmaemu.driver.verbs.QpEventType}s and the connection as {@link dev.irdmaemu.driver.verbs.QpEvent}s;
 * {@link dev.irdmaemu.driver.verbs.IwarpConnection} is what cm.c does with a consumer's QP when a connection is handed
 * to it, with what the CM hands the hardware ({@link dev.irdmaemu.driver.verbs.TcpOffloadContext},
 * {@link dev.irdmaemu.driver.verbs.MpaOutcome}). A QP keeps its state and its public methods; the work is split as
 * irdma's files split it (QpPost: the post paths of verbs.c and uk.c; QpCtxInfo: the QP context; QpModify: verbs.c
 * irdma_modify_qp / irdma_destroy_qp and hw.c irdma_next_iw_state; QpAsyncEvents: hw.c irdma_process_aeq;
 * QpTerminate: the terminate of ctrl.c / utils.c; CmDisconnect: cm.c irdma_cm_disconn_true; QpFlush: the flush
 * and its worker). Single-threaded on the driver's scheduler. Depends on
 * {@link dev.irdmaemu.driver} and {@code dev.irdmaemu.fw} only.
 */
package dev.irdmaemu.driver.verbs;
