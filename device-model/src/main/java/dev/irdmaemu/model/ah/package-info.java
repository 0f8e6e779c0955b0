/**
 * The address handles of CREATE / MODIFY / DESTROY_ADDR_HANDLE (uda.c irdma_sc_access_ah): what the device needs to
 * build the headers of a frame the PUDA queues (ILQ / IEQ) or a UD QP send through an AH index.
 */
package dev.irdmaemu.model.ah;
