/**
 * The frames the device's Ethernet port carries, as flyweights: {@link dev.irdmaemu.fw.frame.EthernetFrame}
 * (802.1Q), {@link dev.irdmaemu.fw.frame.Ipv4Header}, {@link dev.irdmaemu.fw.frame.Ipv6Header},
 * {@link dev.irdmaemu.fw.frame.TcpHeader} and the receive path's composite
 * {@link dev.irdmaemu.fw.frame.TcpPacket}, and for the LAN side {@link dev.irdmaemu.fw.frame.ArpPacket} and
 * {@link dev.irdmaemu.fw.frame.IcmpMessage} (ICMP, ICMPv6, Neighbor Discovery).
 *
 * <p>Every codec reads through {@link dev.irdmaemu.fw.WireView}: a window clamped to the bytes that exist, read in
 * network order, 0 outside it. Parse: {@code wrap}, then {@code validate}, which answers the first rule that
 * failed as a {@link dev.irdmaemu.fw.Check} and {@code failedAt()} where; build: the static {@code write*}
 * methods and {@link dev.irdmaemu.fw.frame.TcpPacketBuilder}, which throw on a caller's bad arguments (never on
 * received bytes). Neither side allocates.
 */
package dev.irdmaemu.fw.frame;
