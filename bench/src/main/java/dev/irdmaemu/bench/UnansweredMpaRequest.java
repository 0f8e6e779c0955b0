package dev.irdmaemu.bench;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmState;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.pcap.FrameTap;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The set-up the CM receive benchmarks share: node B listens and never accepts, so node A's MPA request stays
 * unanswered and A waits in MPAREQ_SENT (irdma's cm.c keeps a request pending until its ULP accepts), and B's pure
 * ACK of the request is captured from the wire as a tap: a real frame that passes every check, to feed A again
 * and again.
 */
final class UnansweredMpaRequest implements FrameTap {
    static final int PORT = 4791;

    private final BytesStore<?, Void> ack;
    private final TcpPacket view = new TcpPacket();
    private final EthernetFrame eth = new EthernetFrame();
    private int length;

    /** Captures into {@code ack} (2048 bytes suffice). */
    UnansweredMpaRequest(BytesStore<?, Void> ack) {
        this.ack = ack;
    }

    /** Keeps the latest pure ACK that B sends to A. */
    @Override
    public void frame(long timeNanos, BytesStore<?, ?> store, long offset, int len) {
        if (!eth.wrap(store, offset, len).validate().accepted() || eth.source() != CmPair.MAC_B) {
            return;
        }
        if (view.wrap(store, offset, len).validate().accepted() && view.tcp().flags() == 0x10
                && view.tcpPayloadLength() == 0) {
            ack.write(0, store, offset, len);
            length = len;
        }
    }

    /** B listens without accepting; A connects to it and must never hear a reply. */
    static CmNode connect(ConnectionManager a, ConnectionManager b) {
        b.listen(CmPair.B_V4.withPort(PORT), 4, e -> { }); // never accepts: A stays in MPAREQ_SENT
        return a.connect(CmPair.A_V4.withPort(1000), CmPair.B_V4.withPort(PORT),
                ConnectParams.of(new byte[8], 4, 4), e -> {
                    if (e.type() == CmEventType.CONNECT_REPLY) {
                        throw new IllegalStateException("the server was not meant to answer");
                    }
                });
    }

    /** The captured ACK's length once {@code client} waits in MPAREQ_SENT; the set-up failed otherwise. */
    int ackLength(CmNode client) {
        if (client.state() != CmState.MPAREQ_SENT || length == 0) {
            throw new IllegalStateException("set-up did not reach MPAREQ_SENT with a captured ACK: "
                    + client.state() + ", " + length);
        }
        return length;
    }
}
