package dev.irdmaemu.bridge.vhost;

import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Whether a frame to the guest may be flagged DATA_VALID (VIRTIO_NET_F_GUEST_CSUM, virtio 1.2 §5.1.6.4): it is TCP
 * over IPv4 (header checksum good, not a fragment) or IPv6 (no extension headers), and its TCP checksum verifies.
 * The bridge checks rather than trusts the model, so a frame the model sends with a bad checksum (on purpose, or
 * not) still reaches the guest unflagged and the guest's stack drops it as it would off a wire. Other frames (ARP,
 * ICMP) go unflagged: the guest checks those itself. No allocation; not thread-safe (its connection's lock).
 */
final class RxChecksum {
    private final EthernetFrame ethernet = new EthernetFrame();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();

    boolean tcpChecksumValid(BytesStore<?, ?> store, long offset, int length) {
        ethernet.wrap(store, offset, length);
        if (!ethernet.validate().accepted()) {
            return false;
        }
        int l3 = ethernet.headerLength();
        long ip = offset + l3;
        int type = ethernet.etherType();
        if (type == EthernetFrame.ETHERTYPE_IPV4) {
            ipv4.wrap(store, ip, length - l3);
            if (!ipv4.validate().accepted() || ipv4.protocol() != InternetChecksum.PROTOCOL_TCP) {
                return false;
            }
            int segment = ipv4.payloadLength();
            return segment >= TcpHeader.MIN_HEADER_LENGTH && InternetChecksum.verify(store, ip + ipv4.headerLength(),
                    segment, InternetChecksum.ipv4PseudoHeaderSum(ipv4.source(), ipv4.destination(),
                            InternetChecksum.PROTOCOL_TCP, segment));
        }
        if (type == EthernetFrame.ETHERTYPE_IPV6) {
            ipv6.wrap(store, ip, length - l3);
            if (!ipv6.validate().accepted() || ipv6.nextHeader() != InternetChecksum.PROTOCOL_TCP) {
                return false;
            }
            int segment = ipv6.payloadLength();
            return segment >= TcpHeader.MIN_HEADER_LENGTH && InternetChecksum.verify(store,
                    ip + Ipv6Header.HEADER_LENGTH, segment, InternetChecksum.ipv6PseudoHeaderSum(ipv6.sourceHi(),
                            ipv6.sourceLo(), ipv6.destinationHi(), ipv6.destinationLo(), segment,
                            InternetChecksum.PROTOCOL_TCP));
        }
        return false;
    }
}
