/**
 * The RDMA transmit work scheduler the CQP's Work Scheduler Node op manages (ws.c builds it at probe: a root, a
 * node per VSI, a leaf per traffic class whose qs_handle ties the RDMA queues to an ice LAN qset).
 */
package dev.irdmaemu.model.ws;
