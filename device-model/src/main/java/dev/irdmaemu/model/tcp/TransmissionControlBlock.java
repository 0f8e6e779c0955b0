package dev.irdmaemu.model.tcp;

import dev.irdmaemu.fw.frame.TcpHeader;

/**
 * The transmission control block of one connection: its state (RFC 9293 §3.3.2) and the send and receive sequence
 * variables of RFC 9293 §3.3.1, which {@link TcpInput}, {@link TcpOutput} and {@link TcpTimers} all read and move
 * (what Linux keeps in struct tcp_sock, include/linux/tcp.h). Sequence numbers are unsigned 32-bit values held in
 * longs. The fields are open to the package, like the structure they model: the engine runs on one thread and
 * only its own classes hold the block.
 */
final class TransmissionControlBlock {
    /** Bytes the RFC 7323 timestamp option takes from every segment. */
    static final int TIMESTAMP_OPTION = 12;

    TcpState state = TcpState.ESTABLISHED;
    /**
     * The payload of a full-size segment: the MSS less the timestamp option when it is sent (RFC 7323 §3.2; Linux
     * tcp_current_mss does the same). This is the SMSS of RFC 5681.
     */
    final int segmentPayload;

    // Send side.
    long sndUna;
    /** Next sequence number to send; moves back to SND.UNA on a go-back-N restart. */
    long sndNxt;
    /** One past the highest sequence number ever sent (Linux snd_nxt; our SND.NXT can be below it). */
    long sndMax;
    /** Sequence number after the last byte queued by the upper layer. */
    long writeSeq;
    long sndWnd;
    long sndWl1;
    long sndWl2;
    /** The largest window the peer ever offered (RFC 5961 §5.2's MAX.SND.WND). */
    long maxSndWnd;
    boolean finQueued;
    /** The sequence number our FIN takes, once queued. */
    long finSeq;

    // Receive side.
    long rcvNxt;
    /** The window we last advertised, in bytes (field << rcv_wscale). */
    long lastWindowSent;
    /** The peer's last timestamp value, echoed in ours (RFC 7323 §4.3). */
    long tsRecent;
    /** CLOSE_COMPLETE has been raised: it is raised once, by whichever graceful path gets there first. */
    boolean closeReported;

    TransmissionControlBlock(TcpConnectionParams params) {
        segmentPayload = params.mss() - (params.timestamps() ? TIMESTAMP_OPTION : 0);
        sndNxt = params.sndNxt();
        sndMax = sndNxt;
        writeSeq = sndNxt;
        // Anything between snd_una and snd_nxt at hand-over is not in our ring: treat it as sent and gone.
        sndUna = sndNxt;
        sndWnd = params.sndWnd();
        maxSndWnd = sndWnd;
        sndWl1 = params.rcvNxt();
        sndWl2 = sndUna;
        rcvNxt = params.rcvNxt();
        tsRecent = params.tsRecent();
    }

    /** The upper layer may still queue data: ESTABLISHED or CLOSE_WAIT. */
    boolean sends() {
        return state == TcpState.ESTABLISHED || state == TcpState.CLOSE_WAIT;
    }

    boolean receives() {
        return state != TcpState.CLOSED;
    }

    /** Segment text is still taken in: the peer has not sent its FIN. */
    boolean receivesData() {
        return state == TcpState.ESTABLISHED || state == TcpState.FIN_WAIT_1 || state == TcpState.FIN_WAIT_2;
    }

    /** Sequence space sent and not acknowledged at {@code una}: RFC 5681's FlightSize. */
    long flight(long una) {
        return seqDiff(sndMax, una);
    }

    /** {@code a - b} in 32-bit sequence space (RFC 9293 §3.4): negative when {@code a} comes before {@code b}. */
    static long seqDiff(long a, long b) {
        return TcpHeader.seqDelta(a & 0xffff_ffffL, b & 0xffff_ffffL);
    }
}
