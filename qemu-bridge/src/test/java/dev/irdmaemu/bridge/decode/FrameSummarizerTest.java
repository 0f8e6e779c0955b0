package dev.irdmaemu.bridge.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.Crc32c;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.pcap.PcapReader;
import dev.irdmaemu.fw.pcap.SampleFrames;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The decoder on crafted frames, one branch at a time: Ethernet, ARP, UDP, IPv4/IPv6 (VLAN), TCP flags, relative
 * numbers and options, the MPA variants, every RDMAP opcode, CRC ok/BAD/off (and how it is negotiated), several
 * FPDUs per segment, a segment starting mid-FPDU, malformed layers with their check and offset.
 */
class FrameSummarizerTest {
    private static final long MAC_A = 0x02_00_00_00_00_01L;
    private static final long MAC_B = 0x02_00_00_00_00_02L;
    private static final int IP_A = IpAddress.ipv4(192, 0, 2, 1);
    private static final int IP_B = IpAddress.ipv4(192, 0, 2, 2);
    private static final long V6_HI = 0x20010db800000000L;
    /** Ethernet + IPv4 + 20-byte TCP header: where the TCP payload starts in the crafted frames. */
    private static final int PAYLOAD_AT = 54;
    /** Ethernet + IPv4 + 16: the TCP checksum in the crafted frames. */
    private static final int TCP_CHECKSUM_AT = 50;

    private final FrameSummarizer summarizer = new FrameSummarizer();

    private String summary(BytesStore<?, ?> store, long offset, int length) {
        StringBuilder out = new StringBuilder("> ");
        summarizer.summarize(store, offset, length, out);
        return out.toString();
    }

    private String summary(byte[] frame) {
        return summary(BytesStore.wrap(frame), 0, frame.length);
    }

    /**
     * A TCP conversation between 192.0.2.1:49152 (A) and 192.0.2.2:4791 (B) whose segments go through the
     * summarizer; sequence numbers follow the bytes sent.
     */
    private final class Conversation {
        final TcpPacketBuilder tcp = new TcpPacketBuilder();
        final BytesStore<?, byte[]> frame = BytesStore.wrap(new byte[4096]);
        final BytesStore<?, byte[]> payload = BytesStore.wrap(new byte[4096]);
        final BytesStore<?, byte[]> data = BytesStore.wrap(new byte[1024]);
        final MpaFrame.Builder mpa = new MpaFrame.Builder();
        final IwarpFrame iwarp = new IwarpFrame();
        long nextA = 1000;
        long nextB = 5000;
        int length;
        /** When set, each segment's TCP checksum is spoiled after it was built, as checksum offload leaves it. */
        boolean partialChecksums;

        /** SYN, SYN-ACK, ACK; answers the three summaries. */
        String[] handshake() {
            return new String[] {segment(true, TcpHeader.SYN, 0), segment(false, TcpHeader.SYN | TcpHeader.ACK, 0),
                segment(true, TcpHeader.ACK, 0)};
        }

        /** Connects with an MPA v2 exchange with these flags; answers the Reply's summary. */
        String connect(int requestFlags, int replyFlags) {
            handshake();
            segment(true, TcpHeader.PSH | TcpHeader.ACK, mpa(true, requestFlags));
            return segment(false, TcpHeader.PSH | TcpHeader.ACK, mpa(false, replyFlags));
        }

        int mpa(boolean request, int flags) {
            mpa.reset().revision(2).flags(flags).rtr(16, 16, true, false, true, false);
            if (request) {
                mpa.request();
            } else {
                mpa.reply();
            }
            return mpa.build(payload, 0, payload.realCapacity());
        }

        String segment(boolean fromA, int flags, int payloadLength) {
            return segment(fromA, flags, 0, payloadLength);
        }

        /** Sends {@code payload[from, from + payloadLength)}. */
        String segment(boolean fromA, int flags, int from, int payloadLength) {
            tcp.reset();
            if (fromA) {
                tcp.ethernet(MAC_B, MAC_A).ipv4(IP_A, IP_B);
                tcp.tcp().ports(49152, 4791);
            } else {
                tcp.ethernet(MAC_A, MAC_B).ipv4(IP_B, IP_A);
                tcp.tcp().ports(4791, 49152);
            }
            tcp.tcp().sequenceNumber(fromA ? nextA : nextB).flags(flags).window(1000)
                    .acknowledgmentNumber((flags & TcpHeader.ACK) != 0 ? (fromA ? nextB : nextA) : 0);
            if ((flags & TcpHeader.SYN) != 0) {
                tcp.tcp().mss(1460).windowScale(2);
            }
            length = tcp.build(frame, 0, payload, from, payloadLength);
            if (partialChecksums) {
                // what a sending host's capture holds: the pseudo-header sum only (here: any other value)
                frame.writeUnsignedByte(TCP_CHECKSUM_AT, frame.readUnsignedByte(TCP_CHECKSUM_AT) ^ 0x5a);
            }
            long advance = payloadLength + ((flags & (TcpHeader.SYN | TcpHeader.FIN)) != 0 ? 1 : 0);
            if (fromA) {
                nextA += advance;
            } else {
                nextB += advance;
            }
            return summary(frame, 0, length);
        }
    }

    private static String after(String line, String marker) {
        int i = line.indexOf(marker);
        return i < 0 ? "(no " + marker + " in " + line + ")" : line.substring(i);
    }

    // ---- L2 / L3 ------------------------------------------------------------------------------------------

    @Test
    void udpShowsAddressesAndPorts() {
        assertEquals("> 192.0.2.1 → 192.0.2.2 UDP 47 50000 → 50001 Len=5",
                summary(SampleFrames.bytes(SampleFrames.UDP_HELLO_HEX)));
    }

    @Test
    void atAnOffsetInALargerBuffer() {
        byte[] frame = SampleFrames.bytes(SampleFrames.TCP_SYN_HEX);
        byte[] buffer = new byte[100];
        System.arraycopy(frame, 0, buffer, 30, frame.length);
        assertEquals("> 198.51.100.1 → 198.51.100.2 TCP 54 50002 → 50003 [SYN] Seq=0 Win=65535 Len=0",
                summary(BytesStore.wrap(buffer), 30, frame.length));
    }

    @Test
    void arpAndOtherEtherTypes() {
        // RFC 826 request: who has 192.0.2.2, tell 192.0.2.1
        byte[] arp = SampleFrames.bytes("ffffffffffff" + "020000000001" + "0806"
                + "0001" + "0800" + "06" + "04" + "0001" + "020000000001" + "c0000201" + "000000000000" + "c0000202");
        assertEquals("> 02:00:00:00:00:01 → ff:ff:ff:ff:ff:ff ARP 42 Who has 192.0.2.2? Tell 192.0.2.1", summary(arp));
        arp[21] = 2; // reply
        assertEquals("> 02:00:00:00:00:01 → ff:ff:ff:ff:ff:ff ARP 42 192.0.2.1 is at 02:00:00:00:00:01", summary(arp));
        assertEquals("> 02:00:00:00:00:01 → ff:ff:ff:ff:ff:ff ARP 30 (not Ethernet/IPv4 ARP)",
                summary(BytesStore.wrap(arp), 0, 30));
        byte[] f = SampleFrames.bytes("ffffffffffff" + "02abcdef0102" + "88cc" + "0001");
        assertEquals("> 02:ab:cd:ef:01:02 → ff:ff:ff:ff:ff:ff LLDP 16", summary(f));
        f[12] = (byte) 0x88;
        f[13] = (byte) 0xb5; // IEEE 802: local experimental EtherType
        assertEquals("> 02:ab:cd:ef:01:02 → ff:ff:ff:ff:ff:ff 0x88b5 14", summary(BytesStore.wrap(f), 0, 14));
        f[12] = 0x00;
        f[13] = 0x2e;
        assertEquals("> 02:ab:cd:ef:01:02 → ff:ff:ff:ff:ff:ff 802.3 14", summary(BytesStore.wrap(f), 0, 14));
    }

    @Test
    void malformedLayersGiveTheirCheckAndOffset() {
        byte[] syn = SampleFrames.bytes(SampleFrames.TCP_SYN_HEX);
        byte[] badOffset = syn.clone();
        badOffset[46] = 0x30; // data offset 3 words
        assertEquals("> 198.51.100.1 → 198.51.100.2 TCP 54 TCP: data offset below 5 words at 46", summary(badOffset));
        byte[] v6ext = new byte[14 + 40];
        v6ext[12] = (byte) 0x86;
        v6ext[13] = (byte) 0xdd;
        v6ext[14] = 0x60;
        v6ext[20] = 0; // next header: hop-by-hop options (RFC 8200 §4)
        assertEquals("> 00:00:00:00:00:00 → 00:00:00:00:00:00 IPv6 54 IPv6: next header is an extension header; "
                + "extension headers are not supported at 20", summary(v6ext));
        byte[] tagCut = SampleFrames.bytes("ffffffffffff" + "020000000001" + "8100" + "00");
        assertEquals("> 02:00:00:00:00:01 → ff:ff:ff:ff:ff:ff 802.1Q 15 Ethernet: 802.1Q TPID present but the frame "
                + "ends inside the 4-byte tag or the inner EtherType at 14", summary(tagCut));
    }

    @Test
    void checksumsThatDoNotVerifyAreMarksNotFailures() {
        byte[] syn = SampleFrames.bytes(SampleFrames.TCP_SYN_HEX);
        String good = "> 198.51.100.1 → 198.51.100.2 TCP 54 50002 → 50003 [SYN] Seq=0 Win=65535 Len=0";
        assertEquals(good, summary(syn));
        byte[] badIp = syn.clone();
        badIp[24] ^= 1; // IPv4 header checksum (RFC 791), byte 10 of the header
        assertEquals(good + " [IPv4 CHECKSUM INCORRECT]", summary(badIp));
        byte[] badTcp = syn.clone();
        badTcp[51] ^= 1; // TCP checksum, bytes 16..17 of the TCP header
        assertEquals(good + " [TCP CHECKSUM INCORRECT]", summary(badTcp));
        byte[] both = badTcp.clone();
        both[24] ^= 1;
        assertEquals(good + " [IPv4 CHECKSUM INCORRECT] [TCP CHECKSUM INCORRECT]", summary(both));
        byte[] udp = SampleFrames.bytes(SampleFrames.UDP_HELLO_HEX);
        udp[24] ^= 1;
        assertEquals("> 192.0.2.1 → 192.0.2.2 UDP 47 50000 → 50001 Len=5 [IPv4 CHECKSUM INCORRECT]", summary(udp));
    }

    @Test
    void aBadChecksumDoesNotStopMalformedRulesFromFiring() {
        byte[] syn = SampleFrames.bytes(SampleFrames.TCP_SYN_HEX);
        syn[51] ^= 1;
        // truncated: the IPv4 total length (40) announces more than the 50 bytes captured after the Ethernet header
        assertEquals("> 02:00:00:00:00:02 → 02:00:00:00:00:01 IPv4 50 IPv4: total length reaches past the end of the buffer at 16",
                summary(BytesStore.wrap(syn), 0, 50));
        syn[24] ^= 1;
        syn[46] = 0x30; // data offset 3 words: malformed, and the IPv4 checksum is marked too
        assertEquals("> 198.51.100.1 → 198.51.100.2 TCP 54 TCP: data offset below 5 words at 46 "
                + "[IPv4 CHECKSUM INCORRECT]", summary(syn));
    }

    /**
     * A whole iWARP conversation whose TCP checksums all fail (a capture on the sending host) decodes to the lines
     * of the same conversation with good checksums, each with the mark after its TCP fields.
     */
    @Test
    void partialChecksumsDecodeLikeGoodOnesWithTheMark() {
        Conversation good = new Conversation();
        Conversation partial = new Conversation();
        partial.partialChecksums = true;
        List<String> goodLines = iwarpExchange(good);
        List<String> partialLines = iwarpExchange(partial);
        assertEquals(goodLines.size(), partialLines.size());
        int decoded = 0;
        for (int i = 0; i < goodLines.size(); i++) {
            String g = goodLines.get(i);
            assertFalse(g.contains("CHECKSUM"), g);
            int bar = g.indexOf(" | ");
            String expected = bar < 0 ? g + " [TCP CHECKSUM INCORRECT]"
                    : g.substring(0, bar) + " [TCP CHECKSUM INCORRECT]" + g.substring(bar);
            assertEquals(expected, partialLines.get(i));
            decoded += g.contains(" RDMAP ") || g.contains("| MPA ") ? 1 : 0;
        }
        assertEquals(6, decoded, () -> String.join("\n", goodLines));
    }

    /** Handshake, MPA Request and Reply, then a Send, an RDMA Write, a Read Request and its Read Response. */
    private static List<String> iwarpExchange(Conversation c) {
        List<String> lines = new ArrayList<>(List.of(c.handshake()));
        lines.add(c.segment(true, TcpHeader.PSH | TcpHeader.ACK, c.mpa(true, MpaFrame.FLAG_CRC)));
        lines.add(c.segment(false, TcpHeader.PSH | TcpHeader.ACK, c.mpa(false, MpaFrame.FLAG_CRC)));
        lines.add(c.segment(true, TcpHeader.PSH | TcpHeader.ACK, c.iwarp.writeUntagged(c.payload, 0, 600,
                RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, c.data, 0, 16, true)));
        lines.add(c.segment(false, TcpHeader.PSH | TcpHeader.ACK, c.iwarp.writeTagged(c.payload, 0, 600,
                RdmapOpcode.CODE_RDMA_WRITE, true, 0x1234, 0x1000, c.data, 0, 32, true)));
        lines.add(c.segment(true, TcpHeader.PSH | TcpHeader.ACK, c.iwarp.writeReadRequest(c.payload, 0, 600, 1,
                0x99, 0x2000, 8, 0x1234, 0x1000, true)));
        lines.add(c.segment(false, TcpHeader.PSH | TcpHeader.ACK, c.iwarp.writeTagged(c.payload, 0, 600,
                RdmapOpcode.CODE_RDMA_READ_RESPONSE, true, 0x99, 0x2000, c.data, 0, 8, true)));
        lines.add(c.segment(true, TcpHeader.ACK, 0));
        return lines;
    }

    @Test
    void shortAndOutOfRangeFramesAreSaidNotThrown() {
        BytesStore<?, byte[]> store = SampleFrames.store(SampleFrames.UDP_HELLO_HEX);
        assertEquals("> short frame: 13 bytes, below the 14-byte Ethernet header", summary(store, 0, 13));
        assertEquals("> frame outside its buffer (offset 40, length 14)", summary(store, 40, 14));
        assertEquals("> frame outside its buffer (offset -1, length 14)", summary(store, -1, 14));
        assertEquals("> frame outside its buffer (offset 0, length -1)", summary(store, 0, -1));
    }

    @Test
    void ipv6WithAVlanTag() {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(MAC_B, MAC_A).vlan(0, false, 100)
                .ipv6(V6_HI, 1, V6_HI, 2);
        b.tcp().ports(50000, 4433).sequenceNumber(77).flags(TcpHeader.SYN).window(0xffff).sackPermitted(true)
                .timestamps(11, 0);
        BytesStore<?, byte[]> f = BytesStore.wrap(new byte[200]);
        int n = b.build(f, 0);
        assertEquals("> 2001:db8::1 → 2001:db8::2 [vlan 100] TCP " + n + " 50000 → 4433 [SYN] Seq=0 Win=65535 Len=0 "
                + "SACK_PERM TSval=11 TSecr=0", summary(f, 0, n));
    }

    // ---- TCP ----------------------------------------------------------------------------------------------

    @Test
    void relativeNumbersFlagsWindowScalingAndOptions() {
        Conversation c = new Conversation();
        String[] h = c.handshake();
        assertEquals("> 192.0.2.1 → 192.0.2.2 TCP 62 49152 → 4791 [SYN] Seq=0 Win=1000 Len=0 MSS=1460 WS=4", h[0]);
        assertEquals("> 192.0.2.2 → 192.0.2.1 TCP 62 4791 → 49152 [SYN, ACK] Seq=0 Ack=1 Win=1000 Len=0 MSS=1460 WS=4",
                h[1]);
        // both SYNs announced a window scale: 1000 << 2 (RFC 7323 §2.2)
        assertEquals("> 192.0.2.1 → 192.0.2.2 TCP 54 49152 → 4791 [ACK] Seq=1 Ack=1 Win=4000 Len=0", h[2]);
        assertEquals("> 192.0.2.2 → 192.0.2.1 TCP 54 4791 → 49152 [FIN, PSH, ACK, URG] Seq=1 Ack=1 Win=4000 Len=0",
                c.segment(false, TcpHeader.FIN | TcpHeader.PSH | TcpHeader.ACK | TcpHeader.URG, 0));
        assertEquals("> 192.0.2.1 → 192.0.2.2 TCP 54 49152 → 4791 [RST, ECE, CWR] Seq=1 Win=4000 Len=0",
                c.segment(true, TcpHeader.RST | TcpHeader.ECE | TcpHeader.CWR, 0));
        assertEquals("> 192.0.2.1 → 192.0.2.2 TCP 54 49152 → 4791 [<none>] Seq=1 Win=4000 Len=0",
                c.segment(true, 0, 0));
    }

    @Test
    void withoutASynNumbersCountFromTheFirstSegmentSeen() {
        Conversation c = new Conversation();
        assertEquals("> 192.0.2.1 → 192.0.2.2 TCP 59 49152 → 4791 [PSH, ACK] Seq=0 Ack=5000 Win=1000 Len=5 "
                + "| TCP payload 5 bytes", c.segment(true, TcpHeader.PSH | TcpHeader.ACK, 5));
        assertEquals("> 192.0.2.2 → 192.0.2.1 TCP 54 4791 → 49152 [ACK] Seq=0 Ack=5 Win=1000 Len=0",
                c.segment(false, TcpHeader.ACK, 0));
    }

    @Test
    void aRetransmissionIsMarkedAndDoesNotMoveTheStream() {
        Conversation c = new Conversation();
        c.handshake();
        c.segment(true, TcpHeader.ACK, 10);
        c.nextA -= 10;
        assertEquals("> 192.0.2.1 → 192.0.2.2 TCP 64 49152 → 4791 [ACK] Seq=1 Ack=1 Win=4000 Len=10 [retransmission] "
                + "| TCP payload 10 bytes", c.segment(true, TcpHeader.ACK, 10));
    }

    // ---- MPA ------------------------------------------------------------------------------------------------

    @Test
    void mpaRequestAndReplyVariants() {
        Conversation c = new Conversation();
        c.handshake();
        c.mpa.reset().request().revision(1).flags(0);
        int n = c.mpa.build(c.payload, 0, 600);
        assertEquals("| MPA Req rev 1 PD 0", after(c.segment(true, TcpHeader.ACK, n), "| MPA"));
        c.mpa.reset().reply().revision(2).flags(MpaFrame.FLAG_CRC | MpaFrame.FLAG_REJECT | MpaFrame.FLAG_MARKERS)
                .rtr(MpaFrame.NO_IRD_ORD, 3, false, true, false, true);
        n = c.mpa.build(c.payload, 0, 600);
        String reply = c.segment(false, TcpHeader.ACK, n);
        assertEquals("> 192.0.2.2 → 192.0.2.1 MPA 78 4791 → 49152 [ACK] Seq=1 Ack=21 Win=4000 Len=24 "
                + "| MPA Rep rev 2 [markers, CRC, reject, enhanced] PD 4 IRD none ORD 3 RTR=send, read", reply);
        // rejected: what follows is plain TCP data
        assertEquals("| TCP payload 8 bytes (MPA connection rejected)",
                after(c.segment(true, TcpHeader.ACK, 8), "| TCP"));
    }

    @Test
    void malformedMpaGivesItsCheckAndFrameOffset() {
        Conversation c = new Conversation();
        c.handshake();
        int n = c.mpa(true, MpaFrame.FLAG_CRC);
        c.payload.writeByte(MpaFrame.OFF_REVISION, (byte) 3);
        assertEquals("| MPA: revision is 0 or above 2 (irdma supports IETF_MPA_V1 and IETF_MPA_V2) at "
                + (PAYLOAD_AT + MpaFrame.OFF_REVISION), after(c.segment(true, TcpHeader.ACK, n), "| MPA"));
        // a lying PD_Length
        n = c.mpa(true, MpaFrame.FLAG_CRC);
        c.payload.writeByte(MpaFrame.OFF_PD_LENGTH + 1, (byte) 100);
        assertEquals("| MPA: PD_Length announces more private data than the buffer holds at "
                + (PAYLOAD_AT + MpaFrame.OFF_PD_LENGTH), after(c.segment(true, TcpHeader.ACK, n), "| MPA"));
    }

    @Test
    void markersNegotiatedAreRefused() {
        Conversation c = new Conversation();
        c.connect(MpaFrame.FLAG_CRC | MpaFrame.FLAG_MARKERS, MpaFrame.FLAG_CRC);
        int n = c.iwarp.writeTagged(c.payload, 0, 600, RdmapOpcode.CODE_RDMA_WRITE, true, 1, 0, null, 0, 0, true);
        assertEquals("| FPDU: MPA markers (RFC 5044 §5) were negotiated; this codec frames without markers only",
                after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
    }

    // ---- FPDUs ----------------------------------------------------------------------------------------------

    @Test
    void crcIsUsedWhenEitherSideAsksForIt() {
        // RFC 5044 §7.1: CRC MUST be used if either the Request or the Reply has C
        for (int[] flags : new int[][] {{MpaFrame.FLAG_CRC, 0}, {0, MpaFrame.FLAG_CRC}, {0, 0}}) {
            Conversation c = new Conversation();
            c.connect(flags[0], flags[1]);
            boolean crc = (flags[0] | flags[1]) != 0;
            int n = c.iwarp.writeTagged(c.payload, 0, 600, RdmapOpcode.CODE_RDMA_WRITE, true, 7, 8, null, 0, 0, true);
            if (!crc) {
                // RFC 5044 §4.1: without CRC the field is still there, with any value, unchecked (siw sends zeros)
                c.payload.writeInt(n - 4, 0);
            }
            assertEquals("| FPDU len 14 CRC " + (crc ? "ok" : "off") + " DDP tagged STag 0x00000007 TO 0x8 L RDMAP "
                    + "RDMA Write 0 bytes", after(c.segment(true, TcpHeader.ACK, n), "| FPDU"), Arrays.toString(flags));
        }
    }

    @Test
    void everyRdmapOpcode() {
        Conversation c = new Conversation();
        c.connect(MpaFrame.FLAG_CRC, MpaFrame.FLAG_CRC);
        int n = c.iwarp.writeTagged(c.payload, 0, 600, RdmapOpcode.CODE_RDMA_WRITE, false, 0x11223344,
                0x1122334455667788L, c.data, 0, 10, true);
        assertEquals("| FPDU len 24 CRC ok DDP tagged STag 0x11223344 TO 0x1122334455667788 RDMAP RDMA Write 10 bytes",
                after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
        n = c.iwarp.writeTagged(c.payload, 0, 600, RdmapOpcode.CODE_RDMA_READ_RESPONSE, true, 5, 6, c.data, 0, 3,
                true);
        assertEquals("| FPDU len 17 CRC ok DDP tagged STag 0x00000005 TO 0x6 L RDMAP Read Response 3 bytes",
                after(c.segment(false, TcpHeader.ACK, n), "| FPDU"));
        n = c.iwarp.writeReadRequest(c.payload, 0, 600, 4, 1, 2, 3, 4, 5, true);
        assertEquals("| FPDU len 46 CRC ok DDP untagged QN 1 MSN 4 MO 0 L RDMAP Read Request (sink STag 0x00000001 "
                + "TO 0x2 len 3 source STag 0x00000004 TO 0x5)", after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
        String[] sends = {"Send", "Send with Invalidate STag 0x0000beef", "Send with SE",
            "Send with SE and Invalidate STag 0x0000beef"};
        int[] codes = {RdmapOpcode.CODE_SEND, RdmapOpcode.CODE_SEND_WITH_INVALIDATE, RdmapOpcode.CODE_SEND_WITH_SE,
            RdmapOpcode.CODE_SEND_WITH_SE_AND_INVALIDATE};
        for (int i = 0; i < codes.length; i++) {
            n = c.iwarp.writeUntagged(c.payload, 0, 600, codes[i], true, RdmapOpcode.of(codes[i])
                    .carriesInvalidateStag() ? 0xbeef : 0, 0, i + 1, 0, c.data, 0, 5, true);
            assertEquals("| FPDU len 23 CRC ok DDP untagged QN 0 MSN " + (i + 1) + " MO 0 L RDMAP " + sends[i]
                    + " 5 bytes", after(c.segment(false, TcpHeader.ACK, n), "| FPDU"));
        }
        // Terminate: RDMAP layer, remote protection, invalid STag (RFC 5040 §7.2), with the DDP header copied
        DdpHeader.writeTagged(c.data, 100, RdmapOpcode.CODE_RDMA_WRITE, true, 0x42, 0);
        int term = Terminate.write(c.data, 0, 100, Terminate.LAYER_RDMAP, Terminate.Rdmap.ETYPE_REMOTE_PROTECTION,
                Terminate.Rdmap.INVALID_STAG, 14, c.data, 100, null, 0);
        n = c.iwarp.writeUntagged(c.payload, 0, 600, RdmapOpcode.CODE_TERMINATE, true, 0, 2, 1, 0, c.data, 0, term,
                true);
        assertEquals("| FPDU len 38 CRC ok DDP untagged QN 2 MSN 1 MO 0 L RDMAP Terminate (layer RDMAP, type remote "
                + "protection, code invalid STag) M len 14 D [DDP tagged STag 0x00000042 TO 0x0 L]",
                after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
        // DDP layer, untagged buffer, invalid MSN range (RFC 5041 §7.2), no headers; then an unnamed code
        term = Terminate.write(c.data, 0, 100, Terminate.LAYER_DDP, Terminate.Ddp.ETYPE_UNTAGGED_BUFFER,
                Terminate.Ddp.UNTAGGED_INVALID_MSN_RANGE, -1, null, 0, null, 0);
        n = c.iwarp.writeUntagged(c.payload, 0, 600, RdmapOpcode.CODE_TERMINATE, true, 0, 2, 2, 0, c.data, 0, term,
                true);
        assertEquals("| FPDU len 22 CRC ok DDP untagged QN 2 MSN 2 MO 0 L RDMAP Terminate (layer DDP, type untagged "
                + "buffer, code invalid MSN, MSN range not valid)", after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
        term = Terminate.write(c.data, 0, 100, 9, 1, 0x77, -1, null, 0, null, 0);
        n = c.iwarp.writeUntagged(c.payload, 0, 600, RdmapOpcode.CODE_TERMINATE, true, 0, 2, 3, 0, c.data, 0, term,
                true);
        assertEquals("| FPDU len 22 CRC ok DDP untagged QN 2 MSN 3 MO 0 L RDMAP Terminate (layer 0x9, type 0x1, "
                + "code 0x77)", after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
    }

    @Test
    void badCrcAndMalformedDdpAndRdmap() {
        Conversation c = new Conversation();
        c.connect(MpaFrame.FLAG_CRC, MpaFrame.FLAG_CRC);
        int n = c.iwarp.writeUntagged(c.payload, 0, 600, RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, c.data, 0, 2, true);
        int received = Crc32c.readWire(c.payload, n - 4);
        c.payload.writeByte(5, (byte) 0x7f); // inside the ULPDU: the received CRC no longer matches
        String line = after(c.segment(true, TcpHeader.ACK, n), "| FPDU");
        String prefix = "| FPDU len 20 CRC BAD (received " + String.format("0x%08x", received) + ", computed 0x";
        assertTrue(line.startsWith(prefix), line);
        assertEquals(") DDP untagged QN 0 MSN 1 MO 0 L RDMAP Send 2 bytes", line.substring(prefix.length() + 8));
        assertNotEquals(line.substring(prefix.length() - 10, prefix.length() - 2),
                line.substring(prefix.length(), prefix.length() + 8), "computed differs from received");
        // an undefined opcode (RFC 5040 §4.2) and a wrong QN
        n = c.iwarp.writeUntagged(c.payload, 0, 600, 9, true, 0, 0, 2, 0, null, 0, 0, true);
        assertEquals("| FPDU len 18 CRC ok DDP: RDMAP opcode 8..15 is not defined (RFC 5040 §4.2) at "
                + (PAYLOAD_AT + 3), after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
        n = c.iwarp.writeUntagged(c.payload, 0, 600, RdmapOpcode.CODE_SEND, true, 0, 5, 3, 0, null, 0, 0, true);
        assertEquals("| FPDU len 18 CRC ok DDP untagged QN 5 MSN 3 MO 0 L (QN 0 expected) RDMAP Send 0 bytes",
                after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
        // a Read Request too short for its 28-byte header
        n = c.iwarp.writeUntagged(c.payload, 0, 600, RdmapOpcode.CODE_RDMA_READ_REQUEST, true, 0, 1, 1, 0, c.data, 0,
                8, true);
        assertEquals("| FPDU len 26 CRC ok DDP untagged QN 1 MSN 1 MO 0 L RDMAP Read Request: fewer than the 28 bytes "
                + "of an RDMA Read Request header (RFC 5040 §4.4) at " + (PAYLOAD_AT + 2 + 18 + 8),
                after(c.segment(true, TcpHeader.ACK, n), "| FPDU"));
        // ULPDU_Length below a DDP header: the stream's FPDU alignment is lost
        c.payload.writeByte(0, (byte) 0);
        c.payload.writeByte(1, (byte) 4);
        assertEquals("| FPDU: ULPDU_Length below the smallest DDP header (14 bytes, RFC 5041 §5.2) at " + PAYLOAD_AT,
                after(c.segment(true, TcpHeader.ACK, 12), "| FPDU"));
    }

    @Test
    void severalFpdusInOneSegment() {
        Conversation c = new Conversation();
        c.connect(0, 0);
        int at = 0;
        for (int i = 1; i <= 6; i++) {
            at += c.iwarp.writeUntagged(c.payload, at, 600 - at, RdmapOpcode.CODE_SEND, true, 0, 0, i, 0, null, 0, 0,
                    true);
            c.payload.writeInt(at - 4, 0); // RFC 5044 §4.1: no CRC in use, the field is still there (any value)
        }
        String line = c.segment(true, TcpHeader.ACK, at);
        StringBuilder expected = new StringBuilder();
        for (int i = 1; i <= 4; i++) {
            expected.append("| FPDU len 18 CRC off DDP untagged QN 0 MSN ").append(i).append(" MO 0 L RDMAP Send 0 bytes ");
        }
        expected.append("| +2 more FPDUs");
        assertEquals(expected.toString(), after(line, "| FPDU"));
        assertEquals("> 192.0.2.1 → 192.0.2.2 DDP/RDMA " + (PAYLOAD_AT + at), line.substring(0, line.indexOf(" 49152")));
    }

    @Test
    void aSegmentThatStartsInsideAnFpdu() {
        Conversation c = new Conversation();
        c.connect(MpaFrame.FLAG_CRC, MpaFrame.FLAG_CRC);
        int n = c.iwarp.writeTagged(c.payload, 0, 600, RdmapOpcode.CODE_RDMA_WRITE, true, 1, 0, c.data, 0, 100, true);
        int m = c.iwarp.writeUntagged(c.payload, n, 600, RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, null, 0, 0, true);
        assertEquals("| FPDU len 114, 40 of its 120 bytes here DDP tagged STag 0x00000001 TO 0x0 L RDMAP RDMA Write "
                + "24 bytes", after(c.segment(true, TcpHeader.ACK, 0, 40), "| FPDU"));
        assertEquals("| mid-FPDU: 50 bytes continue an earlier FPDU, 30 more to its end",
                after(c.segment(true, TcpHeader.ACK, 40, 50), "| mid"));
        assertEquals("| mid-FPDU: 30 bytes end an earlier FPDU | FPDU len 18 CRC ok DDP untagged QN 0 MSN 1 MO 0 L "
                + "RDMAP Send 0 bytes", after(c.segment(true, TcpHeader.ACK, 90, n - 90 + m), "| mid"));
        // a gap: bytes the capture missed
        c.nextA += 7;
        m = c.iwarp.writeUntagged(c.payload, 0, 600, RdmapOpcode.CODE_SEND, true, 0, 0, 2, 0, null, 0, 0, true);
        assertEquals("| 7 bytes before this segment were not seen | FPDU len 18 CRC ok DDP untagged QN 0 MSN 2 MO 0 L "
                + "RDMAP Send 0 bytes", after(c.segment(true, TcpHeader.ACK, m), "| 7"));
    }

    @Test
    void theReplyAndFpdusInOneSegment() {
        Conversation c = new Conversation();
        c.handshake();
        c.segment(true, TcpHeader.ACK, c.mpa(true, MpaFrame.FLAG_CRC));
        int n = c.mpa(false, MpaFrame.FLAG_CRC);
        n += c.iwarp.writeUntagged(c.payload, n, 600, RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, null, 0, 0, true);
        assertEquals("| MPA Rep rev 2 [CRC, enhanced] PD 4 IRD 16 ORD 16 P2P RTR=write | FPDU len 18 CRC ok DDP "
                + "untagged QN 0 MSN 1 MO 0 L RDMAP Send 0 bytes", after(c.segment(false, TcpHeader.ACK, n), "| MPA"));
        // the same segment again: a retransmission, still read as the Reply and its FPDU, the stream unmoved
        c.nextB -= n;
        assertEquals("[retransmission] | MPA Rep rev 2 [CRC, enhanced] PD 4 IRD 16 ORD 16 P2P RTR=write | FPDU len 18 "
                + "CRC ok DDP untagged QN 0 MSN 1 MO 0 L RDMAP Send 0 bytes",
                after(c.segment(false, TcpHeader.ACK, n), "[retransmission]"));
        n = c.iwarp.writeUntagged(c.payload, 0, 600, RdmapOpcode.CODE_SEND, true, 0, 0, 2, 0, null, 0, 0, true);
        assertEquals("| FPDU len 18 CRC ok DDP untagged QN 0 MSN 2 MO 0 L RDMAP Send 0 bytes",
                after(c.segment(false, TcpHeader.ACK, n), "| FPDU"));
    }

    // ---- hostile input ----------------------------------------------------------------------------------------

    @Property
    void anyBytesAnyRangeNeverThrow(@ForAll byte[] bytes, @ForAll long offset, @ForAll int length) {
        StringBuilder out = new StringBuilder();
        summarizer.summarize(BytesStore.wrap(bytes), offset, length, out);
        summarizer.summarize(BytesStore.wrap(bytes), 0, bytes.length, out);
    }

    /** The sample trace with bytes flipped (the stream state carried across frames) never makes it throw. */
    @Property(tries = 300)
    void mutatedSampleFramesNeverThrow(@ForAll @IntRange(min = 0, max = 1 << 20) int seed,
                                       @ForAll @IntRange(min = 1, max = 8) int flips) throws IOException {
        java.util.Random random = new java.util.Random(seed);
        FrameSummarizer s = new FrameSummarizer();
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(SampleTrace.pcapBytes()))) {
            while (r.next()) {
                byte[] f = new byte[r.capturedLength()];
                for (int i = 0; i < f.length; i++) {
                    f[i] = r.frame().readByte(i);
                }
                for (int i = 0; i < flips; i++) {
                    f[random.nextInt(f.length)] ^= (byte) (1 + random.nextInt(255));
                }
                int cut = random.nextInt(f.length + 1);
                s.summarize(BytesStore.wrap(f), 0, cut, new StringBuilder());
            }
        }
    }
}
