package dev.irdmaemu.fw.roce;

import static dev.irdmaemu.fw.roce.ExtensionHeader.AETH;
import static dev.irdmaemu.fw.roce.ExtensionHeader.ATOMIC_ACK_ETH;
import static dev.irdmaemu.fw.roce.ExtensionHeader.ATOMIC_ETH;
import static dev.irdmaemu.fw.roce.ExtensionHeader.CNP_RESERVED;
import static dev.irdmaemu.fw.roce.ExtensionHeader.DETH;
import static dev.irdmaemu.fw.roce.ExtensionHeader.FETH;
import static dev.irdmaemu.fw.roce.ExtensionHeader.IETH;
import static dev.irdmaemu.fw.roce.ExtensionHeader.IMM_DT;
import static dev.irdmaemu.fw.roce.ExtensionHeader.RETH;

import java.util.Optional;

/**
 * The BTH opcodes of the transport services RoCEv2 carries here: Reliable Connection, Unreliable Connection,
 * Unreliable Datagram (IBA Vol. 1 §9.2.1 Table 38; the values of include/rdma/ib_pack.h) and the Congestion
 * Notification Packet of IBA Annex A17. Each opcode knows, from the IBA opcode table (as rxe_opcode.c tabulates
 * it), the extension headers that follow its BTH and their order, whether it carries payload, and which packet of
 * a message it is (the path-MTU rules of IBA §9.7.7 / C9-…: FIRST and MIDDLE carry exactly the path MTU, LAST 1 to
 * PMTU, ONLY 0 to PMTU). Reliable Datagram, XRC and manufacturer-specific opcodes are not carried by this model:
 * {@link #isOtherTransport(int)} tells them from codes IBA leaves reserved. {@link #lookup(int)} answers a
 * preallocated {@link Optional}: no allocation per packet.
 */
public enum BthOpcode {
    RC_SEND_FIRST(0x00, Service.RC, Position.FIRST, true),
    RC_SEND_MIDDLE(0x01, Service.RC, Position.MIDDLE, true),
    RC_SEND_LAST(0x02, Service.RC, Position.LAST, true),
    RC_SEND_LAST_WITH_IMMEDIATE(0x03, Service.RC, Position.LAST, true, IMM_DT),
    RC_SEND_ONLY(0x04, Service.RC, Position.ONLY, true),
    RC_SEND_ONLY_WITH_IMMEDIATE(0x05, Service.RC, Position.ONLY, true, IMM_DT),
    RC_RDMA_WRITE_FIRST(0x06, Service.RC, Position.FIRST, true, RETH),
    RC_RDMA_WRITE_MIDDLE(0x07, Service.RC, Position.MIDDLE, true),
    RC_RDMA_WRITE_LAST(0x08, Service.RC, Position.LAST, true),
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, Service.RC, Position.LAST, true, IMM_DT),
    RC_RDMA_WRITE_ONLY(0x0a, Service.RC, Position.ONLY, true, RETH),
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0b, Service.RC, Position.ONLY, true, RETH, IMM_DT),
    RC_RDMA_READ_REQUEST(0x0c, Service.RC, Position.ONLY, false, RETH),
    RC_RDMA_READ_RESPONSE_FIRST(0x0d, Service.RC, Position.FIRST, true, AETH),
    RC_RDMA_READ_RESPONSE_MIDDLE(0x0e, Service.RC, Position.MIDDLE, true),
    RC_RDMA_READ_RESPONSE_LAST(0x0f, Service.RC, Position.LAST, true, AETH),
    RC_RDMA_READ_RESPONSE_ONLY(0x10, Service.RC, Position.ONLY, true, AETH),
    RC_ACKNOWLEDGE(0x11, Service.RC, Position.ONLY, false, AETH),
    RC_ATOMIC_ACKNOWLEDGE(0x12, Service.RC, Position.ONLY, false, AETH, ATOMIC_ACK_ETH),
    RC_COMPARE_SWAP(0x13, Service.RC, Position.ONLY, false, ATOMIC_ETH),
    RC_FETCH_ADD(0x14, Service.RC, Position.ONLY, false, ATOMIC_ETH),
    RC_SEND_LAST_WITH_INVALIDATE(0x16, Service.RC, Position.LAST, true, IETH),
    RC_SEND_ONLY_WITH_INVALIDATE(0x17, Service.RC, Position.ONLY, true, IETH),
    /** IBA 1.5 persistent-memory FLUSH (rxe only; irdma gen2 answers it with NAK invalid request). */
    RC_FLUSH(0x1c, Service.RC, Position.ONLY, false, FETH, RETH),
    /** IBA 1.5 ATOMIC WRITE: RETH and exactly 8 bytes of payload. */
    RC_ATOMIC_WRITE(0x1d, Service.RC, Position.ONLY, true, RETH),
    UC_SEND_FIRST(0x20, Service.UC, Position.FIRST, true),
    UC_SEND_MIDDLE(0x21, Service.UC, Position.MIDDLE, true),
    UC_SEND_LAST(0x22, Service.UC, Position.LAST, true),
    UC_SEND_LAST_WITH_IMMEDIATE(0x23, Service.UC, Position.LAST, true, IMM_DT),
    UC_SEND_ONLY(0x24, Service.UC, Position.ONLY, true),
    UC_SEND_ONLY_WITH_IMMEDIATE(0x25, Service.UC, Position.ONLY, true, IMM_DT),
    UC_RDMA_WRITE_FIRST(0x26, Service.UC, Position.FIRST, true, RETH),
    UC_RDMA_WRITE_MIDDLE(0x27, Service.UC, Position.MIDDLE, true),
    UC_RDMA_WRITE_LAST(0x28, Service.UC, Position.LAST, true),
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x29, Service.UC, Position.LAST, true, IMM_DT),
    UC_RDMA_WRITE_ONLY(0x2a, Service.UC, Position.ONLY, true, RETH),
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x2b, Service.UC, Position.ONLY, true, RETH, IMM_DT),
    UD_SEND_ONLY(0x64, Service.UD, Position.ONLY, true, DETH),
    UD_SEND_ONLY_WITH_IMMEDIATE(0x65, Service.UD, Position.ONLY, true, DETH, IMM_DT),
    /** IBA Annex A17 Congestion Notification Packet: BTH, 16 reserved bytes, ICRC. */
    CNP(0x81, Service.CNP, Position.ONLY, false, CNP_RESERVED);

    /** The transport service of an opcode: its top three bits (IBA Table 38). */
    public enum Service {
        RC, UC, UD, CNP
    }

    /** Which packet of its message an opcode is, for the path-MTU rules. */
    public enum Position {
        FIRST, MIDDLE, LAST, ONLY
    }

    /** Payload an RC ATOMIC WRITE carries: exactly 8 bytes (IBA 1.5; rxe_resp.c atomic write). */
    public static final int ATOMIC_WRITE_PAYLOAD = 8;

    private static final int TRANSPORT_RD = 0x40;
    private static final int TRANSPORT_XRC = 0xa0;
    private static final int TRANSPORT_MANUFACTURER = 0xe0;
    private static final int TRANSPORT_MASK = 0xe0;

    @SuppressWarnings("unchecked")
    private static final Optional<BthOpcode>[] BY_CODE = new Optional[256];

    static {
        java.util.Arrays.fill(BY_CODE, Optional.empty());
        for (BthOpcode op : values()) {
            BY_CODE[op.code] = Optional.of(op);
        }
    }

    private final int code;
    private final Service service;
    private final Position position;
    private final boolean payload;
    private final int headerMask;
    private final int headersLength;
    /** Offset of each carried header from the end of the BTH, by {@link ExtensionHeader#ordinal()}. */
    private final int[] offsets = new int[ExtensionHeader.values().length];

    BthOpcode(int code, Service service, Position position, boolean payload, ExtensionHeader... headers) {
        this.code = code;
        this.service = service;
        this.position = position;
        this.payload = payload;
        int mask = 0;
        int len = 0;
        for (ExtensionHeader h : headers) {
            mask |= h.bit();
        }
        // the wire order is ExtensionHeader's declaration order (IBA §9.2-§9.5)
        for (ExtensionHeader h : ExtensionHeader.values()) {
            if ((mask & h.bit()) != 0) {
                offsets[h.ordinal()] = len;
                len += h.length();
            }
        }
        this.headerMask = mask;
        this.headersLength = len;
    }

    /** The 8-bit code on the wire. */
    public int code() {
        return code;
    }

    public Service service() {
        return service;
    }

    public Position position() {
        return position;
    }

    /** True when the packet may carry payload after its headers (IBA Table 38's "payload" column). */
    public boolean carriesPayload() {
        return payload;
    }

    /** True when {@code h} follows this opcode's BTH. */
    public boolean carries(ExtensionHeader h) {
        return (headerMask & h.bit()) != 0;
    }

    /** Bytes of all extension headers together (BTH excluded). */
    public int extensionHeadersLength() {
        return headersLength;
    }

    /**
     * Offset of {@code h} from the end of the BTH: the lengths of the headers before it.
     *
     * @throws IllegalArgumentException if this opcode does not carry {@code h} (a caller's bug)
     */
    public int offsetOf(ExtensionHeader h) {
        if (!carries(h)) {
            throw new IllegalArgumentException(this + " carries no " + h);
        }
        return offsets[h.ordinal()];
    }

    /** True for requests that complete a message with immediate data. */
    public boolean carriesImmediate() {
        return carries(IMM_DT);
    }

    /** The opcode for an 8-bit code, empty when it is not one of this table's (a preallocated Optional). */
    public static Optional<BthOpcode> lookup(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : Optional.empty();
    }

    /**
     * True when {@code code} belongs to a transport IBA defines but this model does not carry: Reliable Datagram
     * (0x40-0x5f), XRC (0xa0-0xbf) or manufacturer-specific (0xe0-0xff). Other codes without an opcode here are
     * reserved.
     */
    public static boolean isOtherTransport(int code) {
        int t = code & TRANSPORT_MASK;
        return t == TRANSPORT_RD || t == TRANSPORT_XRC || t == TRANSPORT_MANUFACTURER;
    }
}
