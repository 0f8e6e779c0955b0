package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Flyweight;

/**
 * The 100-byte buffers of set and get VLAN mode parameters (0x020C / 0x020D, ice_adminq_cmd.h struct
 * ice_aqc_set_vlan_mode and struct ice_aqc_get_vlan_mode; ice_vlan_mode.c): the set buffer's prio-tagging byte (1),
 * l2tag_prio_tagging (the RDMA packet classification, 66) and the management VLAN protocol (69); the get buffer's
 * vlan_mode (0: single, 1: double).
 */
public final class VlanModeParameters extends LeView implements Flyweight<VlanModeParameters> {
    public static final int SIZE = 100;
    private static final int VLAN_MODE = 0;
    private static final int PRIO_TAGGING = 1;
    private static final int RDMA_PACKET = 66;
    private static final int MNG_VLAN_PROT = 69;
    /** ICE_AQ_VLAN_PRIO_TAG_MAX and the values of rdma_packet and mng_vlan_prot ice writes. */
    public static final int PRIO_TAG_MAX = 4;
    public static final int SVM_RDMA_PACKET = 0x10;
    public static final int DVM_RDMA_PACKET = 0x1A;
    public static final int MNG_PROT_OUTER = 0x10;
    public static final int MNG_PROT_INNER = 0x11;

    public boolean complete() {
        return length >= SIZE;
    }

    public int prioTagging() {
        return u8(PRIO_TAGGING);
    }

    public int rdmaPacket() {
        return u8(RDMA_PACKET);
    }

    public int managementVlanProtocol() {
        return u8(MNG_VLAN_PROT);
    }

    public int vlanMode() {
        return u8(VLAN_MODE);
    }

    /** Writes the get reply: zeroes and the mode. */
    public VlanModeParameters writeGet(boolean doubleVlan) {
        zero(0, SIZE);
        put8(VLAN_MODE, doubleVlan ? 1 : 0);
        return this;
    }

    /** Writes a set request as ice_vlan_mode.c does (for tests and the driver side). */
    public VlanModeParameters writeSet(int prioTagging, int rdmaPacket, int managementVlanProtocol) {
        zero(0, SIZE);
        put8(PRIO_TAGGING, prioTagging);
        put8(RDMA_PACKET, rdmaPacket);
        put8(MNG_VLAN_PROT, managementVlanProtocol);
        return this;
    }
}
