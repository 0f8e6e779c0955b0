package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.lan.LanAddresses;
import dev.irdmaemu.bridge.lan.LanTag;
import dev.irdmaemu.cm.IpEndpoint;
import java.util.List;

/**
 * The hosted node's link as a scenario wants it: the MTU of its port (the CM's MSS follows from it, cm.c
 * irdma_make_cm_node) and the VLAN netdevs beside its untagged addresses, each with addresses of its own, as
 * {@code ip link add link DEV name DEV.N type vlan id N egress-qos-map ...} gives a Linux host (net/8021q).
 */
public record NodeLink(int mtu, List<VlanNetdev> vlans) {
    /** What every scenario but rdma-paths runs on: MTU 1500 (ETH_DATA_LEN), no VLAN. */
    public static final NodeLink PLAIN = new NodeLink(1500, List.of());
    /** ice's largest MTU (ice.h ICE_MAX_MTU: the 9728-byte frame less the Ethernet header, FCS and two tags). */
    public static final int MAX_MTU = 9728 - 14 - 4 - 2 * 4;
    /** IPv6's minimum MTU (RFC 8200 §5), below which the node's IPv6 addresses would be unusable. */
    public static final int MIN_MTU = 1280;

    public NodeLink {
        if (mtu < MIN_MTU || mtu > MAX_MTU) {
            throw new IllegalArgumentException("the node's MTU is " + MIN_MTU + ".." + MAX_MTU + ": " + mtu);
        }
        vlans = List.copyOf(vlans);
    }

    /** A VLAN netdev of the node: its tag (VLAN id and the priority it sends with) and its addresses. */
    public record VlanNetdev(LanTag.Vlan tag, IpEndpoint v4, int v4Prefix, IpEndpoint v6, int v6Prefix) {
        /** The addresses its LAN responder answers for, with the node's MAC (a VLAN netdev shares its NIC's). */
        LanAddresses addresses(long mac) {
            return LanAddresses.of(mac, v4, v4Prefix, v6, v6Prefix);
        }
    }
}
