package dev.irdmaemu.model.port;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.EthernetFrame;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The port's test for a RoCEv2 frame before any full parse: a unicast destination MAC, EtherType IPv4 or IPv6
 * (behind at most one 802.1Q tag), IP protocol / next header UDP in an unfragmented datagram, UDP destination port
 * 4791 (IBA vol. 1 Annex A17.2). Everything else keeps its old route (the TCP classifier, the LAN). Reads only
 * inside {@code length}; allocation-free.
 */
final class RoceSteering {
    static final int ROCE_V2_UDP_DPORT = 4791;
    private static final int PROTOCOL_UDP = 17;

    private RoceSteering() {
    }

    static boolean isRoce(BytesStore<?, ?> s, long offset, int length) {
        if (length < EthernetFrame.HEADER_LENGTH + 20 + 8 || (NetworkOrder.u8(s, offset) & 1) != 0) {
            return false;
        }
        int at = 12;
        int etherType = NetworkOrder.u16(s, offset + at);
        if (etherType == EthernetFrame.ETHERTYPE_VLAN) {
            at += 4;
            etherType = NetworkOrder.u16(s, offset + at);
        }
        at += 2;
        int udp;
        if (etherType == EthernetFrame.ETHERTYPE_IPV4) {
            int ihl = (NetworkOrder.u8(s, offset + at) & 0xf) * 4;
            boolean fragment = (NetworkOrder.u16(s, offset + at + 6) & 0x3fff) != 0;
            if (ihl < 20 || fragment || NetworkOrder.u8(s, offset + at + 9) != PROTOCOL_UDP) {
                return false;
            }
            udp = at + ihl;
        } else if (etherType == EthernetFrame.ETHERTYPE_IPV6) {
            if (NetworkOrder.u8(s, offset + at + 6) != PROTOCOL_UDP) {
                return false;
            }
            udp = at + 40;
        } else {
            return false;
        }
        return udp + 8 <= length && NetworkOrder.u16(s, offset + udp + 2) == ROCE_V2_UDP_DPORT;
    }
}
