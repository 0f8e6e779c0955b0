/**
 * The iWARP data path of the E810 model: what the device does for an offloaded QP once the driver's connection
 * manager handed the connection over (Modify QP to RTS with the TCP context), in the QP and not in the driver.
 * {@link dev.irdmaemu.model.iwarp.IwarpDataPath} is the function-wide part the CQP ops, PFPE_WQEALLOC and the
 * port call; {@link dev.irdmaemu.model.iwarp.IwarpQp} is one QP's engine: its {@code model.tcp.OffloadedTcp},
 * MPA framing with CRC32c (RFC 5044, no markers), DDP (RFC 5041) and RDMAP (RFC 5040), split by concern like
 * siw's files: {@code SendQueue} (SQ WQEs into FPDUs, the connection WQEs, fences, ORD, SQ completions),
 * {@code ReadResponder} (inbound RDMA Read Requests up to IRD, answered with Read Responses),
 * {@code TransmitService} (the two taking turns in service events on simulated time, each step answering a
 * {@code StepOutcome} and charging its cost to a {@code ServiceCost}), {@code FpduTransmitter} (FPDUs, the LSMM and
 * the Terminate built and queued on TCP), {@code QpRunState} (whether the data path runs; errors as AEs),
 * {@code LlpUpcalls} (what the QP's TCP calls up with), {@code FpduAssembler} (the stream cut into whole FPDUs in a
 * bounded staging buffer), {@code ReceivePath}
 * (every check, then placement through {@code model.mr.MemoryRegions}, RQ completions), {@code Q2Exchange} (the
 * Terminate exchange with irdma, over firmware-iface's {@code fw.qp.Q2Buffer} layout) and {@code CompletionWriter}
 * (CQEs as uk.c reads them).
 *
 * <p>The wire formats are firmware-iface's ({@code fw.iwarp}, {@code fw.queue}, {@code fw.qp}); data is placed
 * and fetched only through {@code MemoryRegions}. Nothing on the per-FPDU paths allocates; everything runs on the
 * one {@code SimScheduler}, costed by the {@code LatencyTable}.
 */
package dev.irdmaemu.model.iwarp;
