package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over an ICMP (RFC 792) or ICMPv6 (RFC 4443) message: type, code, checksum, then the type's body. The
 * messages the port answers: Echo Request / Reply (identifier, sequence number, data) and, for ICMPv6, Neighbor
 * Solicitation / Advertisement (RFC 4861 §4.3, §4.4: flags, target address, options).
 *
 * <pre>
 *  0 type  1 code  2 checksum  4 identifier | R S O flags   6 sequence   8 data | 8 target address (16)  24 options
 * </pre>
 *
 * Parse: {@link #wrap} over exactly the message (the IP payload), then {@link #validateV4()} or
 * {@link #validateV6}, and for Neighbor Discovery {@link #validateNeighborDiscovery}; {@link #failedAt()} is the
 * failed field's offset in the message, -1 for a rule on the IP header ({@link Status#ND_HOP_LIMIT}). Accessors
 * read 0 outside the wrapped bytes. Build: the static {@code write*} methods. No allocation.
 */
public final class IcmpMessage extends WireView implements Flyweight<IcmpMessage> {
    /** IANA protocol numbers of ICMP and ICMPv6. */
    public static final int PROTOCOL_ICMP = 1;
    public static final int PROTOCOL_ICMPV6 = 58;
    /** RFC 792 types. */
    public static final int ECHO_REPLY = 0;
    public static final int ECHO_REQUEST = 8;
    /** RFC 4443 §4.1, §4.2 and RFC 4861 §4.3, §4.4 types. */
    public static final int ECHO6_REQUEST = 128;
    public static final int ECHO6_REPLY = 129;
    public static final int NEIGHBOR_SOLICITATION = 135;
    public static final int NEIGHBOR_ADVERTISEMENT = 136;
    /** RFC 4861 §4.6.1 option types. */
    public static final int OPTION_SOURCE_LINK_LAYER = 1;
    public static final int OPTION_TARGET_LINK_LAYER = 2;
    /** RFC 4861 §4.4 flag bits of the first body byte. */
    public static final int FLAG_ROUTER = 0x80;
    public static final int FLAG_SOLICITED = 0x40;
    public static final int FLAG_OVERRIDE = 0x20;

    /** Type, code, checksum and the 4-byte field every ICMP message has (RFC 792: "the first 8 bytes"). */
    public static final int HEADER_LENGTH = 8;
    /** A Neighbor Solicitation or Advertisement without options (RFC 4861 §7.1.1: "24 or more octets"). */
    public static final int ND_LENGTH = 24;
    /** A link-layer address option for Ethernet: type, length 1 (8 octets), the MAC. */
    public static final int LINK_LAYER_OPTION_LENGTH = 8;
    /**
     * What {@link #linkLayerOption} answers when the message carries no such option: no 48-bit MAC is negative,
     * so the per-frame neighbour-discovery path tests {@code >= 0} and allocates nothing.
     */
    public static final long NO_LINK_LAYER_OPTION = -1;

    private static final int TYPE = 0;
    private static final int CODE = 1;
    private static final int CHECKSUM = 2;
    private static final int IDENTIFIER = 4;
    private static final int SEQUENCE = 6;
    private static final int TARGET = 8;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 8-byte ICMP header"),
        BAD_CHECKSUM("checksum does not verify"),
        ND_HOP_LIMIT("Neighbor Discovery with an IP hop limit other than 255 (RFC 4861 §7.1)"),
        ND_CODE("Neighbor Discovery with a code other than 0"),
        ND_TRUNCATED("Neighbor Discovery message shorter than 24 octets"),
        ND_MULTICAST_TARGET("Neighbor Discovery target is a multicast address"),
        ND_BAD_OPTION("an option of length 0, or one reaching past the message"),
        ND_UNSPECIFIED_SOURCE("solicitation from the unspecified address not sent to a solicited-node address or "
                + "carrying a source link-layer address option (RFC 4861 §7.1.1)"),
        ND_SOLICITED_TO_MULTICAST("advertisement to a multicast address with the Solicited flag set "
                + "(RFC 4861 §7.1.2)");

        private final String description;

        Status(String description) {
            this.description = description;
        }

        @Override
        public String describe() {
            return description;
        }
    }

    /** RFC 792: at least the 8-byte header, and the checksum over the whole message verifies. */
    public Status validateV4() {
        return validate(0);
    }

    /** RFC 4443 §2.3: the checksum also covers the IPv6 pseudo-header (RFC 8200 §8.1). */
    public Status validateV6(long sourceHi, long sourceLo, long destinationHi, long destinationLo) {
        return validate(InternetChecksum.ipv6PseudoHeaderSum(sourceHi, sourceLo, destinationHi, destinationLo, length,
                PROTOCOL_ICMPV6));
    }

    private Status validate(long pseudoHeaderSum) {
        if (!beginValidation(HEADER_LENGTH)) {
            return fail(Status.TRUNCATED, 0);
        }
        if (!InternetChecksum.verifyUnchecked(store, base, length, pseudoHeaderSum)) {
            return fail(Status.BAD_CHECKSUM, CHECKSUM);
        }
        return Status.ACCEPTED;
    }

    /**
     * RFC 4861 §7.1.1 (solicitation) and §7.1.2 (advertisement) validity checks, after {@link #validateV6}: hop
     * limit 255, code 0, at least 24 octets, a unicast target, every option of non-zero length inside the message;
     * a solicitation from the unspecified address goes to a solicited-node address and carries no source
     * link-layer address; an advertisement to a multicast address is not solicited.
     */
    public Status validateNeighborDiscovery(int hopLimit, boolean sourceUnspecified, boolean destinationSolicitedNode,
                                            boolean destinationMulticast) {
        failedAt = -1;
        if (hopLimit != 255) {
            return Status.ND_HOP_LIMIT; // a rule on the IP header: failedAt() stays -1, no field of the message failed
        }
        if (code() != 0) {
            return fail(Status.ND_CODE, CODE);
        }
        if (length < ND_LENGTH) {
            return fail(Status.ND_TRUNCATED, 0);
        }
        if (u8(TARGET) == 0xff) {
            return fail(Status.ND_MULTICAST_TARGET, TARGET);
        }
        for (long at = ND_LENGTH; at < length; ) {
            int units = at + 2 <= length ? u8(at + 1) : 0;
            if (units == 0 || at + units * 8L > length) {
                return fail(Status.ND_BAD_OPTION, at);
            }
            at += units * 8L;
        }
        if (type() == NEIGHBOR_SOLICITATION && sourceUnspecified
                && (!destinationSolicitedNode || linkLayerOption(OPTION_SOURCE_LINK_LAYER) >= 0)) {
            return fail(Status.ND_UNSPECIFIED_SOURCE, 0);
        }
        if (type() == NEIGHBOR_ADVERTISEMENT && destinationMulticast && (flags() & FLAG_SOLICITED) != 0) {
            return fail(Status.ND_SOLICITED_TO_MULTICAST, IDENTIFIER);
        }
        return Status.ACCEPTED;
    }

    public int type() {
        return u8(TYPE);
    }

    public int code() {
        return u8(CODE);
    }

    public int checksum() {
        return u16(CHECKSUM);
    }

    /** Echo: the identifier. */
    public int identifier() {
        return u16(IDENTIFIER);
    }

    /** Echo: the sequence number. */
    public int sequence() {
        return u16(SEQUENCE);
    }

    /** Neighbor Advertisement: the R, S, O bits (in {@link #FLAG_ROUTER} etc. positions). */
    public int flags() {
        return u8(IDENTIFIER) & (FLAG_ROUTER | FLAG_SOLICITED | FLAG_OVERRIDE);
    }

    public long targetHi() {
        return i64(TARGET);
    }

    public long targetLo() {
        return i64(TARGET + 8);
    }

    /**
     * The MAC of the first link-layer address option of {@code optionType} ({@link #OPTION_SOURCE_LINK_LAYER} or
     * {@link #OPTION_TARGET_LINK_LAYER}) with Ethernet's length (one 8-octet unit), or {@link #NO_LINK_LAYER_OPTION}.
     * Only meaningful after {@link #validateNeighborDiscovery} accepted the options.
     */
    public long linkLayerOption(int optionType) {
        for (long at = ND_LENGTH; at + 2 <= length; ) {
            int units = u8(at + 1);
            if (units == 0) {
                return NO_LINK_LAYER_OPTION;
            }
            if (u8(at) == optionType && units == 1 && at + LINK_LAYER_OPTION_LENGTH <= length) {
                return u48(at + 2);
            }
            at += units * 8L;
        }
        return NO_LINK_LAYER_OPTION;
    }

    /** Writes the 8-byte header of an Echo Reply (or any type with identifier and sequence), checksum 0. */
    public static int writeEchoHeader(BytesStore<?, ?> store, long offset, int type, int identifier, int sequence) {
        NetworkOrder.requireRange(store, offset, HEADER_LENGTH);
        NetworkOrder.put8(store, offset + TYPE, type);
        NetworkOrder.put8(store, offset + CODE, 0);
        NetworkOrder.put16(store, offset + CHECKSUM, 0);
        NetworkOrder.put16(store, offset + IDENTIFIER, identifier);
        NetworkOrder.put16(store, offset + SEQUENCE, sequence);
        return HEADER_LENGTH;
    }

    /**
     * Writes a Neighbor Advertisement (RFC 4861 §4.4) with a target link-layer address option, checksum 0;
     * answers its length (32).
     */
    public static int writeNeighborAdvertisement(BytesStore<?, ?> store, long offset, int flags, long targetHi,
                                                 long targetLo, long targetMac) {
        int total = ND_LENGTH + LINK_LAYER_OPTION_LENGTH;
        NetworkOrder.requireRange(store, offset, total);
        NetworkOrder.put8(store, offset + TYPE, NEIGHBOR_ADVERTISEMENT);
        NetworkOrder.put8(store, offset + CODE, 0);
        NetworkOrder.put16(store, offset + CHECKSUM, 0);
        NetworkOrder.put32(store, offset + IDENTIFIER, (flags & 0xe0) << 24);
        NetworkOrder.put64(store, offset + TARGET, targetHi);
        NetworkOrder.put64(store, offset + TARGET + 8, targetLo);
        NetworkOrder.put8(store, offset + ND_LENGTH, OPTION_TARGET_LINK_LAYER);
        NetworkOrder.put8(store, offset + ND_LENGTH + 1, 1);
        NetworkOrder.put48(store, offset + ND_LENGTH + 2, targetMac);
        return total;
    }

    /** Fills in the checksum of the {@code length}-byte message at {@code offset} (RFC 792, RFC 4443 §2.3). */
    public static void writeChecksum(BytesStore<?, ?> store, long offset, int length, long pseudoHeaderSum) {
        if (length < CHECKSUM + 2) {
            throw new IllegalArgumentException("an ICMP message of " + length + " bytes has no checksum field");
        }
        NetworkOrder.requireRange(store, offset, length);
        InternetChecksum.writeChecksumUnchecked(store, offset, length, CHECKSUM, pseudoHeaderSum);
    }
}
