package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over an ARP packet for IPv4 over Ethernet (RFC 826, the only kind the port answers):
 *
 * <pre>
 *  0 hardware type (1)   2 protocol type (0x0800)   4 hlen (6)   5 plen (4)   6 operation (1 request, 2 reply)
 *  8 sender MAC   14 sender IPv4   18 target MAC   24 target IPv4   28
 * </pre>
 *
 * Parse: {@link #wrap}, then {@link #validate()} ({@link #failedAt()}: the offset of the first field that broke
 * the rule); accessors read 0 outside the wrapped bytes. Build: {@link #write}. No allocation.
 */
public final class ArpPacket extends WireView implements Flyweight<ArpPacket> {
    public static final int LENGTH = 28;
    /** RFC 826 ar$hrd for Ethernet, ar$op values (IANA "Address Resolution Protocol (ARP) Parameters"). */
    public static final int HARDWARE_ETHERNET = 1;
    public static final int PROTOCOL_IPV4 = 0x0800;
    public static final int REQUEST = 1;
    public static final int REPLY = 2;

    private static final int HTYPE = 0;
    private static final int PTYPE = 2;
    private static final int HLEN = 4;
    private static final int PLEN = 5;
    private static final int OPER = 6;
    private static final int SHA = 8;
    private static final int SPA = 14;
    private static final int THA = 18;
    private static final int TPA = 24;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 28-byte ARP packet for IPv4 over Ethernet"),
        NOT_ETHERNET_IPV4("hardware/protocol type or address lengths are not Ethernet (1, 6) and IPv4 (0x0800, 4)"),
        UNKNOWN_OPERATION("operation is neither request (1) nor reply (2)");

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
        if (!beginValidation(LENGTH)) {
            return fail(Status.TRUNCATED, 0);
        }
        if (u16(HTYPE) != HARDWARE_ETHERNET) {
            return fail(Status.NOT_ETHERNET_IPV4, HTYPE);
        }
        if (u16(PTYPE) != PROTOCOL_IPV4) {
            return fail(Status.NOT_ETHERNET_IPV4, PTYPE);
        }
        if (u8(HLEN) != 6) {
            return fail(Status.NOT_ETHERNET_IPV4, HLEN);
        }
        if (u8(PLEN) != 4) {
            return fail(Status.NOT_ETHERNET_IPV4, PLEN);
        }
        if (operation() != REQUEST && operation() != REPLY) {
            return fail(Status.UNKNOWN_OPERATION, OPER);
        }
        return Status.ACCEPTED;
    }

    public int operation() {
        return u16(OPER);
    }

    public long senderMac() {
        return u48(SHA);
    }

    public int senderIp() {
        return i32(SPA);
    }

    public long targetMac() {
        return u48(THA);
    }

    public int targetIp() {
        return i32(TPA);
    }

    /** Writes a 28-byte ARP packet for IPv4 over Ethernet at {@code offset}; answers 28. */
    public static int write(BytesStore<?, ?> store, long offset, int operation, long senderMac, int senderIp,
                            long targetMac, int targetIp) {
        NetworkOrder.requireRange(store, offset, LENGTH);
        NetworkOrder.put16(store, offset + HTYPE, HARDWARE_ETHERNET);
        NetworkOrder.put16(store, offset + PTYPE, PROTOCOL_IPV4);
        NetworkOrder.put8(store, offset + HLEN, 6);
        NetworkOrder.put8(store, offset + PLEN, 4);
        NetworkOrder.put16(store, offset + OPER, operation);
        NetworkOrder.put48(store, offset + SHA, senderMac);
        NetworkOrder.put32(store, offset + SPA, senderIp);
        NetworkOrder.put48(store, offset + THA, targetMac);
        NetworkOrder.put32(store, offset + TPA, targetIp);
        return LENGTH;
    }
}
