/**
 * The PUDA queues (ILQ and IEQ): receive into the driver's posted buffers with the CQE and buffer layout
 * irdma_puda_poll_info / irdma_puda_get_tcpip_info read, and transmit of the driver's frames from the PUDA SQ. The
 * ILQ gets the frames the quad hash steers to it; the IEQ named by an offloaded QP's context gets a copy of that QP's
 * exception segments (out of order, or ending inside an FPDU), which the QP's own TCP also reassembles.
 */
package dev.irdmaemu.model.puda;
