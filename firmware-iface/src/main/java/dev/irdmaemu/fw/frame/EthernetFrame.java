package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over an Ethernet II frame header, optionally carrying one IEEE 802.1Q tag.
 *
 * <pre>
 *  0      6      12          14 (untagged: EtherType)    18
 *  +------+------+-----------+--------------------------+
 *  | dst  | src  | TPID 8100 | PCP:3 DEI:1 VID:12 | type |   (tagged)
 *  +------+------+-----------+--------------------------+
 * </pre>
 *
 * The frame check sequence is not part of the wrapped bytes (the emulator exchanges frames without FCS,
 * as a tap or socket hands them over). Offsets returned ({@link #payloadOffset()}, {@link #failedAt()}) are
 * relative to the wrapped start. Parse: {@link #wrap}, then {@link #validate()}; accessors read 0 for
 * bytes outside the wrapped range, so a caller that skips validation reads garbage but never crashes.
 * Build: the static {@code write*} methods. No allocation on either side.
 */
public final class EthernetFrame extends WireView implements Flyweight<EthernetFrame> {
    /** EtherType of IPv4 (IEEE Registration Authority EtherType list). */
    public static final int ETHERTYPE_IPV4 = 0x0800;
    /** EtherType of ARP. */
    public static final int ETHERTYPE_ARP = 0x0806;
    /** EtherType / TPID of an IEEE 802.1Q customer VLAN tag. */
    public static final int ETHERTYPE_VLAN = 0x8100;
    /** EtherType of IPv6. */
    public static final int ETHERTYPE_IPV6 = 0x86DD;

    /** Destination + source + EtherType. */
    public static final int HEADER_LENGTH = 14;
    /** With one 802.1Q tag (TPID + TCI) between source and EtherType. */
    public static final int TAGGED_HEADER_LENGTH = 18;

    private static final int DST = 0;
    private static final int SRC = 6;
    private static final int TYPE_OR_TPID = 12;
    private static final int TCI = 14;
    private static final int INNER_TYPE = 16;

    /** The rules {@link #validate()} applies, first one "accepted". */
    public enum Status implements dev.irdmaemu.fw.Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 14-byte Ethernet header"),
        TAG_TRUNCATED("802.1Q TPID present but the frame ends inside the 4-byte tag or the inner EtherType");

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
        if (!beginValidation(HEADER_LENGTH)) {
            return fail(Status.TRUNCATED, 0);
        }
        if (u16(TYPE_OR_TPID) == ETHERTYPE_VLAN && length < TAGGED_HEADER_LENGTH) {
            return fail(Status.TAG_TRUNCATED, TCI);
        }
        return Status.ACCEPTED;
    }

    /** Destination MAC, the first octet on the wire in bits 47..40. */
    public long destination() {
        return u48(DST);
    }

    public long source() {
        return u48(SRC);
    }

    /** True if the outer EtherType is the 802.1Q TPID 0x8100. */
    public boolean hasVlanTag() {
        return u16(TYPE_OR_TPID) == ETHERTYPE_VLAN;
    }

    /** The EtherType of the payload: the one after the tag when tagged. */
    public int etherType() {
        return hasVlanTag() ? u16(INNER_TYPE) : u16(TYPE_OR_TPID);
    }

    /** 802.1Q priority code point (0..7), 0 if untagged. */
    public int pcp() {
        return hasVlanTag() ? u16(TCI) >>> 13 : 0;
    }

    /** 802.1Q drop eligible indicator, false if untagged. */
    public boolean dei() {
        return hasVlanTag() && (u16(TCI) & 0x1000) != 0;
    }

    /** 802.1Q VLAN identifier (0..4095), -1 if untagged. 0 is a priority-only tag. */
    public int vlanId() {
        return hasVlanTag() ? u16(TCI) & 0x0fff : -1;
    }

    public int headerLength() {
        return hasVlanTag() ? TAGGED_HEADER_LENGTH : HEADER_LENGTH;
    }

    /** Offset of the payload relative to the wrapped start (14 or 18). */
    public int payloadOffset() {
        return headerLength();
    }

    /** Bytes after the header (any trailing Ethernet padding included), never negative. */
    public long payloadLength() {
        return Math.max(0, length - headerLength());
    }

    // ---- builder side ----

    /** Write an untagged header at {@code offset}; answers the header length (14). */
    public static int write(BytesStore<?, ?> store, long offset, long destination, long source, int etherType) {
        NetworkOrder.requireRange(store, offset, HEADER_LENGTH);
        NetworkOrder.put48(store, offset + DST, destination);
        NetworkOrder.put48(store, offset + SRC, source);
        NetworkOrder.put16(store, offset + TYPE_OR_TPID, etherType);
        return HEADER_LENGTH;
    }

    /**
     * Write a header with one 802.1Q tag whose whole tag control information (PCP, DEI, VID) is {@code tci}, as a
     * receive descriptor reports it (e.g. a PUDA CQE's vlan_tag); answers the header length (18).
     */
    public static int writeTagged(BytesStore<?, ?> store, long offset, long destination, long source, int tci,
                                  int etherType) {
        return writeTagged(store, offset, destination, source, tci >>> 13 & 7, (tci & 0x1000) != 0, tci & 0xfff,
                etherType);
    }

    /** Write a header with one 802.1Q tag; answers the header length (18). */
    public static int writeTagged(BytesStore<?, ?> store, long offset, long destination, long source,
                                  int pcp, boolean dei, int vlanId, int etherType) {
        if (pcp < 0 || pcp > 7 || vlanId < 0 || vlanId > 0xfff) {
            throw new IllegalArgumentException("802.1Q PCP must be 0..7 and VID 0..4095");
        }
        NetworkOrder.requireRange(store, offset, TAGGED_HEADER_LENGTH);
        NetworkOrder.put48(store, offset + DST, destination);
        NetworkOrder.put48(store, offset + SRC, source);
        NetworkOrder.put16(store, offset + TYPE_OR_TPID, ETHERTYPE_VLAN);
        NetworkOrder.put16(store, offset + TCI, (pcp << 13) | (dei ? 0x1000 : 0) | vlanId);
        NetworkOrder.put16(store, offset + INNER_TYPE, etherType);
        return TAGGED_HEADER_LENGTH;
    }
}
