package dev.irdmaemu.model.ah;

import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.frame.EncapsulatedFrameBuilder;
import dev.irdmaemu.fw.frame.IpAddress;

/**
 * One address handle as the CQP's Create / Modify Address Handle op left it (the fields of struct irdma_ah_info
 * that irdma_sc_access_ah puts in the WQE). A slot of {@link AddressHandleTable}, reused across create and
 * destroy; read it only while {@link AddressHandleTable#get} answers it.
 */
public final class AddressHandle {
    private final int index;
    private long mac;
    private int pdIndex;
    private int tcTos;
    private int vlanTag;
    private boolean insertVlanTag;
    private int arpIndex;
    private int flowLabel;
    private int hopLimit;
    private boolean ipv4;
    private boolean loopback;
    private final int[] dest = new int[4];
    private final int[] src = new int[4];

    AddressHandle(int index) {
        this.index = index;
    }

    void load(CqpWqe w) {
        mac = w.ahMac();
        pdIndex = w.ahPdIndex();
        tcTos = w.ahTcTos();
        vlanTag = w.ahVlanTag();
        insertVlanTag = w.ahInsertVlanTag();
        arpIndex = w.ahArpIndex();
        flowLabel = w.ahFlowLabel();
        hopLimit = w.ahHopLimit();
        ipv4 = w.ahIpv4();
        loopback = w.ahLoopback();
        for (int i = 0; i < 4; i++) {
            dest[i] = w.ahDestIp(i);
            src[i] = w.ahSrcIp(i);
        }
    }

    void clear() {
        mac = 0;
        pdIndex = 0;
        tcTos = 0;
        vlanTag = 0;
        insertVlanTag = false;
        arpIndex = 0;
        flowLabel = 0;
        hopLimit = 0;
        ipv4 = false;
        loopback = false;
        java.util.Arrays.fill(dest, 0);
        java.util.Arrays.fill(src, 0);
    }

    /** IRDMA_UDA_CQPSQ_MAV_AVIDX. */
    public int index() {
        return index;
    }

    /**
     * The source MAC, first octet most significant (ether_addr_to_u64 of irdma_ah_info.mac_addr: cm.c
     * irdma_cm_create_ah copies the netdev's own address; the next hop's comes from {@link #arpIndex()}).
     */
    public long mac() {
        return mac;
    }

    public int pdIndex() {
        return pdIndex;
    }

    /** IPv4 TOS or IPv6 traffic class. */
    public int tcTos() {
        return tcTos;
    }

    /** The 802.1Q TCI (PCP 15:13, VLAN id 11:0); inserted only when {@link #insertVlanTag()}. */
    public int vlanTag() {
        return vlanTag;
    }

    public boolean insertVlanTag() {
        return insertVlanTag;
    }

    /** The ARP table entry of the next hop (irdma_ah_info.dst_arpindex). */
    public int arpIndex() {
        return arpIndex;
    }

    public int flowLabel() {
        return flowLabel;
    }

    /** IPv4 TTL or IPv6 hop limit. */
    public int hopLimit() {
        return hopLimit;
    }

    public boolean ipv4() {
        return ipv4;
    }

    /** IRDMA_UDA_CQPSQ_MAV_DOLOOPBACKK: frames through this AH go to the own receive path, not the wire. */
    public boolean loopback() {
        return loopback;
    }

    /** Word {@code i} of the destination address (irdma_ah_info.dest_ip_addr; IPv4 in word 0, the rest 0). */
    public int destIp(int i) {
        return dest[i];
    }

    /** Word {@code i} of the source address (irdma_ah_info.src_ip_addr). */
    public int srcIp(int i) {
        return src[i];
    }

    /**
     * Writes the Ethernet, 802.1Q and IP settings this AH describes into {@code builder} (just reset): the frame goes
     * to {@code dstMac} from the AH's own MAC, tagged with its TCI when it inserts one (PCP in 15:13, VLAN id in
     * 11:0), IPv4 with {@code identification} or IPv6 with the AH's flow label, its TOS/traffic class and hop
     * limit (the fields uda.c irdma_sc_access_ah put in the WQE, as puda.c and the UD send path put them on the
     * wire). Answers false, leaving the builder half set, when an IPv6 AH holds an IPv4-mapped address.
     */
    public boolean writeLinkAndIp(EncapsulatedFrameBuilder<?> builder, long dstMac, int identification) {
        builder.ethernet(dstMac, mac);
        if (insertVlanTag) {
            builder.vlan(vlanTag >>> 13 & 7, false, vlanTag & 0xfff);
        } else {
            builder.noVlan();
        }
        if (ipv4) {
            builder.ipv4(src[0], dest[0]).identification(identification);
        } else {
            long sh = word(src[0], src[1]);
            long sl = word(src[2], src[3]);
            long dh = word(dest[0], dest[1]);
            long dl = word(dest[2], dest[3]);
            if (IpAddress.isIpv4Mapped(sh, sl) || IpAddress.isIpv4Mapped(dh, dl)) {
                return false;
            }
            builder.ipv6(sh, sl, dh, dl).flowLabel(flowLabel);
        }
        builder.tos(tcTos).ttl(hopLimit);
        return true;
    }

    private static long word(int hi, int lo) {
        return (long) hi << 32 | (lo & 0xffff_ffffL);
    }
}
