package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over an IPv4 header (RFC 791 §3.1).
 *
 * <pre>
 *  byte  0: version:4 IHL:4     1: TOS (DSCP:6 ECN:2)   2..3: total length
 *  byte  4..5: identification   6..7: flags:3 (reserved, DF, MF) fragment offset:13
 *  byte  8: TTL   9: protocol   10..11: header checksum
 *  byte 12..15: source address  16..19: destination address   20..: options (IHL - 5 words)
 * </pre>
 *
 * Options (IHL &gt; 5) are skipped by IHL, never interpreted: nothing the emulator does depends on them.
 * Fragments are reported, not reassembled ({@link Status#FRAGMENT}): the emulator's receive paths take
 * whole TCP segments only. {@link #validate()} checks the header checksum (RFC 791 §3.1 "Header Checksum", computed
 * per RFC 1071); {@link #validateStructure()} checks every other rule, and {@link #checksumVerifies()} the checksum
 * alone (for a reader of captures, where a sending host's checksum offload leaves checksums unfilled). Offsets are
 * relative to the wrapped start; accessors read 0 outside the wrapped range.
 */
public final class Ipv4Header extends WireView implements Flyweight<Ipv4Header> {
    public static final int MIN_HEADER_LENGTH = 20;

    private static final int VER_IHL = 0;
    private static final int TOS = 1;
    private static final int TOTAL_LENGTH = 2;
    private static final int IDENTIFICATION = 4;
    private static final int FLAGS_FRAGMENT = 6;
    private static final int TTL = 8;
    private static final int PROTOCOL = 9;
    private static final int CHECKSUM = 10;
    private static final int SOURCE = 12;
    private static final int DESTINATION = 16;

    // RFC 791 §3.1 "Flags": bit 0 reserved, bit 1 DF, bit 2 MF, then the 13-bit fragment offset.
    private static final int FLAG_RESERVED = 0x8000;
    private static final int FLAG_DF = 0x4000;
    private static final int FLAG_MF = 0x2000;
    private static final int FRAGMENT_OFFSET_MASK = 0x1fff;

    public enum Status implements dev.irdmaemu.fw.Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 20-byte IPv4 header"),
        BAD_VERSION("version field is not 4"),
        IHL_TOO_SMALL("IHL below 5 words"),
        IHL_BEYOND_BUFFER("IHL reaches past the end of the buffer"),
        TOTAL_LENGTH_BELOW_HEADER("total length smaller than the header length"),
        TOTAL_LENGTH_BEYOND_BUFFER("total length reaches past the end of the buffer"),
        BAD_CHECKSUM("header checksum does not verify"),
        FRAGMENT("a fragment (MF set or fragment offset not 0); fragments are not reassembled");

        private final String description;

        Status(String description) {
            this.description = description;
        }

        @Override
        public String describe() {
            return description;
        }
    }

    public Status validate() {
        return validate(true);
    }

    /** Every rule of {@link #validate()} but the header checksum: lengths, version, fragments. */
    public Status validateStructure() {
        return validate(false);
    }

    /**
     * True if the header checksum verifies (RFC 1071: the one's complement sum over the header is 0xffff). Only
     * meaningful after {@link #validateStructure()} accepted the header: the header length is then within bounds.
     */
    public boolean checksumVerifies() {
        int headerLength = headerLength();
        return headerLength >= MIN_HEADER_LENGTH && headerLength <= length
                && InternetChecksum.verifyUnchecked(store, base, headerLength, 0);
    }

    private Status validate(boolean checksum) {
        if (!beginValidation(MIN_HEADER_LENGTH)) {
            return fail(Status.TRUNCATED, 0);
        }
        if (version() != 4) {
            return fail(Status.BAD_VERSION, VER_IHL);
        }
        int ihl = ihl();
        if (ihl < 5) {
            return fail(Status.IHL_TOO_SMALL, VER_IHL);
        }
        int headerLength = ihl * 4;
        if (headerLength > length) {
            return fail(Status.IHL_BEYOND_BUFFER, VER_IHL);
        }
        int totalLength = totalLength();
        if (totalLength < headerLength) {
            return fail(Status.TOTAL_LENGTH_BELOW_HEADER, TOTAL_LENGTH);
        }
        if (totalLength > length) {
            return fail(Status.TOTAL_LENGTH_BEYOND_BUFFER, TOTAL_LENGTH);
        }
        if (checksum && !InternetChecksum.verifyUnchecked(store, base, headerLength, 0)) {
            return fail(Status.BAD_CHECKSUM, CHECKSUM);
        }
        if (moreFragments() || fragmentOffset() != 0) {
            return fail(Status.FRAGMENT, FLAGS_FRAGMENT);
        }
        return Status.ACCEPTED;
    }

    public int version() {
        return u8(VER_IHL) >>> 4;
    }

    /** Internet header length in 32-bit words. */
    public int ihl() {
        return u8(VER_IHL) & 0x0f;
    }

    public int headerLength() {
        return ihl() * 4;
    }

    /** The whole type-of-service octet (RFC 2474 DSCP in bits 7..2, RFC 3168 ECN in bits 1..0). */
    public int tos() {
        return u8(TOS);
    }

    public int dscp() {
        return tos() >>> 2;
    }

    public int ecn() {
        return tos() & 0x03;
    }

    public int totalLength() {
        return u16(TOTAL_LENGTH);
    }

    public int identification() {
        return u16(IDENTIFICATION);
    }

    /** RFC 791 reserved flag bit; must be zero on the wire, reported, not enforced. */
    public boolean reservedFlag() {
        return (u16(FLAGS_FRAGMENT) & FLAG_RESERVED) != 0;
    }

    public boolean dontFragment() {
        return (u16(FLAGS_FRAGMENT) & FLAG_DF) != 0;
    }

    public boolean moreFragments() {
        return (u16(FLAGS_FRAGMENT) & FLAG_MF) != 0;
    }

    /** Fragment offset in 8-byte units, as on the wire. */
    public int fragmentOffset() {
        return u16(FLAGS_FRAGMENT) & FRAGMENT_OFFSET_MASK;
    }

    public int ttl() {
        return u8(TTL);
    }

    public int protocol() {
        return u8(PROTOCOL);
    }

    public int headerChecksum() {
        return u16(CHECKSUM);
    }

    /** Source address, first octet in bits 31..24. */
    public int source() {
        return i32(SOURCE);
    }

    public int destination() {
        return i32(DESTINATION);
    }

    /** Offset of the payload relative to the wrapped start (the header length). */
    public int payloadOffset() {
        return headerLength();
    }

    /** Total length minus header length, never negative. */
    public int payloadLength() {
        return Math.max(0, totalLength() - headerLength());
    }

    // ---- builder side ----

    /**
     * Write a 20-byte header (no options, not a fragment) and its checksum; answers 20.
     *
     * @param totalLength header plus payload, 20..65535
     */
    public static int write(BytesStore<?, ?> store, long offset, int tos, int totalLength, int identification,
                            boolean dontFragment, int ttl, int protocol, int source, int destination) {
        if (totalLength < MIN_HEADER_LENGTH || totalLength > 0xffff) {
            throw new IllegalArgumentException("IPv4 total length must be 20..65535, was " + totalLength);
        }
        NetworkOrder.requireRange(store, offset, MIN_HEADER_LENGTH);
        NetworkOrder.put8(store, offset + VER_IHL, 0x45);
        NetworkOrder.put8(store, offset + TOS, tos);
        NetworkOrder.put16(store, offset + TOTAL_LENGTH, totalLength);
        NetworkOrder.put16(store, offset + IDENTIFICATION, identification);
        NetworkOrder.put16(store, offset + FLAGS_FRAGMENT, dontFragment ? FLAG_DF : 0);
        NetworkOrder.put8(store, offset + TTL, ttl);
        NetworkOrder.put8(store, offset + PROTOCOL, protocol);
        NetworkOrder.put32(store, offset + SOURCE, source);
        NetworkOrder.put32(store, offset + DESTINATION, destination);
        // RFC 1071 over the ten 16-bit words just written, from the values rather than read back from the buffer
        // (the checksum word counts as 0, RFC 791 §3.1)
        long sum = (0x45L << 8 | tos & 0xff) + totalLength + (identification & 0xffff) + (dontFragment ? FLAG_DF : 0)
                + ((ttl & 0xffL) << 8 | protocol & 0xff)
                + (source >>> 16) + (source & 0xffff) + (destination >>> 16) + (destination & 0xffff);
        NetworkOrder.put16(store, offset + CHECKSUM, InternetChecksum.complement(sum));
        return MIN_HEADER_LENGTH;
    }
}
