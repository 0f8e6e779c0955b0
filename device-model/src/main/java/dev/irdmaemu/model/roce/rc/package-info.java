/**
 * The Reliable Connection transport of the E810's RoCEv2 block: what the device does for an RC QP in RTR/RTS once
 * the QP context is loaded, split by concern as rxe splits it (drivers/infiniband/sw/rxe): {@code RcRequester}
 * (SQ work into packets: segmentation at the path MTU, PSNs, AckReq; rxe_req.c), {@code RcCompleter} (ACK, NAK,
 * RNR NAK and READ responses; completions in order; rxe_comp.c), {@code RetryTimers} (the retransmit and RNR
 * timers with the context's retry counts), {@code RcResponder} (inbound requests: PSN and opcode-sequence checks,
 * placement, RNR, READ responses; rxe_resp.c) with {@code ReadResources} (the IRD entries duplicate READs replay
 * from) and {@code ResponderAcks} (coalesced ACKs, NAKs, MSN), {@code RcFrameTransmitter} (every frame built with
 * its ICRC), and {@code RcEngine} (one QP: the frame check, ICRC included, and dispatch). The rules are IBA Vol. 1
 * chapter 9 (§9.7 reliable service) and Annex A17 (RoCEv2).
 *
 * <p>The package depends only on firmware-iface ({@code fw.roce} codecs), {@code model.mr} (every byte placed or
 * fetched through {@link dev.irdmaemu.model.mr.MemoryRegions}) and interfaces of its own that the RoCE integration
 * implements: {@link dev.irdmaemu.model.roce.rc.RcWire} (frames out), {@link dev.irdmaemu.model.roce.rc.RcReceiveQueue}
 * (RQ WQEs), {@link dev.irdmaemu.model.roce.rc.RcCompletions} (CQEs) and {@link dev.irdmaemu.model.roce.rc.RcEvents}
 * (AEs). Time is handed in by the caller (nanoseconds of its clock), so runs are deterministic. Nothing on the
 * per-frame or per-WQE paths allocates: state is preallocated, frames are flyweights over reused buffers, outcomes
 * are enums.
 */
package dev.irdmaemu.model.roce.rc;
