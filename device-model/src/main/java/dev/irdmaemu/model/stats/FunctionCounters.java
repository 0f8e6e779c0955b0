package dev.irdmaemu.model.stats;

import dev.irdmaemu.fw.cqp.GatherStatsBuffer;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer.Stat;
import dev.irdmaemu.fw.frame.TcpPacket;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The PE's counters of one PCI function, kept 64 bits wide and truncated to each counter's width only when
 * gathered (a hardware counter of that width would have wrapped there). Counted where the model does the work:
 * the port for the IP and TCP packets of the RDMA block ({@link #received}, {@link #transmitted}), the iWARP data
 * path for RDMA messages ({@link #increment}), the offloaded TCP for retransmissions. No allocation.
 *
 * <p>What the model counts: IPv4 / IPv6 packets and octets (IP header and payload) and TCP segments, received and
 * sent, of the frames the RDMA block handles (QPs and the PUDA queues; not what goes to the LAN); TCP segments
 * retransmitted; RDMA Writes, Read Requests and Sends, one per message (sent: per WQE started; received: on the
 * message's last DDP segment, Read Requests as they arrive). The multicast, fragment, discard, UDP and congestion
 * counters stay 0: the model has none of those paths.
 */
public final class FunctionCounters {
    private static final Stat[] STATS = Stat.values();
    private final long[] value = new long[STATS.length];

    public void increment(Stat s) {
        value[s.ordinal()]++;
    }

    public void add(Stat s, long n) {
        value[s.ordinal()] += n;
    }

    public long get(Stat s) {
        return value[s.ordinal()];
    }

    /** A TCP packet (validated) the RDMA block took from the wire. */
    public void received(TcpPacket p) {
        count(p, Stat.IP6RXPKTS, Stat.IP6RXOCTS, Stat.IP4RXPKTS, Stat.IP4RXOCTS, Stat.TCPRXSEGS);
    }

    /** A TCP packet (structurally validated) the RDMA block put on the wire. */
    public void transmitted(TcpPacket p) {
        count(p, Stat.IP6TXPKTS, Stat.IP6TXOCTS, Stat.IP4TXPKTS, Stat.IP4TXOCTS, Stat.TCPTXSEG);
    }

    /** One packet and its IP octets (an IPv6 header's 40 bytes and its payload, an IPv4 total length), one segment. */
    private void count(TcpPacket p, Stat ip6Packets, Stat ip6Octets, Stat ip4Packets, Stat ip4Octets, Stat segments) {
        if (p.isIpv6()) {
            value[ip6Packets.ordinal()]++;
            value[ip6Octets.ordinal()] += 40 + p.ipv6().payloadLength();
        } else {
            value[ip4Packets.ordinal()]++;
            value[ip4Octets.ordinal()] += p.ipv4().totalLength();
        }
        value[segments.ordinal()]++;
    }

    /**
     * Writes the counters into the Gather Stats buffer at {@code offset} of {@code dst}, with {@code retransmits}
     * (the offloaded TCP connections' count, kept per connection) as TCPRTXSEG.
     */
    public void gather(BytesStore<?, ?> dst, long offset, long retransmits) {
        value[Stat.TCPRTXSEG.ordinal()] = retransmits;
        GatherStatsBuffer.write(dst, offset, value);
    }

    /** Power-on state: every counter 0. */
    public void reset() {
        java.util.Arrays.fill(value, 0);
    }
}
