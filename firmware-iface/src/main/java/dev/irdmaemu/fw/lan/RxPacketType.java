package dev.irdmaemu.fw.lan;

/**
 * The E810 packet types (the 10-bit ptype of the Rx write-back) for the frames the model classifies, as ice looks
 * them up in libie's table (drivers/net/ethernet/intel/libie/rx.c libie_rx_pt_lut: twelve L2 entries, ten L3
 * entries, then the IPv4 block from 22 and the IPv6 block from 88, each opening with fragment, non-fragment,
 * UDP, a hole, TCP, SCTP, ICMP).
 */
public final class RxPacketType {
    private RxPacketType() {
    }

    /** MAC, payload of an unknown EtherType: libie's first L2 entry. */
    public static final int L2 = 1;
    public static final int IPV4_FRAG = 22;
    public static final int IPV4 = 23;
    public static final int IPV4_UDP = 24;
    public static final int IPV4_TCP = 26;
    public static final int IPV4_ICMP = 28;
    public static final int IPV6_FRAG = 88;
    public static final int IPV6 = 89;
    public static final int IPV6_UDP = 90;
    public static final int IPV6_TCP = 92;
    public static final int IPV6_ICMP = 94;
}
