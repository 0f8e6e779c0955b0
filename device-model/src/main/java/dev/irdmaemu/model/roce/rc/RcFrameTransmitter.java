package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.roce.Aeth;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.RoceFrameBuilder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Builds each frame the QP sends into one reused transmit buffer and hands it to the {@link RcWire}: the
 * encapsulation of the QP's path (rxe_net.c prepare4/prepare6: Ethernet, IP with DF and a per-packet id, UDP to
 * 4791), the BTH, the extension headers, the payload the caller writes in place, the pad and the ICRC
 * ({@link RoceFrameBuilder#finish()} computes it over the finished headers, rxe_icrc.c). No allocation.
 */
final class RcFrameTransmitter {
    /** Headers (VLAN, IPv6, UDP, BTH, the longest extension headers), 4096 bytes of payload, pad and ICRC. */
    static final int CAPACITY = 4096 + 256;

    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final BytesStore<?, Void> tx = BytesStore.nativeStoreWithFixedCapacity(CAPACITY);
    private final RcPath path;
    private final RcWire wire;
    private final RcCounters counters;
    private int identification;

    RcFrameTransmitter(RcPath path, RcWire wire, RcCounters counters) {
        this.path = path;
        this.wire = wire;
        this.counters = counters;
        pathChanged();
    }

    /** Takes the path's addresses again (after a MODIFY_QP). */
    void pathChanged() {
        path.applyTo(builder);
    }

    /** The builder, for the extension header fields of the next frame (RETH, ImmDt, IETH, AETH). */
    RoceFrameBuilder headers() {
        return builder;
    }

    /**
     * Writes the headers of a frame with {@code payloadLength} payload bytes; answers the absolute offset in
     * {@link #buffer()} where the caller puts the payload before {@link #send()}.
     */
    long begin(BthOpcode op, int psn, boolean solicited, boolean ackRequest, int payloadLength) {
        builder.identification(identification++).bth(op, path.remoteQpn, psn).flags(solicited, false, ackRequest);
        return builder.begin(tx, 0, payloadLength);
    }

    BytesStore<?, Void> buffer() {
        return tx;
    }

    /** Finishes the frame begun last (pad, ICRC) and transmits it. */
    void send() {
        int length = builder.finish();
        counters.framesSent++;
        wire.transmit(tx, 0, length);
    }

    /** An ACKNOWLEDGE with {@code syndrome} (ACK, RNR NAK or NAK) for {@code psn} and the responder's MSN. */
    void acknowledge(int syndrome, int psn, int msn) {
        builder.aeth(syndrome, msn);
        begin(BthOpcode.RC_ACKNOWLEDGE, psn, false, false, 0);
        send();
    }

    /** The ACK syndrome the responder sends: credits not flow controlled (irdma's ACKCREDITS aside, as rxe). */
    static int ackSyndrome() {
        return Aeth.ackSyndrome(Aeth.CREDITS_UNLIMITED);
    }

    /** Frees the transmit buffer (the QP is destroyed); the transmitter is not used again. */
    void release() {
        tx.releaseLast();
    }
}
