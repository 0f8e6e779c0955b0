package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.frame.LinkAndIpCheck;
import dev.irdmaemu.fw.frame.LinkAndIpFrame;
import dev.irdmaemu.fw.frame.UdpHeader;
import java.util.Optional;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Composite flyweight over one received RoCEv2 frame (IBA Vol. 1 Annex A17): Ethernet (optionally one 802.1Q tag),
 * IPv4 or IPv6, UDP to port 4791, BTH, the extension headers of its opcode, payload, pad, ICRC. Hostile input is the
 * normal case, as for the iWARP parsers: every layer's length is checked against the one around it, the opcode
 * against IBA's table, the pad count against the payload, the ICRC against the invariant fields and the payload
 * against the path MTU; the first rule broken is answered as a {@link RoceCheck}, and {@link #failedAt()} is the
 * byte offset, from the frame start, of the field that broke it. Nothing throws on received bytes.
 *
 * <p>{@link #validate(PathMtu)} applies every rule, as a receiving port does (the checks of
 * drivers/infiniband/sw/rxe/rxe_recv.c and the length checks of rxe_resp.c). {@link #validateStructure()} applies
 * the structural ones only, for readers of captures (a sender's checksum offload, a CE-rewritten TOS or an unknown
 * path MTU are not structure); then {@link #icrcVerifies()}, {@link #udpChecksumVerifies()},
 * {@link #ipv4ChecksumVerifies()} and {@link #mtuCheck(PathMtu)} answer the rest one by one. After either, the layer
 * flyweights are wrapped on their layers. One instance is reused for every frame; nothing is allocated.
 */
public final class RoceFrame extends LinkAndIpFrame {
    /** IBA Annex A17.2: the UDP destination port of RoCEv2 (ib_verbs.h ROCE_V2_UDP_DPORT). */
    public static final int UDP_PORT = 4791;

    private final UdpHeader udp = new UdpHeader();
    private final Bth bth = new Bth();
    private final ExtensionHeaders headers = new ExtensionHeaders();

    private boolean transportKnown;
    private int udpOffset;
    private int payloadOffset;
    private int payloadLength;
    private int icrcOffset;

    /** Wraps a whole Ethernet frame (no FCS). */
    public RoceFrame wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        clear();
        return this;
    }

    private void clear() {
        failedAt = -1;
        transportKnown = false;
        udpOffset = 0;
        payloadOffset = 0;
        payloadLength = 0;
        icrcOffset = 0;
        clearLinkAndIp();
        udp.wrap(store, base, 0);
        bth.wrap(store, base, 0);
        headers.clear(store, base);
    }

    /**
     * Every rule: structure, the IPv4 header checksum, the UDP checksum when the sender filled it in, the ICRC, and
     * the payload length against {@code mtu}.
     */
    public RoceCheck validate(PathMtu mtu) {
        RoceCheck c = walk(true);
        if (!c.accepted()) {
            return c;
        }
        if (!icrcVerifies()) {
            return fail(RoceCheck.BAD_ICRC, icrcOffset);
        }
        return mtuCheck(mtu);
    }

    /** Every structural rule: lengths, versions, protocol, port, opcode, pad; no checksum, ICRC or MTU. */
    public RoceCheck validateStructure() {
        return walk(false);
    }

    private RoceCheck walk(boolean checksums) {
        clear();
        LinkAndIpCheck link = validateLinkAndIp(UdpHeader.PROTOCOL_UDP, checksums);
        if (!link.accepted()) {
            return RoceFrameChecks.map(link);
        }
        udpOffset = transportOffset();
        udp.wrap(store, base + udpOffset, transportLength());
        RoceCheck c = udpLayer(checksums);
        return c.accepted() ? transportLayer() : c;
    }

    private RoceCheck udpLayer(boolean checksum) {
        UdpHeader.Status s = udp.validate();
        if (!s.accepted()) {
            return fail(RoceFrameChecks.map(s), udpOffset + udp.failedAt());
        }
        if (udp.destinationPort() != UDP_PORT) {
            return fail(RoceCheck.NOT_ROCEV2_PORT, udpOffset + UdpHeader.OFF_DESTINATION_PORT);
        }
        if (checksum && !udp.checksumAbsent() && !udp.checksumVerifies(pseudoHeaderSum())) {
            return fail(RoceCheck.UDP_BAD_CHECKSUM, udpOffset + UdpHeader.OFF_CHECKSUM);
        }
        return RoceCheck.ACCEPTED;
    }

    private RoceCheck transportLayer() {
        int bthOffset = udpOffset + UdpHeader.HEADER_LENGTH;
        int room = (int) udp.payloadLength();
        bth.wrap(store, base + bthOffset, room);
        if (!bth.complete()) {
            return fail(RoceCheck.BTH_TRUNCATED, bthOffset);
        }
        if (bth.transportVersion() != Bth.TRANSPORT_VERSION) {
            return fail(RoceCheck.BAD_TRANSPORT_VERSION, bthOffset + Bth.OFF_FLAGS);
        }
        Optional<BthOpcode> known = bth.opcode();
        if (known.isEmpty()) {
            return fail(BthOpcode.isOtherTransport(bth.opcodeCode()) ? RoceCheck.OTHER_TRANSPORT
                    : RoceCheck.RESERVED_OPCODE, bthOffset + Bth.OFF_OPCODE);
        }
        BthOpcode op = known.get();
        int afterHeaders = Bth.LENGTH + op.extensionHeadersLength();
        if (room < afterHeaders) {
            return fail(RoceCheck.HEADERS_TRUNCATED, bthOffset + room);
        }
        if (room < afterHeaders + Icrc.LENGTH) {
            return fail(RoceCheck.ICRC_TRUNCATED, bthOffset + room);
        }
        int region = room - afterHeaders - Icrc.LENGTH;
        payloadOffset = bthOffset + afterHeaders;
        icrcOffset = bthOffset + room - Icrc.LENGTH;
        int pad = bth.padCount();
        if (region % 4 != 0) {
            return fail(RoceCheck.NOT_WORD_ALIGNED, icrcOffset);
        }
        if (!op.carriesPayload() && region > 0) {
            return fail(RoceCheck.UNEXPECTED_PAYLOAD, payloadOffset);
        }
        if (!op.carriesPayload() && pad != 0) {
            return fail(RoceCheck.PAD_WITHOUT_PAYLOAD, bthOffset + Bth.OFF_FLAGS);
        }
        if (pad > region) {
            return fail(RoceCheck.PAD_BEYOND_PAYLOAD, bthOffset + Bth.OFF_FLAGS);
        }
        payloadLength = region - pad;
        if (op == BthOpcode.RC_ATOMIC_WRITE && payloadLength != BthOpcode.ATOMIC_WRITE_PAYLOAD) {
            return fail(RoceCheck.ATOMIC_WRITE_NOT_8_BYTES, payloadOffset);
        }
        headers.wrap(op, store, base + bthOffset + Bth.LENGTH);
        transportKnown = true;
        return RoceCheck.ACCEPTED;
    }

    /**
     * The path-MTU rules for the payload of an accepted packet (IBA §9.7.7; rxe_resp.c check_length): ONLY and UD
     * packets at most {@code mtu}, FIRST and MIDDLE exactly {@code mtu}, LAST 1 to {@code mtu}. Packets without
     * payload pass.
     */
    public RoceCheck mtuCheck(PathMtu mtu) {
        if (!transportKnown || !bth.opcode().orElseThrow().carriesPayload()) {
            return RoceCheck.ACCEPTED;
        }
        int limit = mtu.bytes();
        if (payloadLength > limit) {
            return fail(RoceCheck.PAYLOAD_ABOVE_MTU, payloadOffset);
        }
        switch (bth.opcode().orElseThrow().position()) {
            case FIRST:
            case MIDDLE:
                return payloadLength == limit ? RoceCheck.ACCEPTED
                        : fail(RoceCheck.PAYLOAD_NOT_FULL_MTU, payloadOffset);
            case LAST:
                return payloadLength > 0 ? RoceCheck.ACCEPTED : fail(RoceCheck.EMPTY_LAST_PACKET, payloadOffset);
            default:
                return RoceCheck.ACCEPTED;
        }
    }

    /** True if the ICRC received equals the one computed; after an accepted structure only. */
    public boolean icrcVerifies() {
        return transportKnown && receivedIcrc() == computedIcrc();
    }

    /** The ICRC as the frame carries it (read least significant byte first). */
    public int receivedIcrc() {
        return transportKnown ? Icrc.read(store, base + icrcOffset) : 0;
    }

    /** The ICRC of the frame's invariant fields. */
    public int computedIcrc() {
        return transportKnown
                ? Icrc.compute(store, base + ipOffset(), ipHeaderLength(), isIpv6(), base + icrcOffset) : 0;
    }

    /** True if the UDP checksum verifies or the sender left it out (0); after an accepted structure only. */
    public boolean udpChecksumVerifies() {
        return transportKnown && (udp.checksumAbsent() || udp.checksumVerifies(pseudoHeaderSum()));
    }

    /** True if the IPv4 header checksum verifies, or the frame is IPv6; after an accepted structure only. */
    public boolean ipv4ChecksumVerifies() {
        return transportKnown && (isIpv6() || ipv4().checksumVerifies());
    }

    public UdpHeader udp() {
        return udp;
    }

    public Bth bth() {
        return bth;
    }

    /** The extension headers, wrapped as the opcode places them once the structure was accepted. */
    public ExtensionHeaders headers() {
        return headers;
    }

    /** The opcode of an accepted packet; empty before, or for an opcode this model does not carry. */
    public Optional<BthOpcode> opcode() {
        return bth.opcode();
    }

    /** Offset of the BTH from the frame start (valid once the UDP layer was accepted). */
    public int bthOffset() {
        return udpOffset + UdpHeader.HEADER_LENGTH;
    }

    /** Offset of the payload from the frame start, after an accepted structure. */
    public int payloadOffset() {
        return payloadOffset;
    }

    /** Payload bytes (pad excluded), after an accepted structure. */
    public int payloadLength() {
        return payloadLength;
    }

    /** Offset of the ICRC from the frame start, after an accepted structure. */
    public int icrcOffset() {
        return icrcOffset;
    }
}
