/**
 * The PUDA queues (ILQ and IEQ): receive into the driver's posted buffers with the CQE and buffer layout
 * irdma_puda_poll_info / irdma_puda_get_tcpip_info read, and transmit of the driver's frames from the PUDA SQ.
 */
package dev.irdmaemu.model.puda;
