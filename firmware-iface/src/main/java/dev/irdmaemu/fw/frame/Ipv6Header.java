package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the fixed 40-byte IPv6 header (RFC 8200 §3).
 *
 * <pre>
 *  byte  0..3: version:4 traffic class:8 flow label:20
 *  byte  4..5: payload length   6: next header   7: hop limit
 *  byte  8..23: source address  24..39: destination address
 * </pre>
 *
 * Extension headers are not walked: a next-header value naming one (RFC 8200 §4, RFC 4303 ESP, RFC 4302
 * AH, RFC 6275 mobility, RFC 7401 HIP, RFC 5533 shim6, RFC 3692/4727 experimental 253/254) is answered with
 * {@link Status#EXTENSION_HEADER}. Addresses are read as two longs each, the most significant (first on the
 * wire) half in {@code ...Hi}. Offsets are relative to the wrapped start; accessors read 0 outside it.
 */
public final class Ipv6Header extends WireView implements Flyweight<Ipv6Header> {
    public static final int HEADER_LENGTH = 40;

    private static final int VER_TC_FLOW = 0;
    private static final int PAYLOAD_LENGTH = 4;
    private static final int NEXT_HEADER = 6;
    private static final int HOP_LIMIT = 7;
    private static final int SOURCE = 8;
    private static final int DESTINATION = 24;

    public enum Status implements dev.irdmaemu.fw.Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 40-byte IPv6 header"),
        BAD_VERSION("version field is not 6"),
        PAYLOAD_LENGTH_BEYOND_BUFFER("payload length reaches past the end of the buffer"),
        EXTENSION_HEADER("next header is an extension header; extension headers are not supported");

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
        if (version() != 6) {
            return fail(Status.BAD_VERSION, VER_TC_FLOW);
        }
        if (payloadLength() > length - HEADER_LENGTH) {
            return fail(Status.PAYLOAD_LENGTH_BEYOND_BUFFER, PAYLOAD_LENGTH);
        }
        if (isExtensionHeader(nextHeader())) {
            return fail(Status.EXTENSION_HEADER, NEXT_HEADER);
        }
        return Status.ACCEPTED;
    }

    /**
     * True for the next-header values that name an IPv6 extension header: hop-by-hop 0, routing 43,
     * fragment 44, ESP 50, AH 51, destination options 60 (RFC 8200 §4), mobility 135 (RFC 6275),
     * HIP 139 (RFC 7401), shim6 140 (RFC 5533), experimental 253 and 254 (RFC 3692, RFC 4727).
     */
    public static boolean isExtensionHeader(int nextHeader) {
        switch (nextHeader) {
            case 0: case 43: case 44: case 50: case 51: case 60: case 135: case 139: case 140: case 253: case 254:
                return true;
            default:
                return false;
        }
    }

    public int version() {
        return (int) (u32(VER_TC_FLOW) >>> 28);
    }

    public int trafficClass() {
        return (int) (u32(VER_TC_FLOW) >>> 20) & 0xff;
    }

    public int flowLabel() {
        return (int) u32(VER_TC_FLOW) & 0xfffff;
    }

    public int payloadLength() {
        return u16(PAYLOAD_LENGTH);
    }

    public int nextHeader() {
        return u8(NEXT_HEADER);
    }

    public int hopLimit() {
        return u8(HOP_LIMIT);
    }

    public long sourceHi() {
        return i64(SOURCE);
    }

    public long sourceLo() {
        return i64(SOURCE + 8);
    }

    public long destinationHi() {
        return i64(DESTINATION);
    }

    public long destinationLo() {
        return i64(DESTINATION + 8);
    }

    /** Offset of the payload relative to the wrapped start: always 40 (no extension headers). */
    public int payloadOffset() {
        return HEADER_LENGTH;
    }

    // ---- builder side ----

    /** Write the fixed header; answers 40. */
    public static int write(BytesStore<?, ?> store, long offset, int trafficClass, int flowLabel, int payloadLength,
                            int nextHeader, int hopLimit,
                            long sourceHi, long sourceLo, long destinationHi, long destinationLo) {
        if (payloadLength < 0 || payloadLength > 0xffff) {
            throw new IllegalArgumentException("IPv6 payload length must be 0..65535, was " + payloadLength);
        }
        NetworkOrder.requireRange(store, offset, HEADER_LENGTH);
        NetworkOrder.put32(store, offset + VER_TC_FLOW, (6 << 28) | ((trafficClass & 0xff) << 20) | (flowLabel & 0xfffff));
        NetworkOrder.put16(store, offset + PAYLOAD_LENGTH, payloadLength);
        NetworkOrder.put8(store, offset + NEXT_HEADER, nextHeader);
        NetworkOrder.put8(store, offset + HOP_LIMIT, hopLimit);
        NetworkOrder.put64(store, offset + SOURCE, sourceHi);
        NetworkOrder.put64(store, offset + SOURCE + 8, sourceLo);
        NetworkOrder.put64(store, offset + DESTINATION, destinationHi);
        NetworkOrder.put64(store, offset + DESTINATION + 8, destinationLo);
        return HEADER_LENGTH;
    }
}
