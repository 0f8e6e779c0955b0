package dev.irdmaemu.bridge.decode;

import dev.irdmaemu.fw.roce.Aeth;
import dev.irdmaemu.fw.roce.AethSyndrome;
import dev.irdmaemu.fw.roce.Bth;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.ExtensionHeader;
import dev.irdmaemu.fw.roce.ExtensionHeaders;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.fw.roce.RoceCheck;
import dev.irdmaemu.fw.roce.RoceFrame;
import dev.irdmaemu.fw.roce.NakCode;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The RoCEv2 part of a frame's summary line (IBA Vol. 1 chapter 9 transport headers, Annex A17 encapsulation and
 * ICRC), for frames to UDP port 4791, in the spirit of tshark's InfiniBand dissector:
 * <pre>
 *  RRoCE 74 49443 → 4791 | RC RDMA WRITE ONLY QP 0x000011 PSN 110 AckReq pad 2 RETH VA 0x1000 R_Key 0x00002002
 *      len 30 payload 30 bytes ICRC ok
 *  RRoCE 62 49953 → 4791 | RC ACKNOWLEDGE QP 0x000022 PSN 122 AETH RNR NAK timer 14 (1.28 ms) MSN 5 ICRC ok
 * </pre>
 * The opcode's name, DestQP, PSN, the BTH flags that are set (AckReq, SE, MigReq, FECN, BECN; IP-CE when the IP
 * header's ECN field says Congestion Experienced), a P_Key other than
 * the default, the pad count, each extension header's fields, the payload length, and the ICRC's verdict
 * ({@code ok}, or {@code BAD} with the received and computed values). A FIRST or MIDDLE packet whose payload is no
 * path MTU says so. A frame that breaks a structural rule shows that {@link RoceCheck}'s text and the offset of the
 * field, as the iWARP lines do; a UDP checksum that is present and wrong is marked, not fatal (sender offload).
 */
final class RoceSummarizer {
    /** tshark's protocol column for RoCEv2 (routable RoCE). */
    static final String PROTOCOL = "RRoCE";

    private static final Map<BthOpcode, String> NAMES = new EnumMap<>(BthOpcode.class);

    static {
        for (BthOpcode op : BthOpcode.values()) {
            NAMES.put(op, op.name().replace('_', ' ').replace("WITH IMMEDIATE", "WITH IMM")
                    .replace("WITH INVALIDATE", "WITH INV"));
        }
    }

    private final RoceFrame frame = new RoceFrame();

    /** Appends " RRoCE LEN SPORT → 4791 | …" for the frame at {@code [offset, offset + length)}. */
    void summarize(BytesStore<?, ?> store, long offset, int length, StringBuilder out) {
        RoceCheck c = frame.wrap(store, offset, length).validateStructure();
        out.append(' ').append(PROTOCOL).append(' ').append(length);
        if (frame.udp().length() >= 4) {
            out.append(' ').append(frame.udp().sourcePort()).append(" → ").append(frame.udp().destinationPort());
        }
        out.append(" | ");
        if (!c.accepted()) {
            out.append(c.describe()).append(" at ").append(frame.failedAt());
            return;
        }
        BthOpcode op = frame.opcode().orElseThrow();
        bth(op, out);
        headers(op, frame.headers(), out);
        if (op.carriesPayload()) {
            out.append(" payload ").append(frame.payloadLength()).append(" bytes");
            BthOpcode.Position p = op.position();
            if ((p == BthOpcode.Position.FIRST || p == BthOpcode.Position.MIDDLE)
                    && PathMtu.ofBytes(frame.payloadLength()).isEmpty()) {
                out.append(" (no path MTU)");
            }
        }
        if (frame.icrcVerifies()) {
            out.append(" ICRC ok");
        } else {
            out.append(" ICRC BAD (received ");
            FrameSummarizer.hex32(frame.receivedIcrc(), out);
            out.append(", computed ");
            FrameSummarizer.hex32(frame.computedIcrc(), out);
            out.append(')');
        }
        if (!frame.udpChecksumVerifies()) {
            out.append(' ').append(FrameSummarizer.UDP_CHECKSUM_MARK);
        }
    }

    private void bth(BthOpcode op, StringBuilder out) {
        Bth b = frame.bth();
        out.append(NAMES.get(op)).append(" QP 0x");
        hex(b.destinationQp(), 6, out);
        out.append(" PSN ").append(b.psn());
        flag(b.ackRequest(), "AckReq", out);
        flag(b.solicitedEvent(), "SE", out);
        flag(b.migrationRequest(), "MigReq", out);
        flag(b.fecn(), "FECN", out);
        flag(b.becn(), "BECN", out);
        // RFC 3168 §5: the IP header's ECN field 11, Congestion Experienced (what a CNP answers, IBA Annex A17)
        int ecn = frame.isIpv6() ? frame.ipv6().trafficClass() & 3 : frame.ipv4().ecn();
        flag(ecn == 3, "IP-CE", out);
        if (b.partitionKey() != Bth.DEFAULT_P_KEY) {
            out.append(" P_Key 0x");
            hex(b.partitionKey(), 4, out);
        }
        if (b.padCount() != 0) {
            out.append(" pad ").append(b.padCount());
        }
    }

    private static void headers(BthOpcode op, ExtensionHeaders h, StringBuilder out) {
        if (op.carries(ExtensionHeader.DETH)) {
            out.append(" DETH Q_Key ");
            FrameSummarizer.hex32(h.deth().queueKey(), out);
            out.append(" SrcQP 0x");
            hex(h.deth().sourceQp(), 6, out);
        }
        if (op.carries(ExtensionHeader.RETH)) {
            out.append(" RETH VA 0x").append(Long.toHexString(h.reth().virtualAddress())).append(" R_Key ");
            FrameSummarizer.hex32(h.reth().remoteKey(), out);
            out.append(" len ").append(h.reth().dmaLength());
        }
        if (op.carries(ExtensionHeader.ATOMIC_ETH)) {
            out.append(" AtomicETH VA 0x").append(Long.toHexString(h.atomicEth().virtualAddress())).append(" R_Key ");
            FrameSummarizer.hex32(h.atomicEth().remoteKey(), out);
            out.append(" swap/add 0x").append(Long.toHexString(h.atomicEth().swapOrAdd()))
                    .append(" compare 0x").append(Long.toHexString(h.atomicEth().compare()));
        }
        if (op.carries(ExtensionHeader.AETH)) {
            aeth(h.aeth(), out);
        }
        if (op.carries(ExtensionHeader.ATOMIC_ACK_ETH)) {
            out.append(" AtomicAckETH 0x").append(Long.toHexString(h.atomicAckEth().originalData()));
        }
        if (op.carries(ExtensionHeader.IMM_DT)) {
            out.append(" ImmDt ");
            FrameSummarizer.hex32(h.immDt().immediate(), out);
        }
        if (op.carries(ExtensionHeader.IETH)) {
            out.append(" IETH R_Key ");
            FrameSummarizer.hex32(h.ieth().remoteKey(), out);
        }
        if (op.carries(ExtensionHeader.CNP_RESERVED) && !h.cnp().reservedBytesZero()) {
            out.append(" (reserved bytes not 0)");
        }
    }

    /** IBA §9.3.6: the syndrome's kind and value, and the MSN. */
    private static void aeth(Aeth a, StringBuilder out) {
        out.append(" AETH ");
        AethSyndrome kind = a.kind();
        switch (kind) {
            case ACK -> {
                out.append("ACK credits ");
                if (a.syndromeValue() == Aeth.CREDITS_UNLIMITED) {
                    out.append("unlimited");
                } else {
                    out.append(a.syndromeValue());
                }
            }
            case RNR_NAK -> {
                int micros = Aeth.rnrTimerMicros(a.syndromeValue());
                out.append("RNR NAK timer ").append(a.syndromeValue()).append(" (").append(micros / 1000)
                        .append('.');
                int frac = micros % 1000 / 10;
                out.append(frac < 10 ? "0" : "").append(frac).append(" ms)");
            }
            case NAK -> {
                out.append("NAK ").append(a.nakCode().name().toLowerCase(Locale.ROOT).replace('_', ' '));
                if (a.nakCode() == NakCode.RESERVED) {
                    out.append(" code ").append(a.syndromeValue());
                }
            }
            default -> out.append("reserved syndrome 0x").append(Integer.toHexString(a.syndrome()));
        }
        out.append(" MSN ").append(a.msn());
    }

    private static void flag(boolean set, String name, StringBuilder out) {
        if (set) {
            out.append(' ').append(name);
        }
    }

    private static void hex(int v, int digits, StringBuilder out) {
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
            out.append(Character.forDigit(v >>> shift & 0xf, 16));
        }
    }
}
