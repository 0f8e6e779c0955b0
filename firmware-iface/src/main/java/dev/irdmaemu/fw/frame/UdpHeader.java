package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over a UDP header (RFC 768) and the datagram it starts.
 *
 * <pre>
 *  byte 0..1: source port   2..3: destination port   4..5: length (header + data)   6..7: checksum
 * </pre>
 *
 * Wrap the IP payload (as many bytes as the IP header says it carries); {@link #validate()} checks that the header
 * is there and that the length field agrees with the IP layer: at least 8, and equal to the wrapped length (a UDP
 * length below the IP payload would leave bytes no layer owns, one above it claims bytes that are not there).
 * The checksum covers the IPv4 (RFC 768) or IPv6 (RFC 8200 §8.1) pseudo-header, so it is checked by
 * {@link #checksumVerifies(long)}; a zero checksum field means "not computed" (RFC 768; RFC 6935/6936 allow it over
 * IPv6 for tunnels, which is what RoCEv2 senders such as the kernel's rxe do), answered by {@link #checksumAbsent()}.
 * Offsets are relative to the wrapped start; accessors read 0 outside it. No allocation.
 */
public final class UdpHeader extends WireView {
    public static final int HEADER_LENGTH = 8;
    /** IP protocol / IPv6 next-header number of UDP (IANA "Assigned Internet Protocol Numbers"). */
    public static final int PROTOCOL_UDP = 17;

    public static final int OFF_SOURCE_PORT = 0;
    public static final int OFF_DESTINATION_PORT = 2;
    public static final int OFF_LENGTH = 4;
    public static final int OFF_CHECKSUM = 6;

    public enum Status implements dev.irdmaemu.fw.Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 8-byte UDP header"),
        LENGTH_BELOW_HEADER("UDP length below the 8-byte header"),
        LENGTH_MISMATCH("UDP length differs from the payload length the IP header gives");

        private final String description;

        Status(String description) {
            this.description = description;
        }


        @Override
        public String describe() {
            return description;
        }
    }

    /** Wrap the UDP datagram: {@code length} is the IP payload length. */
    public UdpHeader wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        return this;
    }

    public Status validate() {
        if (!beginValidation(HEADER_LENGTH)) {
            return fail(Status.TRUNCATED, 0);
        }
        int udpLength = udpLength();
        if (udpLength < HEADER_LENGTH) {
            return fail(Status.LENGTH_BELOW_HEADER, OFF_LENGTH);
        }
        if (udpLength != length) {
            return fail(Status.LENGTH_MISMATCH, OFF_LENGTH);
        }
        return Status.ACCEPTED;
    }

    public int sourcePort() {
        return u16(OFF_SOURCE_PORT);
    }

    public int destinationPort() {
        return u16(OFF_DESTINATION_PORT);
    }

    /** The length field: header plus data. */
    public int udpLength() {
        return u16(OFF_LENGTH);
    }

    public int checksum() {
        return u16(OFF_CHECKSUM);
    }

    /** True when the sender left the checksum out (field 0, RFC 768). */
    public boolean checksumAbsent() {
        return checksum() == 0;
    }

    /**
     * True if the checksum over the pseudo-header ({@code pseudoHeaderSum}, from {@link InternetChecksum}) and the
     * datagram verifies. Meaningful after {@link #validate()} accepted the header; an absent checksum answers false.
     */
    public boolean checksumVerifies(long pseudoHeaderSum) {
        return !checksumAbsent() && length >= HEADER_LENGTH
                && InternetChecksum.verifyUnchecked(store, base, length, pseudoHeaderSum);
    }

    /** Data bytes after the header (the wrapped length less 8), never negative. */
    public long payloadLength() {
        return Math.max(0, length - HEADER_LENGTH);
    }

    // ---- builder side ----

    /** Writes the header with a zero (absent) checksum; answers 8. {@code udpLength} counts header and data. */
    public static int write(BytesStore<?, ?> store, long offset, int sourcePort, int destinationPort, int udpLength) {
        if (udpLength < HEADER_LENGTH || udpLength > 0xffff) {
            throw new IllegalArgumentException("UDP length must be 8..65535, was " + udpLength);
        }
        NetworkOrder.requireRange(store, offset, HEADER_LENGTH);
        NetworkOrder.put16(store, offset + OFF_SOURCE_PORT, sourcePort);
        NetworkOrder.put16(store, offset + OFF_DESTINATION_PORT, destinationPort);
        NetworkOrder.put16(store, offset + OFF_LENGTH, udpLength);
        NetworkOrder.put16(store, offset + OFF_CHECKSUM, 0);
        return HEADER_LENGTH;
    }

    /**
     * Fills the checksum of the {@code udpLength}-byte datagram at {@code offset} (header and data in place) over the
     * given pseudo-header sum; a computed 0 is sent as 0xffff (RFC 768), since 0 means "no checksum".
     */
    public static void writeChecksum(BytesStore<?, ?> store, long offset, int udpLength, long pseudoHeaderSum) {
        NetworkOrder.requireRange(store, offset, udpLength);
        if (udpLength < HEADER_LENGTH) {
            throw new IllegalArgumentException("UDP datagram shorter than its header: " + udpLength);
        }
        InternetChecksum.writeChecksumUnchecked(store, offset, udpLength, OFF_CHECKSUM, pseudoHeaderSum);
        if (NetworkOrder.u16(store, offset + OFF_CHECKSUM) == 0) {
            NetworkOrder.put16(store, offset + OFF_CHECKSUM, 0xffff);
        }
    }
}
