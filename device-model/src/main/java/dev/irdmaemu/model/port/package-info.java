/**
 * The Ethernet side of the RDMA block: the quad-hash table, APBVT and ARP cache the CQP manages, the receive
 * classifier (established entry, listen entry, APBVT, LAN) and the port that receives from and transmits to the
 * wire, with a pcap tap.
 */
package dev.irdmaemu.model.port;
