/**
 * The PUDA queues (ILQ and IEQ): receive into the driver's posted buffers with the CQE and buffer layout
 * irdma_puda_poll_info / irdma_puda_get_tcpip_info read, and gen2 transmit from the PUDA SQ: TCP segments sent
 * through an address handle, the device adding the Ethernet, VLAN and IP headers and the checksums
 * ({@link dev.irdmaemu.model.ah.AhFrameBuilder}). The ILQ gets the frames the quad hash steers to it.
 *
 * <h2>The IEQ contract: the model's offloaded TCP is the one truth</h2>
 * On an E810 an offloaded QP's segment that the hardware cannot place as it came (out of order, or ending inside
 * an FPDU) goes to the IEQ the QP context names (IRDMAQPC_EXCEPTION_LAN_QUEUE), and the driver reassembles it:
 * puda.c irdma_ieq_handle_exception keeps a per-QP list ordered by sequence number starting at the first partial
 * sequence number the hardware writes into the QP's Q2 buffer (Q2_FPSN_OFFSET), creates a loopback AH for the QP on
 * its first exception (irdma_ieq_create_ah -> utils.c irdma_puda_ieq_get_ah_info sets do_lpbk, and the source MAC
 * and VLAN of the received buffer), then irdma_ieq_process_fpdus rebuilds whole FPDUs, checks their MPA CRC
 * (irdma_ieq_check_mpacrc, a CRC error raising irdma_ieq_mpa_crc_ae) and sends each through the IEQ SQ with that
 * AH back into the device, which places it as if it had arrived in order; out-of-order duplicates make the driver
 * send an ACK (irdma_send_ieq_ack). The model's offloaded TCP already reassembles such segments itself and places
 * the FPDUs in order. Handing the IEQ a copy as well made two truths: a driver that followed puda.c would
 * re-inject FPDUs the model had already placed, and a Q2 FPSN the model does not write would steer its list.
 * So the model does not copy exception segments to the IEQ: it counts them
 * ({@link dev.irdmaemu.model.iwarp.IwarpDataPath#ieqOutOfOrder()}, {@code ieqPartial()}), the IEQ's RQ stays as
 * the driver posted it, and no IEQ AH is ever needed (irdma creates one only on a QP's first exception). The IEQ QP
 * and CQ are still created, addressed and destroyed as irdma does. Modelling the gen2 IEQ faithfully (Q2 FPSN,
 * hardware that stops placing at the first gap and accepts the re-injected FPDUs) is the alternative left open.
 */
package dev.irdmaemu.model.puda;
