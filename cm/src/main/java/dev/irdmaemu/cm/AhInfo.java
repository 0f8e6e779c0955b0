package dev.irdmaemu.cm;

/**
 * What a CM node's address handle holds (the fields of struct irdma_ah_info that cm.c irdma_cm_create_ah fills):
 * the node's own MAC (the netdev's), the neighbour's MAC (what irdma_arp_table resolves to an ARP index), both
 * addresses in the {@link dev.irdmaemu.fw.frame.IpAddress} form, TOS, TTL 0x40, the VLAN (inserted with the user
 * priority in the PCP bits when {@code vlanId} is below 4096) and the loopback bit (cm.c irdma_ipv4_is_lpb /
 * irdma_ipv6_is_lpb).
 */
public record AhInfo(boolean ipv4, long localHi, long localLo, long remoteHi, long remoteLo, long localMac,
                     long remoteMac, int tos, int hopLimit, int vlanId, int userPriority, boolean loopback) {
    /** cm.c irdma_cm_create_ah: ah_info.hop_ttl = 0x40. */
    public static final int CM_HOP_LIMIT = 0x40;

    /** cm.c: insert_vlan_tag when vlan_id < VLAN_N_VID. */
    public boolean insertVlanTag() {
        return vlanId < 4096;
    }

    /** The 802.1Q TCI irdma puts in the AH: vlan_id | user_pri << VLAN_PRIO_SHIFT. */
    public int vlanTag() {
        return insertVlanTag() ? vlanId | (userPriority & 7) << 13 : 0;
    }
}
