package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * Properties of the ARP and ICMP / ICMPv6 codecs, as {@link FrameProperties} states them for the TCP path: what
 * the builders write parses back to the same fields, and no input (random, mutated, truncated, between foreign
 * bytes, wrapped with a lying length) makes a parser throw or read outside its bytes; a changed byte inside a
 * checksummed message is always caught.
 */
class ArpIcmpProperties {
    private static final long DOC_HI = 0x2001_0db8_0000_0000L;

    // ---- round trips ----

    @Property(tries = 500)
    void arpBuildThenParseAnswersTheSameFields(@ForAll boolean reply, @ForAll @LongRange(max = 0xffff_ffff_ffffL)
            long senderMac, @ForAll int senderIp, @ForAll @LongRange(max = 0xffff_ffff_ffffL) long targetMac,
                                                @ForAll int targetIp, @ForAll @IntRange(max = 40) int at) {
        byte[] b = new byte[at + ArpPacket.LENGTH];
        int op = reply ? ArpPacket.REPLY : ArpPacket.REQUEST;
        assertEquals(ArpPacket.LENGTH, ArpPacket.write(Ref.store(b), at, op, senderMac, senderIp, targetMac,
                targetIp));
        ArpPacket p = new ArpPacket();
        assertEquals(ArpPacket.Status.ACCEPTED, p.wrap(Ref.store(b), at, ArpPacket.LENGTH).validate());
        assertEquals(op, p.operation());
        assertEquals(senderMac, p.senderMac());
        assertEquals(senderIp, p.senderIp());
        assertEquals(targetMac, p.targetMac());
        assertEquals(targetIp, p.targetIp());
    }

    /** An echo message (type, identifier, sequence, data) with its checksum, v6 over the given addresses. */
    static byte[] echo(boolean v6, int identifier, int sequence, byte[] data, long srcLo, long dstLo) {
        byte[] b = new byte[IcmpMessage.HEADER_LENGTH + data.length];
        IcmpMessage.writeEchoHeader(Ref.store(b), 0, v6 ? IcmpMessage.ECHO6_REQUEST : IcmpMessage.ECHO_REQUEST,
                identifier, sequence);
        System.arraycopy(data, 0, b, IcmpMessage.HEADER_LENGTH, data.length);
        IcmpMessage.writeChecksum(Ref.store(b), 0, b.length, v6 ? InternetChecksum.ipv6PseudoHeaderSum(DOC_HI,
                srcLo, DOC_HI, dstLo, b.length, IcmpMessage.PROTOCOL_ICMPV6) : 0);
        return b;
    }

    private static IcmpMessage.Status validate(IcmpMessage m, boolean v6, long srcLo, long dstLo) {
        return v6 ? m.validateV6(DOC_HI, srcLo, DOC_HI, dstLo) : m.validateV4();
    }

    @Property(tries = 500)
    void echoBuildThenParseAnswersTheSameFieldsAndTheReferenceChecksumAgrees(
            @ForAll boolean v6, @ForAll @IntRange(max = 0xffff) int identifier,
            @ForAll @IntRange(max = 0xffff) int sequence, @ForAll @Size(max = 300) byte[] data, @ForAll long srcLo,
            @ForAll long dstLo) {
        byte[] b = echo(v6, identifier, sequence, data, srcLo, dstLo);
        IcmpMessage m = new IcmpMessage();
        assertEquals(IcmpMessage.Status.ACCEPTED, validate(m.wrap(Ref.store(b), 0, b.length), v6, srcLo, dstLo));
        assertEquals(v6 ? IcmpMessage.ECHO6_REQUEST : IcmpMessage.ECHO_REQUEST, m.type());
        assertEquals(0, m.code());
        assertEquals(identifier, m.identifier());
        assertEquals(sequence, m.sequence());
        assertEquals(b.length, m.length());
        if (!v6) {
            assertEquals(0xffff, Ref.sum(b, 0, b.length), "RFC 1071 byte by byte: the message sums to all ones");
        }
    }

    @Property(tries = 500)
    void advertisementBuildThenParseAnswersTheSameFields(@ForAll @IntRange(max = 0xff) int flags,
                                                         @ForAll long targetLo,
                                                         @ForAll @LongRange(max = 0xffff_ffff_ffffL) long mac,
                                                         @ForAll long dstLo) {
        byte[] b = new byte[IcmpMessage.ND_LENGTH + IcmpMessage.LINK_LAYER_OPTION_LENGTH];
        assertEquals(b.length, IcmpMessage.writeNeighborAdvertisement(Ref.store(b), 0, flags, DOC_HI, targetLo,
                mac));
        IcmpMessage.writeChecksum(Ref.store(b), 0, b.length, InternetChecksum.ipv6PseudoHeaderSum(DOC_HI, 1, DOC_HI,
                dstLo, b.length, IcmpMessage.PROTOCOL_ICMPV6));
        IcmpMessage m = new IcmpMessage().wrap(Ref.store(b), 0, b.length);
        assertEquals(IcmpMessage.Status.ACCEPTED, m.validateV6(DOC_HI, 1, DOC_HI, dstLo));
        assertEquals(IcmpMessage.Status.ACCEPTED, m.validateNeighborDiscovery(255, false, false, false));
        assertEquals(IcmpMessage.NEIGHBOR_ADVERTISEMENT, m.type());
        assertEquals(flags & 0xe0, m.flags());
        assertEquals(0, b[4] & 0x1f, "RFC 4861 §4.4: the reserved bits are zero");
        assertEquals(DOC_HI, m.targetHi());
        assertEquals(targetLo, m.targetLo());
        assertEquals(mac, m.linkLayerOption(IcmpMessage.OPTION_TARGET_LINK_LAYER));
        assertEquals(-1, m.linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER));
    }

    // ---- hostile input ----

    /** Every rule and accessor of both codecs over {@code len} bytes at {@code off}, as one string. */
    static String outcome(byte[] store, int off, long len, int hopLimit, boolean unspecified, boolean solicitedNode,
                          boolean multicast) {
        StringBuilder sb = new StringBuilder();
        ArpPacket a = new ArpPacket().wrap(Ref.store(store), off, len);
        sb.append(a.validate()).append('@').append(a.failedAt()).append(' ').append(a.operation()).append(' ')
                .append(a.senderMac()).append(' ').append(a.senderIp()).append(' ').append(a.targetMac()).append(' ')
                .append(a.targetIp()).append('|');
        IcmpMessage m = new IcmpMessage().wrap(Ref.store(store), off, len);
        sb.append(m.validateV4()).append('@').append(m.failedAt()).append(' ')
                .append(m.validateV6(DOC_HI, 2, DOC_HI, 1)).append('@').append(m.failedAt()).append(' ')
                .append(m.validateNeighborDiscovery(hopLimit, unspecified, solicitedNode, multicast)).append('@')
                .append(m.failedAt()).append(' ').append(m.type()).append(' ').append(m.code()).append(' ')
                .append(m.checksum()).append(' ').append(m.identifier()).append(' ').append(m.sequence()).append(' ')
                .append(m.flags()).append(' ').append(m.targetHi()).append(' ').append(m.targetLo()).append(' ')
                .append(m.linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER)).append(' ')
                .append(m.linkLayerOption(IcmpMessage.OPTION_TARGET_LINK_LAYER));
        return sb.toString();
    }

    /**
     * The same bytes between foreign ones, and wrapped with a length past the store, parse exactly as on their
     * own: a parser that looked one byte before or after its range would see the filler.
     */
    static String outcomeChecked(byte[] b, byte filler, int hopLimit, boolean unspecified, boolean solicitedNode,
                                 boolean multicast) {
        String alone = outcome(b, 0, b.length, hopLimit, unspecified, solicitedNode, multicast);
        byte[] big = new byte[b.length + 64];
        Arrays.fill(big, filler);
        System.arraycopy(b, 0, big, 32, b.length);
        assertEquals(alone, outcome(big, 32, b.length, hopLimit, unspecified, solicitedNode, multicast),
                "between foreign bytes");
        assertEquals(alone, outcome(b, 0, b.length + 1000L, hopLimit, unspecified, solicitedNode, multicast),
                "lying length");
        return alone;
    }

    @Property(tries = 1000)
    void randomBytesNeverThrowAndReadOnlyTheirOwn(@ForAll @Size(max = 120) byte[] bytes,
                                                  @ForAll @IntRange(max = 3) int shape, @ForAll byte filler,
                                                  @ForAll @IntRange(min = 254, max = 255) int hopLimit,
                                                  @ForAll boolean unspecified, @ForAll boolean solicitedNode,
                                                  @ForAll boolean multicast) {
        byte[] b = bytes.clone();
        // Steer some inputs past the first rules so the later ones see random bytes too.
        if (shape == 1 && b.length >= ArpPacket.LENGTH) {
            System.arraycopy(Ref.hex("0001 0800 06 04 0001"), 0, b, 0, 8);
        } else if (shape == 2 && b.length >= IcmpMessage.ND_LENGTH) {
            b[0] = (byte) IcmpMessage.NEIGHBOR_SOLICITATION;
            b[1] = 0;
            b[8] = 0x20;
        } else if (shape == 3 && b.length >= IcmpMessage.ND_LENGTH) {
            b[0] = (byte) IcmpMessage.NEIGHBOR_ADVERTISEMENT;
            b[1] = 0;
            b[8] = 0x20;
        }
        outcomeChecked(b, filler, hopLimit, unspecified, solicitedNode, multicast);
    }

    @Property(tries = 500)
    void everyPrefixOfAGoodMessageIsHandledWithoutThrowing(@ForAll @IntRange(max = 100_000) int cut,
                                                           @ForAll @IntRange(max = 2) int which) {
        byte[] good = which == 0 ? Ref.hex(ArpPacketTest.REQUEST)
                : Ref.hex(which == 1 ? IcmpMessageTest.SOLICITATION : IcmpMessageTest.ECHO);
        int n = cut % good.length;
        String r = outcomeChecked(Arrays.copyOf(good, n), (byte) 0xff, 255, false, true, true);
        assertFalse(r.startsWith("ACCEPTED"), "no prefix is an ARP packet: " + r);
        if (n < IcmpMessage.HEADER_LENGTH) {
            assertTrue(r.contains("|TRUNCATED@0 TRUNCATED@0"), r);
        }
    }

    @Property(tries = 2000)
    void aChangedByteOfAnEchoIsAlwaysCaughtByItsChecksum(@ForAll boolean v6, @ForAll @Size(max = 100) byte[] data,
                                                         @ForAll @IntRange(max = 100_000) int where,
                                                         @ForAll byte value) {
        byte[] b = echo(v6, 0x4242, 7, data, 2, 1);
        int at = where % b.length;
        byte before = b[at];
        b[at] = value == before ? (byte) ~value : value;
        // RFC 1071 §1: one byte moves its 16-bit word by a non-zero multiple of 1 or 256 less than 0xffff, which
        // the one's complement sum cannot absorb (only a whole word swapping 0x0000 and 0xffff can)
        IcmpMessage m = new IcmpMessage().wrap(Ref.store(b), 0, b.length);
        assertEquals(IcmpMessage.Status.BAD_CHECKSUM, validate(m, v6, 2, 1), "byte " + at);
        assertEquals(2, m.failedAt());
        outcomeChecked(b, (byte) 0x5a, 255, false, false, false);
    }

    @Property(tries = 1000)
    void aChangedArpHeaderByteIsRejectedAndAChangedAddressIsRead(@ForAll @IntRange(max = 27) int at,
                                                                  @ForAll byte value) {
        byte[] b = Ref.hex(ArpPacketTest.REQUEST);
        byte before = b[at];
        b[at] = value == before ? (byte) (value ^ 0x10) : value;
        ArpPacket p = new ArpPacket().wrap(Ref.store(b), 0, b.length);
        ArpPacket.Status s = p.validate();
        if (at < 6) {
            assertEquals(ArpPacket.Status.NOT_ETHERNET_IPV4, s);
            assertEquals(at < 2 ? 0 : at < 4 ? 2 : at, p.failedAt());
        } else if (at < 8) {
            // operation 1 changed: accepted only when it became 2 (a reply), anything else is no operation
            assertEquals(Ref.u16(b, 6) == ArpPacket.REPLY ? ArpPacket.Status.ACCEPTED
                    : ArpPacket.Status.UNKNOWN_OPERATION, s);
        } else {
            assertEquals(ArpPacket.Status.ACCEPTED, s);
            ArpPacket original = new ArpPacket().wrap(Ref.store(Ref.hex(ArpPacketTest.REQUEST)), 0, 28);
            original.validate();
            String changed = p.senderMac() + " " + p.senderIp() + " " + p.targetMac() + " " + p.targetIp();
            String was = original.senderMac() + " " + original.senderIp() + " " + original.targetMac() + " "
                    + original.targetIp();
            assertNotEquals(was, changed, "the changed address byte shows in a field");
        }
    }
}
