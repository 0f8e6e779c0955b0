/**
 * The LAN side of the hosted node's port. On the E810 the frames the RDMA block does not take go to the LAN
 * function (the ice netdev) and the host's stack answers them; {@link dev.irdmaemu.bridge.lan.LanResponder} plays
 * that part for the node's own addresses (ARP, ICMP echo, IPv6 Neighbor Discovery, ICMPv6 echo), learns the
 * neighbours the CM resolves, and drops and counts every malformed frame. It keeps the behaviour only: the
 * frames it reads and writes (Ethernet, ARP, IPv4, IPv6, ICMP / ICMPv6 with Neighbor Discovery) are the port's
 * frames, and their codecs are in {@code fw.frame}.
 */
package dev.irdmaemu.bridge.lan;
