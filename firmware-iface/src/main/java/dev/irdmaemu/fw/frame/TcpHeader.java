package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over a TCP header and its options (RFC 9293 §3.1), wrapped over the whole segment (header and
 * data, length as the IP layer gives it).
 *
 * <pre>
 *  byte  0..1: source port   2..3: destination port   4..7: sequence number   8..11: acknowledgment number
 *  byte 12: data offset:4 reserved:4   13: flags CWR ECE URG ACK PSH RST SYN FIN
 *  byte 14..15: window   16..17: checksum   18..19: urgent pointer   20..: options (data offset - 5 words)
 * </pre>
 *
 * <p>{@link #validate()} parses the options once into primitive fields: MSS (kind 2, RFC 9293 §3.2),
 * window scale (kind 3, RFC 7323 §2), SACK-permitted (kind 4, RFC 2018 §2), timestamps (kind 8,
 * RFC 7323 §3); EOL (kind 0) ends the list, NOP (kind 1) is skipped, any other kind is skipped by its
 * length (RFC 9293 §3.2, MUST-6: ignore an unimplemented option that has a length field). A malformed
 * option list answers a typed check instead of a guess (RFC 9293 §3.2, MUST-7: be prepared for illegal
 * option lengths); no option value from a rejected list is kept.
 * The checksum needs the IP pseudo-header, so it is checked by {@link #checksumValid(long)}, not by
 * {@code validate()}. Offsets are relative to the wrapped start; accessors read 0 outside it.
 *
 * <p>Sequence and acknowledgment numbers are answered as unsigned values in a {@code long}; compare them
 * with {@link #seqBefore} / {@link #seqDelta} (modulo 2^32, RFC 9293 §3.4).
 */
public final class TcpHeader extends WireView {
    public static final int MIN_HEADER_LENGTH = 20;
    /** Data offset is 4 bits of 32-bit words: at most 60 bytes of header, 40 of options. */
    public static final int MAX_HEADER_LENGTH = 60;

    public static final int FIN = 0x01;
    public static final int SYN = 0x02;
    public static final int RST = 0x04;
    public static final int PSH = 0x08;
    public static final int ACK = 0x10;
    public static final int URG = 0x20;
    /** RFC 3168 §6.1 ECN-Echo. */
    public static final int ECE = 0x40;
    /** RFC 3168 §6.1 Congestion Window Reduced. */
    public static final int CWR = 0x80;

    public static final int OPTION_EOL = 0;
    public static final int OPTION_NOP = 1;
    public static final int OPTION_MSS = 2;
    public static final int OPTION_WINDOW_SCALE = 3;
    public static final int OPTION_SACK_PERMITTED = 4;
    public static final int OPTION_TIMESTAMPS = 8;

    /** RFC 7323 §2.3: the largest usable shift count. */
    public static final int MAX_WINDOW_SCALE = 14;

    private static final int SOURCE_PORT = 0;
    private static final int DESTINATION_PORT = 2;
    private static final int SEQUENCE = 4;
    private static final int ACKNOWLEDGMENT = 8;
    private static final int DATA_OFFSET = 12;
    private static final int FLAGS = 13;
    private static final int WINDOW = 14;
    private static final int CHECKSUM = 16;
    private static final int URGENT = 18;

    public enum Status implements dev.irdmaemu.fw.Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 20-byte TCP header"),
        DATA_OFFSET_TOO_SMALL("data offset below 5 words"),
        DATA_OFFSET_BEYOND_SEGMENT("data offset reaches past the end of the segment"),
        OPTION_LENGTH_TOO_SMALL("option length below 2"),
        OPTION_BEYOND_DATA_OFFSET("option (or its length byte) reaches past the data offset"),
        MSS_BAD_LENGTH("MSS option length is not 4"),
        WINDOW_SCALE_BAD_LENGTH("window scale option length is not 3"),
        SACK_PERMITTED_BAD_LENGTH("SACK-permitted option length is not 2"),
        TIMESTAMPS_BAD_LENGTH("timestamps option length is not 10");

        private final String description;

        Status(String description) {
            this.description = description;
        }

        @Override
        public String describe() {
            return description;
        }
    }

    // Options, filled by validate().
    private int mss;
    private int windowScaleRaw;
    private boolean sackPermitted;
    private boolean timestamps;
    private long tsVal;
    private long tsEcr;

    public TcpHeader wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        clearOptions();
        return this;
    }

    private void clearOptions() {
        mss = -1;
        windowScaleRaw = -1;
        sackPermitted = false;
        timestamps = false;
        tsVal = 0;
        tsEcr = 0;
    }

    public Status validate() {
        failedAt = -1;
        clearOptions();
        if (length < MIN_HEADER_LENGTH) {
            return fail(Status.TRUNCATED, 0);
        }
        int dataOffset = dataOffset();
        if (dataOffset < 5) {
            return fail(Status.DATA_OFFSET_TOO_SMALL, DATA_OFFSET);
        }
        int end = dataOffset * 4;
        if (end > length) {
            return fail(Status.DATA_OFFSET_BEYOND_SEGMENT, DATA_OFFSET);
        }
        Status s = parseOptions(end);
        if (!s.accepted()) {
            clearOptions();
        }
        return s;
    }

    // Everything read below lies in [20, end) and end <= length, so the reads are inside the wrap.
    private Status parseOptions(int end) {
        int at = MIN_HEADER_LENGTH;
        while (at < end) {
            int kind = u8(at);
            if (kind == OPTION_EOL) {
                return Status.ACCEPTED; // RFC 9293 §3.2: the rest of the option space is padding
            }
            if (kind == OPTION_NOP) {
                at++;
                continue;
            }
            if (at + 1 >= end) {
                return fail(Status.OPTION_BEYOND_DATA_OFFSET, at);
            }
            int len = u8(at + 1);
            if (len < 2) {
                return fail(Status.OPTION_LENGTH_TOO_SMALL, at + 1);
            }
            if (at + len > end) {
                return fail(Status.OPTION_BEYOND_DATA_OFFSET, at + 1);
            }
            switch (kind) {
                case OPTION_MSS:
                    if (len != 4) {
                        return fail(Status.MSS_BAD_LENGTH, at + 1);
                    }
                    mss = u16(at + 2);
                    break;
                case OPTION_WINDOW_SCALE:
                    if (len != 3) {
                        return fail(Status.WINDOW_SCALE_BAD_LENGTH, at + 1);
                    }
                    windowScaleRaw = u8(at + 2);
                    break;
                case OPTION_SACK_PERMITTED:
                    if (len != 2) {
                        return fail(Status.SACK_PERMITTED_BAD_LENGTH, at + 1);
                    }
                    sackPermitted = true;
                    break;
                case OPTION_TIMESTAMPS:
                    if (len != 10) {
                        return fail(Status.TIMESTAMPS_BAD_LENGTH, at + 1);
                    }
                    timestamps = true;
                    tsVal = u32(at + 2);
                    tsEcr = u32(at + 6);
                    break;
                default:
                    break; // unknown (or SACK blocks, kind 5): skipped by its length
            }
            at += len;
        }
        return Status.ACCEPTED;
    }

    public int sourcePort() {
        return u16(SOURCE_PORT);
    }

    public int destinationPort() {
        return u16(DESTINATION_PORT);
    }

    /** Sequence number, unsigned 0..2^32-1. */
    public long sequenceNumber() {
        return u32(SEQUENCE);
    }

    /** Acknowledgment number, unsigned 0..2^32-1 (meaningful when {@link #ack()}). */
    public long acknowledgmentNumber() {
        return u32(ACKNOWLEDGMENT);
    }

    /** Data offset in 32-bit words. */
    public int dataOffset() {
        return u8(DATA_OFFSET) >>> 4;
    }

    public int headerLength() {
        return dataOffset() * 4;
    }

    /** The four bits between data offset and flags, reserved in RFC 9293 §3.1; reported, not enforced. */
    public int reservedBits() {
        return u8(DATA_OFFSET) & 0x0f;
    }

    /** The flags octet; test with {@link #FIN} ... {@link #CWR}. */
    public int flags() {
        return u8(FLAGS);
    }

    public boolean fin() {
        return (flags() & FIN) != 0;
    }

    public boolean syn() {
        return (flags() & SYN) != 0;
    }

    public boolean rst() {
        return (flags() & RST) != 0;
    }

    public boolean psh() {
        return (flags() & PSH) != 0;
    }

    public boolean ack() {
        return (flags() & ACK) != 0;
    }

    public boolean urg() {
        return (flags() & URG) != 0;
    }

    public boolean ece() {
        return (flags() & ECE) != 0;
    }

    public boolean cwr() {
        return (flags() & CWR) != 0;
    }

    /** Window as on the wire, not scaled. */
    public int window() {
        return u16(WINDOW);
    }

    public int checksum() {
        return u16(CHECKSUM);
    }

    public int urgentPointer() {
        return u16(URGENT);
    }

    public boolean hasMss() {
        return mss >= 0;
    }

    /** MSS option value, -1 if absent. */
    public int mss() {
        return mss;
    }

    public boolean hasWindowScale() {
        return windowScaleRaw >= 0;
    }

    /**
     * Window scale shift to use, -1 if absent. RFC 7323 §2.3: a shift above 14 is used as 14 (and
     * should be logged: see {@link #windowScaleClamped()}; the codec does not log, to keep the per-frame
     * path free of logging work, the connection manager does).
     */
    public int windowScale() {
        return windowScaleRaw < 0 ? -1 : Math.min(windowScaleRaw, MAX_WINDOW_SCALE);
    }

    /** Window scale shift as received, -1 if absent. */
    public int windowScaleRaw() {
        return windowScaleRaw;
    }

    /** True if the received shift exceeded 14 and {@link #windowScale()} answers 14 instead. */
    public boolean windowScaleClamped() {
        return windowScaleRaw > MAX_WINDOW_SCALE;
    }

    public boolean sackPermitted() {
        return sackPermitted;
    }

    public boolean hasTimestamps() {
        return timestamps;
    }

    /** TSval, unsigned; 0 if absent. */
    public long tsVal() {
        return tsVal;
    }

    /** TSecr, unsigned; 0 if absent. */
    public long tsEcr() {
        return tsEcr;
    }

    /** Offset of the data relative to the wrapped start (the header length). */
    public int payloadOffset() {
        return headerLength();
    }

    /** Segment length minus header length, never negative. */
    public long payloadLength() {
        return Math.max(0, length - headerLength());
    }

    /**
     * True if the checksum verifies over the whole wrapped segment plus the given pseudo-header sum
     * ({@link InternetChecksum#ipv4PseudoHeaderSum} or {@link InternetChecksum#ipv6PseudoHeaderSum}, whose
     * length must be {@link #length()}).
     */
    public boolean checksumValid(long pseudoHeaderSum) {
        return length > 0 && InternetChecksum.verifyUnchecked(store, base, length, pseudoHeaderSum);
    }

    // ---- sequence arithmetic (RFC 9293 §3.4: modulo 2^32) ----

    /** {@code a - b} as a signed distance modulo 2^32. */
    public static int seqDelta(long a, long b) {
        return (int) (a - b);
    }

    /** True if {@code a} comes before {@code b} modulo 2^32. */
    public static boolean seqBefore(long a, long b) {
        return seqDelta(a, b) < 0;
    }

    // ---- builder side ----

    /** Write the checksum of a segment already in the buffer (its checksum field is overwritten). */
    public static void writeChecksum(BytesStore<?, ?> store, long offset, long segmentLength, long pseudoHeaderSum) {
        NetworkOrder.requireRange(store, offset, segmentLength);
        if (segmentLength < MIN_HEADER_LENGTH) {
            throw new IllegalArgumentException("TCP segment shorter than its header: " + segmentLength);
        }
        InternetChecksum.writeChecksumUnchecked(store, offset, segmentLength, CHECKSUM, pseudoHeaderSum);
    }

    /** {@link #writeChecksum} over the IPv4 pseudo-header (RFC 9293 §3.1). */
    public static void writeChecksumIpv4(BytesStore<?, ?> store, long offset, int segmentLength,
                                         int source, int destination) {
        writeChecksum(store, offset, segmentLength,
                InternetChecksum.ipv4PseudoHeaderSum(source, destination, InternetChecksum.PROTOCOL_TCP, segmentLength));
    }

    /** {@link #writeChecksum} over the IPv6 pseudo-header (RFC 8200 §8.1). */
    public static void writeChecksumIpv6(BytesStore<?, ?> store, long offset, int segmentLength,
                                         long sourceHi, long sourceLo, long destinationHi, long destinationLo) {
        writeChecksum(store, offset, segmentLength, InternetChecksum.ipv6PseudoHeaderSum(sourceHi, sourceLo,
                destinationHi, destinationLo, segmentLength, InternetChecksum.PROTOCOL_TCP));
    }

    /**
     * Reusable writer of a TCP header with a chosen option set. Options are laid out 32-bit aligned with
     * NOPs as RFC 7323 Appendix A suggests: MSS; SACK-permitted+timestamps, NOP NOP timestamps or
     * NOP NOP SACK-permitted; NOP window scale. Every arrangement is a multiple of 4 bytes, so no EOL
     * padding is ever needed. The checksum field is written 0; see {@link TcpHeader#writeChecksum}.
     */
    public static final class Builder {
        private int sourcePort;
        private int destinationPort;
        private long sequence;
        private long acknowledgment;
        private int flags;
        private int window;
        private int urgentPointer;
        private int mss = -1;
        private int windowScale = -1;
        private boolean sackPermitted;
        private boolean timestamps;
        private long tsVal;
        private long tsEcr;
        private boolean packedWithEndOfList;

        public Builder reset() {
            sourcePort = 0;
            destinationPort = 0;
            sequence = 0;
            acknowledgment = 0;
            flags = 0;
            window = 0;
            urgentPointer = 0;
            mss = -1;
            windowScale = -1;
            sackPermitted = false;
            timestamps = false;
            tsVal = 0;
            tsEcr = 0;
            packedWithEndOfList = false;
            return this;
        }

        /**
         * Lays the options out back to back (MSS, SACK-permitted, timestamps, window scale) and ends the list with
         * EOL and zero padding, the layout irdma_send_syn puts on the wire (MSS, window scale, EOL: 8 bytes),
         * instead of aligning each option with NOPs (the default, as Linux's own stack does).
         */
        public Builder packedWithEndOfList(boolean packed) {
            this.packedWithEndOfList = packed;
            return this;
        }

        public Builder ports(int source, int destination) {
            this.sourcePort = requireU16(source, "source port");
            this.destinationPort = requireU16(destination, "destination port");
            return this;
        }

        /** Sequence number; only the low 32 bits are used. */
        public Builder sequenceNumber(long seq) {
            this.sequence = seq & 0xffff_ffffL;
            return this;
        }

        public Builder acknowledgmentNumber(long ack) {
            this.acknowledgment = ack & 0xffff_ffffL;
            return this;
        }

        public Builder flags(int flags) {
            if ((flags & ~0xff) != 0) {
                throw new IllegalArgumentException("TCP flags are one octet: " + flags);
            }
            this.flags = flags;
            return this;
        }

        public Builder window(int window) {
            this.window = requireU16(window, "window");
            return this;
        }

        public Builder urgentPointer(int urgentPointer) {
            this.urgentPointer = requireU16(urgentPointer, "urgent pointer");
            return this;
        }

        /** MSS option value 0..65535, or -1 for none. */
        public Builder mss(int mss) {
            if (mss < -1 || mss > 0xffff) {
                throw new IllegalArgumentException("MSS must be 0..65535 or -1: " + mss);
            }
            this.mss = mss;
            return this;
        }

        /** Window scale shift 0..255 as written (the receiver clamps above 14), or -1 for none. */
        public Builder windowScale(int shift) {
            if (shift < -1 || shift > 0xff) {
                throw new IllegalArgumentException("window scale must be 0..255 or -1: " + shift);
            }
            this.windowScale = shift;
            return this;
        }

        public Builder sackPermitted(boolean sackPermitted) {
            this.sackPermitted = sackPermitted;
            return this;
        }

        public Builder timestamps(long tsVal, long tsEcr) {
            this.timestamps = true;
            this.tsVal = tsVal & 0xffff_ffffL;
            this.tsEcr = tsEcr & 0xffff_ffffL;
            return this;
        }

        public Builder noTimestamps() {
            this.timestamps = false;
            this.tsVal = 0;
            this.tsEcr = 0;
            return this;
        }

        /** Option bytes this builder writes (a multiple of 4). */
        public int optionsLength() {
            if (packedWithEndOfList) {
                int raw = (mss >= 0 ? 4 : 0) + (sackPermitted ? 2 : 0) + (timestamps ? 10 : 0)
                        + (windowScale >= 0 ? 3 : 0);
                return raw == 0 ? 0 : (raw + 1 + 3) & ~3; // + EOL, padded to a 32-bit boundary
            }
            int n = 0;
            if (mss >= 0) {
                n += 4;
            }
            if (timestamps || sackPermitted) {
                n += timestamps ? 12 : 4;
            }
            if (windowScale >= 0) {
                n += 4;
            }
            return n;
        }

        public int headerLength() {
            return MIN_HEADER_LENGTH + optionsLength();
        }

        /** Write the header at {@code offset}; answers the header length. */
        public int write(BytesStore<?, ?> store, long offset) {
            int headerLength = headerLength();
            NetworkOrder.requireRange(store, offset, headerLength);
            NetworkOrder.put16(store, offset + SOURCE_PORT, sourcePort);
            NetworkOrder.put16(store, offset + DESTINATION_PORT, destinationPort);
            NetworkOrder.put32(store, offset + SEQUENCE, (int) sequence);
            NetworkOrder.put32(store, offset + ACKNOWLEDGMENT, (int) acknowledgment);
            NetworkOrder.put8(store, offset + DATA_OFFSET, (headerLength / 4) << 4);
            NetworkOrder.put8(store, offset + FLAGS, flags);
            NetworkOrder.put16(store, offset + WINDOW, window);
            NetworkOrder.put16(store, offset + CHECKSUM, 0);
            NetworkOrder.put16(store, offset + URGENT, urgentPointer);
            long at = offset + MIN_HEADER_LENGTH;
            if (packedWithEndOfList) {
                writePacked(store, at, offset + headerLength);
                return headerLength;
            }
            if (mss >= 0) {
                at = TcpOptionEncoding.mss(store, at, mss);
            }
            if (timestamps) {
                at = sackPermitted ? TcpOptionEncoding.sackPermitted(store, at) : TcpOptionEncoding.nops(store, at);
                at = TcpOptionEncoding.timestamps(store, at, tsVal, tsEcr);
            } else if (sackPermitted) {
                at = TcpOptionEncoding.sackPermitted(store, TcpOptionEncoding.nops(store, at));
            }
            if (windowScale >= 0) {
                NetworkOrder.put8(store, at, OPTION_NOP);
                TcpOptionEncoding.windowScale(store, at + 1, windowScale);
            }
            return headerLength;
        }

        private void writePacked(BytesStore<?, ?> store, long at, long end) {
            if (at == end) {
                return;
            }
            if (mss >= 0) {
                at = TcpOptionEncoding.mss(store, at, mss);
            }
            if (sackPermitted) {
                at = TcpOptionEncoding.sackPermitted(store, at);
            }
            if (timestamps) {
                at = TcpOptionEncoding.timestamps(store, at, tsVal, tsEcr);
            }
            if (windowScale >= 0) {
                at = TcpOptionEncoding.windowScale(store, at, windowScale);
            }
            while (at < end) { // EOL (kind 0) and the zero padding after it are the same byte
                NetworkOrder.put8(store, at++, OPTION_EOL);
            }
        }

        private static int requireU16(int v, String what) {
            if (v < 0 || v > 0xffff) {
                throw new IllegalArgumentException(what + " must be 0..65535: " + v);
            }
            return v;
        }
    }
}
