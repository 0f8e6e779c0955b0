/**
 * The RoCEv2 side of the RDMA block: the state the device keeps per RoCE QP from the context irdma writes before
 * every Modify QP (ctrl.c irdma_sc_qp_setctx_roce_gen_2, {@link dev.irdmaemu.fw.qp.RoceQpContext}), and the UD /
 * QP1 (GSI) data path: UD SENDs from the SQ framed as Ethernet / IP / UDP 4791 / BTH / DETH / [ImmDt] / payload /
 * ICRC (IBTA vol. 1 with Annex A17) through the address handle and its ARP entry, and UDP 4791 frames the port
 * steers here placed into the RQ behind the 40-byte network-header slot irdma's UD receive expects (uk.c
 * irdma_uk_cq_poll_cmpl, verbs.c irdma_process_cqe). The RC transport engine lives in its own package and does not
 * depend on this one; until it is plugged in, work posted to an RC QP is refused with an AE.
 */
package dev.irdmaemu.model.roce;
