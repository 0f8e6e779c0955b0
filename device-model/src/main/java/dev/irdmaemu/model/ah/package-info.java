/**
 * The address handles of CREATE / MODIFY / DESTROY_ADDR_HANDLE (uda.c irdma_sc_access_ah): what the device needs to
 * build the headers of a frame the PUDA queues (ILQ / IEQ) or a UD QP send through an AH index, and
 * {@link dev.irdmaemu.model.ah.AhFrameBuilder}, which builds them for a gen2 PUDA send (Ethernet from the AH and its
 * ARP entry, 802.1Q tag, IPv4 or IPv6, TCP checksum).
 */
package dev.irdmaemu.model.ah;
