package dev.irdmaemu.cm.hw;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.wire.LinkPort;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The host's TCP behind the in-memory device, for segments neither the CM nor a QP takes: it has no socket for
 * them and answers as RFC 9293 §3.10.7.1 says, with a reset, never to a reset.
 */
final class HostStack {
    private final long mac;
    private final TcpPacketBuilder tx;
    private final BytesStore<?, ?> buffer;
    private long resets;

    /** {@code tx} and {@code buffer}: the device's transmit scratch, which the link copies from at once. */
    HostStack(long mac, TcpPacketBuilder tx, BytesStore<?, ?> buffer) {
        this.mac = mac;
        this.tx = tx;
        this.buffer = buffer;
    }

    /** The answer to the segment {@code rx} wraps (already validated), sent on {@code wire}. */
    void answer(TcpPacket rx, LinkPort wire) {
        TcpHeader in = rx.tcp();
        if (in.rst()) {
            return;
        }
        resets++;
        long seq;
        long ack;
        int flags;
        if (in.ack()) {
            seq = in.acknowledgmentNumber();
            ack = 0;
            flags = TcpHeader.RST;
        } else {
            seq = 0;
            ack = in.sequenceNumber() + rx.tcpPayloadLength() + (in.syn() ? 1 : 0) + (in.fin() ? 1 : 0);
            flags = TcpHeader.RST | TcpHeader.ACK;
        }
        long srcMac = rx.ethernet().source();
        tx.reset().ethernet(srcMac, mac);
        if (rx.vlanId() >= 0) {
            tx.vlan(rx.ethernet().pcp(), false, rx.vlanId());
        }
        tx.addresses(rx.destinationHi(), rx.destinationLo(), rx.sourceHi(), rx.sourceLo()).ttl(64);
        tx.tcp().reset().ports(in.destinationPort(), in.sourcePort()).sequenceNumber(seq).acknowledgmentNumber(ack)
                .flags(flags).window(0);
        int len = tx.build(buffer, 0);
        wire.transmit(buffer, 0, len);
    }

    long resets() {
        return resets;
    }
}
