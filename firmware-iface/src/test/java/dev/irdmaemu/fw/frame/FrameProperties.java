package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Properties of the frame codecs: build-then-parse is the identity on every field, and no input (random,
 * mutated, truncated, embedded between foreign bytes, wrapped with a lying length) makes a parser throw or
 * read outside its bytes; a frame that still validates after a mutation has checksums that the byte-by-byte
 * reference agrees with, and a mutation inside a checksummed range is always caught.
 */
class FrameProperties {

    /** Everything the builder takes, with documentation-range addresses and locally administered MACs. */
    static final class Spec {
        long dstMac;
        long srcMac;
        boolean tagged;
        int pcp;
        boolean dei;
        int vlanId;
        boolean v6;
        int src4;
        int dst4;
        long srcHi;
        long srcLo;
        long dstHi;
        long dstLo;
        int tos;
        int identification;
        boolean dontFragment;
        int ttl;
        int flowLabel;
        int sourcePort;
        int destinationPort;
        long seq;
        long ack;
        int flags;
        int window;
        int urgent;
        int mss;
        int windowScale;
        boolean sackPermitted;
        boolean timestamps;
        long tsVal;
        long tsEcr;
        byte[] payload;

        @Override
        public String toString() {
            return (v6 ? "IPv6" : "IPv4") + (tagged ? " vlan " + vlanId : "") + " flags " + flags + " mss " + mss
                    + " ws " + windowScale + " sack " + sackPermitted + " ts " + timestamps
                    + " payload " + payload.length;
        }
    }

    private static int docIpv4(int n) {
        // RFC 5737 documentation ranges: 192.0.2.0/24 and 198.51.100.0/24
        return n < 256 ? IpAddress.ipv4(192, 0, 2, n) : IpAddress.ipv4(198, 51, 100, n - 256);
    }

    @Provide
    Arbitrary<Spec> specs() {
        Arbitrary<Long> mac = Arbitraries.longs().between(0, 0xff_ffff_ffffL).map(v -> 0x02_0000_0000_00L | v);
        Arbitrary<Long> docHi = Arbitraries.longs().between(0, 0xffff_ffffL).map(v -> 0x2001_0db8_0000_0000L | v);
        Arbitrary<Integer> docV4 = Arbitraries.integers().between(0, 511).map(FrameProperties::docIpv4);
        Arbitrary<Integer> u16 = Arbitraries.integers().between(0, 0xffff);
        Arbitrary<Long> u32 = Arbitraries.longs().between(0, 0xffff_ffffL);
        return Builders.withBuilder(Spec::new)
                .use(mac).in((s, v) -> { s.dstMac = v; return s; })
                .use(mac).in((s, v) -> { s.srcMac = v; return s; })
                .use(Arbitraries.of(true, false)).in((s, v) -> { s.tagged = v; return s; })
                .use(Arbitraries.integers().between(0, 7)).in((s, v) -> { s.pcp = v; return s; })
                .use(Arbitraries.of(true, false)).in((s, v) -> { s.dei = v; return s; })
                .use(Arbitraries.integers().between(0, 4095)).in((s, v) -> { s.vlanId = v; return s; })
                .use(Arbitraries.of(true, false)).in((s, v) -> { s.v6 = v; return s; })
                .use(docV4).in((s, v) -> { s.src4 = v; return s; })
                .use(docV4).in((s, v) -> { s.dst4 = v; return s; })
                .use(docHi).in((s, v) -> { s.srcHi = v; return s; })
                .use(Arbitraries.longs()).in((s, v) -> { s.srcLo = v; return s; })
                .use(docHi).in((s, v) -> { s.dstHi = v; return s; })
                .use(Arbitraries.longs()).in((s, v) -> { s.dstLo = v; return s; })
                .use(Arbitraries.integers().between(0, 255)).in((s, v) -> { s.tos = v; return s; })
                .use(u16).in((s, v) -> { s.identification = v; return s; })
                .use(Arbitraries.of(true, false)).in((s, v) -> { s.dontFragment = v; return s; })
                .use(Arbitraries.integers().between(0, 255)).in((s, v) -> { s.ttl = v; return s; })
                .use(Arbitraries.integers().between(0, 0xfffff)).in((s, v) -> { s.flowLabel = v; return s; })
                .use(u16).in((s, v) -> { s.sourcePort = v; return s; })
                .use(u16).in((s, v) -> { s.destinationPort = v; return s; })
                .use(u32).in((s, v) -> { s.seq = v; return s; })
                .use(u32).in((s, v) -> { s.ack = v; return s; })
                .use(Arbitraries.integers().between(0, 255)).in((s, v) -> { s.flags = v; return s; })
                .use(u16).in((s, v) -> { s.window = v; return s; })
                .use(u16).in((s, v) -> { s.urgent = v; return s; })
                .use(Arbitraries.integers().between(-1, 0xffff)).in((s, v) -> { s.mss = v; return s; })
                .use(Arbitraries.integers().between(-1, 255)).in((s, v) -> { s.windowScale = v; return s; })
                .use(Arbitraries.of(true, false)).in((s, v) -> { s.sackPermitted = v; return s; })
                .use(Arbitraries.of(true, false)).in((s, v) -> { s.timestamps = v; return s; })
                .use(u32).in((s, v) -> { s.tsVal = v; return s; })
                .use(u32).in((s, v) -> { s.tsEcr = v; return s; })
                .use(Arbitraries.bytes().array(byte[].class).ofMaxSize(300)).in((s, v) -> { s.payload = v; return s; })
                .build();
    }

    private static final TcpPacketBuilder BUILDER = new TcpPacketBuilder();

    /** Build the frame a spec describes into a fresh array of exactly its length. */
    static byte[] build(Spec s) {
        TcpPacketBuilder b = BUILDER.reset().ethernet(s.dstMac, s.srcMac)
                .tos(s.tos).identification(s.identification).dontFragment(s.dontFragment).ttl(s.ttl)
                .flowLabel(s.flowLabel);
        if (s.tagged) {
            b.vlan(s.pcp, s.dei, s.vlanId);
        }
        if (s.v6) {
            b.ipv6(s.srcHi, s.srcLo, s.dstHi, s.dstLo);
        } else {
            b.ipv4(s.src4, s.dst4);
        }
        b.tcp().ports(s.sourcePort, s.destinationPort).sequenceNumber(s.seq).acknowledgmentNumber(s.ack)
                .flags(s.flags).window(s.window).urgentPointer(s.urgent)
                .mss(s.mss).windowScale(s.windowScale).sackPermitted(s.sackPermitted);
        if (s.timestamps) {
            b.tcp().timestamps(s.tsVal, s.tsEcr);
        }
        byte[] out = new byte[b.headersLength() + s.payload.length];
        int len = b.build(Ref.store(out), 0, Ref.store(s.payload), 0, s.payload.length);
        assertEquals(out.length, len);
        return out;
    }

    @Property(tries = 400)
    void buildThenParseAnswersTheSameFields(@ForAll("specs") Spec s) {
        byte[] f = build(s);
        TcpPacket p = new TcpPacket();
        assertEquals(TcpPacket.Status.ACCEPTED, p.wrap(Ref.store(f), 0, f.length).validate(), s.toString());
        EthernetFrame e = p.ethernet();
        assertEquals(s.dstMac, e.destination());
        assertEquals(s.srcMac, e.source());
        assertEquals(s.tagged, e.hasVlanTag());
        assertEquals(s.tagged ? s.vlanId : -1, p.vlanId());
        if (s.tagged) {
            assertEquals(s.pcp, e.pcp());
            assertEquals(s.dei, e.dei());
        }
        assertEquals(s.v6, p.isIpv6());
        if (s.v6) {
            Ipv6Header ip = p.ipv6();
            assertEquals(s.tos, ip.trafficClass());
            assertEquals(s.flowLabel, ip.flowLabel());
            assertEquals(s.ttl, ip.hopLimit());
            assertEquals(s.srcHi, ip.sourceHi());
            assertEquals(s.srcLo, ip.sourceLo());
            assertEquals(s.dstHi, ip.destinationHi());
            assertEquals(s.dstLo, ip.destinationLo());
            assertEquals(s.srcHi, p.sourceHi());
            assertEquals(s.dstLo, p.destinationLo());
        } else {
            Ipv4Header ip = p.ipv4();
            assertEquals(s.tos, ip.tos());
            assertEquals(s.identification, ip.identification());
            assertEquals(s.dontFragment, ip.dontFragment());
            assertEquals(s.ttl, ip.ttl());
            assertEquals(s.src4, ip.source());
            assertEquals(s.dst4, ip.destination());
            assertEquals(IpAddress.mappedLo(s.src4), p.sourceLo());
            assertEquals(IpAddress.IPV4_MAPPED_HI, p.destinationHi());
            assertEquals(IpAddress.mappedLo(s.dst4), p.destinationLo());
        }
        TcpHeader t = p.tcp();
        assertEquals(s.sourcePort, t.sourcePort());
        assertEquals(s.destinationPort, t.destinationPort());
        assertEquals(s.seq, t.sequenceNumber());
        assertEquals(s.ack, t.acknowledgmentNumber());
        assertEquals(s.flags, t.flags());
        assertEquals(s.window, t.window());
        assertEquals(s.urgent, t.urgentPointer());
        assertEquals(s.mss, t.mss());
        assertEquals(s.windowScale, t.windowScaleRaw());
        assertEquals(s.windowScale < 0 ? -1 : Math.min(14, s.windowScale), t.windowScale());
        assertEquals(s.sackPermitted, t.sackPermitted());
        assertEquals(s.timestamps, t.hasTimestamps());
        assertEquals(s.timestamps ? s.tsVal : 0, t.tsVal());
        assertEquals(s.timestamps ? s.tsEcr : 0, t.tsEcr());
        assertEquals(s.payload.length, p.tcpPayloadLength());
        assertEquals(Ref.toHex(s.payload, 0, s.payload.length),
                Ref.toHex(f, (int) p.tcpPayloadOffset(), (int) p.tcpPayloadLength()));
        assertTrue(referenceChecksumsHold(f, p));
    }

    // ---- hostile input ----

    /** Every accessor of every layer, as a string: used to compare two parses and to prove none throws. */
    static String readEverything(TcpPacket p) {
        StringBuilder sb = new StringBuilder();
        EthernetFrame e = p.ethernet();
        sb.append(e.destination()).append(e.source()).append(e.etherType()).append(e.vlanId()).append(e.pcp())
                .append(e.dei()).append(e.payloadOffset()).append(e.payloadLength()).append('|');
        Ipv4Header a = p.ipv4();
        sb.append(a.version()).append(a.ihl()).append(a.tos()).append(a.dscp()).append(a.ecn())
                .append(a.totalLength()).append(a.identification()).append(a.dontFragment())
                .append(a.moreFragments()).append(a.reservedFlag()).append(a.fragmentOffset()).append(a.ttl())
                .append(a.protocol()).append(a.headerChecksum()).append(a.source()).append(a.destination())
                .append(a.payloadOffset()).append(a.payloadLength()).append('|');
        Ipv6Header b = p.ipv6();
        sb.append(b.version()).append(b.trafficClass()).append(b.flowLabel()).append(b.payloadLength())
                .append(b.nextHeader()).append(b.hopLimit()).append(b.sourceHi()).append(b.sourceLo())
                .append(b.destinationHi()).append(b.destinationLo()).append('|');
        TcpHeader t = p.tcp();
        sb.append(t.sourcePort()).append(t.destinationPort()).append(t.sequenceNumber())
                .append(t.acknowledgmentNumber()).append(t.dataOffset()).append(t.reservedBits()).append(t.flags())
                .append(t.fin()).append(t.syn()).append(t.rst()).append(t.psh()).append(t.ack()).append(t.urg())
                .append(t.ece()).append(t.cwr()).append(t.window()).append(t.checksum()).append(t.urgentPointer())
                .append(t.mss()).append(t.windowScale()).append(t.windowScaleRaw()).append(t.windowScaleClamped())
                .append(t.sackPermitted()).append(t.hasTimestamps()).append(t.tsVal()).append(t.tsEcr())
                .append(t.payloadOffset()).append(t.payloadLength()).append('|');
        sb.append(p.isIpv6()).append(p.vlanId()).append(p.ipOffset()).append(p.tcpOffset())
                .append(p.tcpPayloadOffset()).append(p.tcpPayloadLength())
                .append(p.sourceHi()).append(p.sourceLo()).append(p.destinationHi()).append(p.destinationLo());
        return sb.toString();
    }

    /** Validate {@code len} bytes at {@code off}; answer status, failure offset and, if accepted, every field. */
    static String outcome(byte[] store, int off, long len) {
        TcpPacket p = new TcpPacket();
        TcpPacket.Status s = p.wrap(Ref.store(store), off, len).validate();
        String r = s + "@" + p.failedAt();
        if (s.accepted()) {
            r += " " + readEverything(p);
        } else {
            readEverything(p); // must not throw either
        }
        return r;
    }

    /**
     * The same frame embedded in foreign bytes must parse exactly as on its own: a parser that looked one
     * byte before or after its range would see the filler.
     */
    static String outcomeChecked(byte[] f, byte filler) {
        String alone = outcome(f, 0, f.length);
        byte[] big = new byte[f.length + 64];
        Arrays.fill(big, filler);
        System.arraycopy(f, 0, big, 32, f.length);
        assertEquals(alone, outcome(big, 32, f.length), "frame between foreign bytes");
        // A length longer than the store is cut at the store's end, never read past it.
        assertEquals(alone, outcome(f, 0, f.length + 1000L), "lying length");
        return alone;
    }

    static boolean referenceChecksumsHold(byte[] f, TcpPacket p) {
        int ip = p.ipOffset();
        int tcp = p.tcpOffset();
        int seg = (int) p.tcp().length();
        if (p.isIpv6()) {
            return Ref.sum(Ref.ipv6PseudoAndSegment(f, ip, tcp, seg), 0, 40 + seg) == 0xffff;
        }
        int hl = (f[ip] & 0x0f) * 4;
        return Ref.sum(f, ip, hl) == 0xffff
                && Ref.sum(Ref.ipv4PseudoAndSegment(f, ip, tcp, seg), 0, 12 + seg) == 0xffff;
    }

    @Property(tries = 1000)
    void randomBytesNeverThrow(@ForAll @Size(max = 200) byte[] bytes, @ForAll @IntRange(max = 4) int shape,
                               @ForAll byte filler) {
        byte[] f = bytes.clone();
        // Steer some inputs past the Ethernet layer so the IP and TCP rules see random bytes too.
        if (shape == 1 && f.length > 15) {
            Ref.put16(f, 12, 0x0800);
            f[14] = 0x45;
        } else if (shape == 2 && f.length > 15) {
            Ref.put16(f, 12, 0x86dd);
            f[14] = 0x60;
        } else if (shape == 3 && f.length > 19) {
            Ref.put16(f, 12, 0x8100);
            Ref.put16(f, 16, 0x0800);
            f[18] = 0x45;
        } else if (shape == 4 && f.length > 36) {
            Ref.put16(f, 12, 0x0800);
            f[14] = 0x45;
            Ref.put16(f, 16, f.length - 14);
            f[23] = 6;
            Ref.fixIpv4Checksum(f, 14); // random TCP header behind a valid IPv4 header
        }
        outcomeChecked(f, filler);
    }

    @Property(tries = 1000)
    void truncatedFramesAreRejectedWithoutThrowing(@ForAll("specs") Spec s, @ForAll @IntRange(max = 100_000) int cut) {
        byte[] f = build(s);
        int n = cut % f.length;
        String r = outcomeChecked(Arrays.copyOf(f, n), (byte) 0);
        assertFalse(r.startsWith("ACCEPTED"), r);
    }

    @Property(tries = 2000)
    void aMutatedByteNeverThrowsAndIsCaughtInsideChecksummedRanges(
            @ForAll("specs") Spec s, @ForAll @IntRange(max = 100_000) int where, @ForAll byte value,
            @ForAll boolean singleBit, @ForAll @IntRange(max = 7) int bit) {
        byte[] f = build(s);
        int at = where % f.length;
        byte before = f[at];
        byte after = singleBit ? (byte) (before ^ (1 << bit)) : (value == before ? (byte) ~value : value);
        f[at] = after;

        String r = outcomeChecked(f, (byte) 0xa5);
        if (r.startsWith("ACCEPTED")) {
            TcpPacket p = new TcpPacket();
            p.wrap(Ref.store(f), 0, f.length).validate();
            assertTrue(referenceChecksumsHold(f, p), "accepted with checksums the reference rejects: " + r);
            assertFalse(insideChecksummedRange(s, f.length, at), "byte " + at + " changed and still accepted: " + s);
        }
    }

    /**
     * Bytes of the original frame covered by a checksum whose range they do not themselves decide:
     * IPv4 header after its first byte (the IHL sets the header checksum's extent) through the end of the
     * segment; for IPv6 the next header, the addresses (pseudo-header) and the segment, but not the payload
     * length, which decides the extent of the TCP checksum (a shorter length with a coincidentally matching
     * sum is a legitimate, if unlikely, different frame).
     */
    static boolean insideChecksummedRange(Spec s, int frameLength, int at) {
        int ip = s.tagged ? 18 : 14;
        // The builder writes no padding: the datagram runs to the end of the frame.
        if (!s.v6) {
            return at >= ip + 1 && at < frameLength;
        }
        return at == ip + 6 || (at >= ip + 8 && at < frameLength);
    }

    @Property(tries = 1000)
    void aMutatedWordIsCaughtUnlessItSwapsTheTwoZeros(@ForAll("specs") Spec s,
                                                       @ForAll @IntRange(max = 100_000) int where,
                                                       @ForAll @IntRange(max = 0xffff) int value) {
        byte[] f = build(s);
        int ip = s.tagged ? 18 : 14;
        int tcp = ip + (s.v6 ? 40 : 20);
        // An even offset in the segment, or in the IPv4 header after its first word, so that the word lines
        // up with the checksum's own 16-bit words.
        int first = s.v6 ? tcp : ip + 2;
        int words = (f.length - first) / 2;
        int at = first + 2 * (where % words);
        int old = Ref.u16(f, at);
        int neu = value == old ? value ^ 0x8000 : value;
        Ref.put16(f, at, neu);
        boolean zeros = (old == 0 && neu == 0xffff) || (old == 0xffff && neu == 0);
        String r = outcomeChecked(f, (byte) 0);
        if (zeros) {
            // RFC 1071 §1: one's complement has two zeros, so swapping them leaves every sum as it was; the
            // change is invisible to the checksum by construction (whether another rule notices depends on
            // the field). Show that the reference sums over the original layout indeed still verify.
            TcpPacket original = new TcpPacket();
            byte[] o = build(s);
            assertEquals(TcpPacket.Status.ACCEPTED, original.wrap(Ref.store(o), 0, o.length).validate());
            assertTrue(referenceChecksumsHold(f, original), "0000/ffff swap changed a sum: " + s);
        } else {
            assertFalse(r.startsWith("ACCEPTED"), "word at " + at + " " + old + " -> " + neu + " accepted: " + s);
        }
    }
}
