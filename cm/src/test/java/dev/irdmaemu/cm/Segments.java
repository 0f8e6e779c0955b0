package dev.irdmaemu.cm;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import net.openhft.chronicle.bytes.BytesStore;

/** Hand-made segments "from the peer" of a node in a {@link CmPair}, handed to its CM as the ILQ would. */
final class Segments {
    private static final long PEER_MAC = 0x02_00_00_00_00_eeL;
    private final TcpPacketBuilder tx = new TcpPacketBuilder();
    private final BytesStore<?, ?> buf = BytesStore.wrap(new byte[2048]);

    /** Delivers a segment the peer of {@code n} could send: its four-tuple, our choice of flags and numbers. */
    void inject(ConnectionManager cm, CmNode n, int flags, long seq, long ack, byte[] payload) {
        IpEndpoint from = n.remote();
        IpEndpoint to = n.local();
        tx.reset().ethernet(cm.port().macAddress(), PEER_MAC)
                .addresses(from.addressHi(), from.addressLo(), to.addressHi(), to.addressLo());
        if (n.vlanId() < 4096) {
            tx.vlan(0, false, n.vlanId());
        }
        tx.tcp().reset().ports(from.port(), to.port()).sequenceNumber(seq).acknowledgmentNumber(ack).flags(flags)
                .window(0xffff);
        int len = tx.build(buf, 0, BytesStore.wrap(payload), 0, payload.length);
        cm.receive(buf, 0, len);
    }

    /** A SYN from {@code from} to {@code to}, for a passive open no node exists for yet. */
    void injectSyn(ConnectionManager cm, IpEndpoint from, IpEndpoint to, long seq) {
        tx.reset().ethernet(cm.port().macAddress(), PEER_MAC)
                .addresses(from.addressHi(), from.addressLo(), to.addressHi(), to.addressLo());
        tx.tcp().reset().ports(from.port(), to.port()).sequenceNumber(seq).acknowledgmentNumber(0)
                .flags(TcpHeader.SYN).window(0xffff).mss(1460);
        int len = tx.build(buf, 0, buf, 0, 0);
        cm.receive(buf, 0, len);
    }

    /** A segment that passes cm.c irdma_check_seq for {@code n}: at rcv_nxt, acknowledging everything sent. */
    void injectInSequence(ConnectionManager cm, CmNode n, int flags, byte[] payload) {
        inject(cm, n, flags, n.rcvNxt, n.locSeq, payload);
    }
}
