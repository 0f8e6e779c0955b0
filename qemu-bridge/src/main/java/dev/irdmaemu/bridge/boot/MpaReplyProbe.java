package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Recognises an MPA reply that accepts (RFC 5044 §7.1: the key "MPA ID Rep Frame", the R flag clear) in a whole
 * Ethernet frame, for {@link HostedNode}'s first-connection time.
 *
 * <p>A frame is first looked at without validation: EtherType IPv4 or IPv6 (after an 802.1Q tag if there is one),
 * IP protocol TCP, and the reply key where the TCP data starts by the headers' own length fields. Only such a
 * candidate is validated ({@link TcpPacket#validate}: the checksums over the whole segment) and read as the TCP
 * data the validation found. Every frame that passes the validation and holds the key passes the first look (the
 * same bytes are read), so the answer is that of the validation alone. Flyweights, nothing allocated; the
 * unvalidated reads stay inside the frame (a flyweight reads 0 beyond its window).
 */
final class MpaReplyProbe {
    private final EthernetFrame ethernet = new EthernetFrame();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();
    private final TcpHeader tcp = new TcpHeader();
    private final TcpPacket packet = new TcpPacket();
    private final MpaFrame mpa = new MpaFrame();

    /** Is the frame at {@code offset} a valid TCP segment whose data is an MPA reply that accepts? */
    boolean isAcceptingReply(BytesStore<?, ?> store, long offset, int length) {
        if (!mayBeReply(store, offset, length)) {
            return false;
        }
        if (!packet.wrap(store, offset, length).validate().accepted()) {
            return false;
        }
        long payload = packet.tcpPayloadLength();
        if (payload < MpaFrame.HEADER_SIZE) {
            return false;
        }
        MpaFrame m = mpa.wrap(store, packet.offset() + packet.tcpPayloadOffset(), payload);
        return m.isReply() && !m.isReject();
    }

    /** The first look: IPv4 or IPv6, TCP, and the reply key at the start of the TCP data; nothing validated. */
    private boolean mayBeReply(BytesStore<?, ?> store, long offset, int length) {
        int etherType = ethernet.wrap(store, offset, length).etherType();
        int ip = ethernet.payloadOffset();
        int tcpAt;
        if (etherType == EthernetFrame.ETHERTYPE_IPV4) {
            ipv4.wrap(store, offset + ip, length - ip);
            if (ipv4.protocol() != InternetChecksum.PROTOCOL_TCP) {
                return false;
            }
            tcpAt = ip + ipv4.headerLength();
        } else if (etherType == EthernetFrame.ETHERTYPE_IPV6) {
            if (ipv6.wrap(store, offset + ip, length - ip).nextHeader() != InternetChecksum.PROTOCOL_TCP) {
                return false;
            }
            tcpAt = ip + Ipv6Header.HEADER_LENGTH;
        } else {
            return false;
        }
        if (tcpAt > length) {
            return false;
        }
        int dataAt = tcpAt + tcp.wrap(store, offset + tcpAt, length - tcpAt).headerLength();
        return dataAt <= length && mpa.wrap(store, offset + dataAt, length - dataAt).isReply();
    }
}
