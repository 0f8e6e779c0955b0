package dev.irdmaemu.bridge.decode;

import java.util.HashMap;
import java.util.Map;

/**
 * What the decoder remembers about one TCP connection (one 4-tuple), learned from the frames seen so far: per
 * direction the base of the relative sequence numbers, the window scale, where the next FPDU starts; for the
 * connection the MPA phase and whether FPDUs carry a CRC. Side 0 is the endpoint that sorts first
 * (address, then port), so both directions of a connection find the same state.
 */
final class StreamState {
    /** Where the connection is in MPA's connection setup (RFC 5044 §7, RFC 6581). */
    enum Phase {
        /** No MPA frame seen yet: payloads are opaque TCP data. */
        TCP,
        /** An MPA Request went one way; the Reply is awaited. */
        REQUEST_SEEN,
        /** The Reply accepted the connection: both directions carry FPDUs. */
        FPDU,
        /** The Reply had the R flag: the connection carries no FPDUs. */
        REJECTED
    }

    /** One direction of the connection. */
    static final class Direction {
        /** Relative sequence numbers count from this (the SYN's sequence number, or the first one seen). */
        boolean baseKnown;
        long base;
        boolean synSeen;
        /** Window scale shift this side announced in its SYN, -1 if none (RFC 7323 §2.2). */
        int windowShift = -1;
        /** One past the highest sequence number this side has sent (for retransmissions). */
        boolean nextKnown;
        long next;
        /** Where this side's next FPDU starts in its sequence space, when known. */
        boolean fpduKnown;
        long nextFpdu;
        boolean requestedCrc;
        boolean requestedMarkers;
    }

    final Direction[] side = {new Direction(), new Direction()};
    Phase phase = Phase.TCP;

    /** True once any segment of the connection was seen. */
    boolean started() {
        return side[0].baseKnown || side[1].baseKnown;
    }

    /** Forgets everything: a new connection on the same 4-tuple. */
    void reset() {
        side[0] = new Direction();
        side[1] = new Direction();
        phase = Phase.TCP;
        crc = false;
        markers = false;
    }
    /** Negotiated when the Reply is seen: RFC 5044 §7.1, CRC is used if either side asked for it. */
    boolean crc;
    boolean markers;

    /** True when both SYNs announced a window scale, so windows of other segments are scaled (RFC 7323 §2.2). */
    boolean windowScaling() {
        return side[0].windowShift >= 0 && side[1].windowShift >= 0;
    }

    /** The connections seen in a capture, by 4-tuple. */
    static final class Table {
        private record Key(long hiA, long loA, int portA, long hiB, long loB, int portB) {
        }

        private final Map<Key, StreamState> streams = new HashMap<>();

        /** The state of the connection, created on first sight. */
        StreamState lookup(long srcHi, long srcLo, int srcPort, long dstHi, long dstLo, int dstPort) {
            Key key = sourceIsSideZero(srcHi, srcLo, srcPort, dstHi, dstLo, dstPort)
                    ? new Key(srcHi, srcLo, srcPort, dstHi, dstLo, dstPort)
                    : new Key(dstHi, dstLo, dstPort, srcHi, srcLo, srcPort);
            return streams.computeIfAbsent(key, k -> new StreamState());
        }
    }

    /** Which side the source of a segment is: 0 when (address, port) of the source sorts first. */
    static boolean sourceIsSideZero(long srcHi, long srcLo, int srcPort, long dstHi, long dstLo, int dstPort) {
        int c = Long.compareUnsigned(srcHi, dstHi);
        if (c == 0) {
            c = Long.compareUnsigned(srcLo, dstLo);
        }
        if (c == 0) {
            c = Integer.compare(srcPort, dstPort);
        }
        return c <= 0;
    }
}
