package dev.irdmaemu.model.ah;

import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.model.port.ArpTable;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The headers a gen2 device puts in front of a buffer that begins at the TCP header (puda.c irdma_puda_send: the
 * SQ WQE names an AH, cm.c irdma_form_ah_cm_frame writes only TCP header, options and MPA), taken from the AH that
 * uda.c irdma_sc_access_ah created and the ARP entry it names:
 * <ul>
 *   <li>Ethernet: destination MAC from ARP[AH.dst_arpindex] (cm.c irdma_cm_create_ah resolves it with
 *       irdma_arp_table), source MAC from the AH (the netdev's own address); with IRDMA_UDA_CQPSQ_MAV_INSERTVLANTAG
 *       an 802.1Q tag of the AH's TCI (PCP in 15:13, VLAN id in 11:0, cm.c: vlan_id | user_pri &lt;&lt; 13);</li>
 *   <li>IPv4 (IRDMA_UDA_CQPSQ_MAV_IPV4VALID): TOS from the AH's TC field, TTL from its hop limit (irdma: 0x40),
 *       DF set, a per-device identification counter, the header checksum; or IPv6: traffic class, flow label,
 *       hop limit;</li>
 *   <li>the TCP checksum over the pseudo-header and the whole segment.</li>
 * </ul>
 * The IP addresses come from the AH (source and destination words of the WQE), never from the buffer. An AH with
 * the loopback bit and no valid ARP entry is addressed to its own MAC (the frame never leaves the port). Through
 * the firmware-iface codecs only ({@link TcpPacketBuilder#encapsulate}); allocation-free.
 */
public final class AhFrameBuilder {
    /** Why a frame could not be built. */
    public enum Result {
        OK("built"),
        NO_ARP_ENTRY("the AH names an ARP entry that is not valid"),
        BAD_ADDRESSES("the AH's addresses are not of its family"),
        TOO_LONG("headers and segment exceed the largest frame");

        private final String text;

        Result(String text) {
            this.text = text;
        }

        public String describe() {
            return text;
        }
    }

    private final TcpPacketBuilder builder = new TcpPacketBuilder();
    private final ArpTable arp;
    private int identification;
    private int length;

    public AhFrameBuilder(ArpTable arp) {
        this.arp = arp;
    }

    /**
     * Writes the frame for {@code segmentLength} bytes of TCP segment at {@code segmentOffset} of {@code segment}
     * into {@code out} at 0 (capacity {@code outCapacity}) through {@code ah}; on {@link Result#OK} the frame
     * length is {@link #length()}.
     */
    public Result build(AddressHandle ah, BytesStore<?, ?> segment, long segmentOffset, int segmentLength,
                        BytesStore<?, ?> out, int outCapacity) {
        long dstMac;
        if (arp.valid(ah.arpIndex())) {
            dstMac = arp.mac(ah.arpIndex());
        } else if (ah.loopback()) {
            dstMac = ah.mac();
        } else {
            return Result.NO_ARP_ENTRY;
        }
        if (ah.ipv4()) {
            identification = identification + 1 & 0xffff;
        }
        if (!ah.writeLinkAndIp(builder.reset(), dstMac, identification)) {
            return Result.BAD_ADDRESSES;
        }
        if (ah.ipv4()) {
            builder.dontFragment(true);
        }
        if ((long) builder.linkAndIpLength() + segmentLength > outCapacity) {
            return Result.TOO_LONG;
        }
        length = builder.encapsulate(out, 0, segment, segmentOffset, segmentLength);
        return Result.OK;
    }

    /** The length of the frame the last successful {@link #build} wrote. */
    public int length() {
        return length;
    }
}
