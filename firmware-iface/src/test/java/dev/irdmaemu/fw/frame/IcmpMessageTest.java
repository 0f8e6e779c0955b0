package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ICMP (RFC 792) and ICMPv6 (RFC 4443, Neighbor Discovery RFC 4861) messages with known bytes. The checksums
 * below were computed independently of the codec and cross-checked with tshark ("[correct]").
 */
class IcmpMessageTest {
    /** RFC 792 Echo: type 8, code 0, checksum, identifier 1, sequence 1, 32 bytes "abcdefghijklmnopqrstuvwabcdefghi". */
    static final String ECHO = "08 00 4d5a 0001 0001" + "6162636465666768696a6b6c6d6e6f7071727374757677616263646566676869";
    /** RFC 4443 §4.1 Echo Request 2001:db8::2 -> 2001:db8::1: identifier 0x1234, sequence 7, data 00..07. */
    static final String ECHO6 = "80 00 05f5 1234 0007 0001020304050607";
    /**
     * RFC 4861 §4.3 Neighbor Solicitation 2001:db8::2 -> ff02::1:ff00:1 for target 2001:db8::1, with the source
     * link-layer address option (§4.6.1: type 1, length 1 unit of 8 octets) 02:00:00:00:00:02.
     */
    static final String SOLICITATION = "87 00 1c27 00000000 20010db8000000000000000000000001 01 01 020000000002";
    /**
     * RFC 4861 §4.4 Neighbor Advertisement 2001:db8::1 -> 2001:db8::2: Solicited and Override (R clear), target
     * 2001:db8::1, target link-layer address option (type 2) 02:00:00:00:00:01.
     */
    static final String ADVERTISEMENT = "88 00 8a73 60000000 20010db8000000000000000000000001 02 01 020000000001";

    static final long DOC_HI = 0x2001_0db8_0000_0000L;
    static final long SOLICITED_HI = 0xff02_0000_0000_0000L;
    static final long SOLICITED_LO = 0x0000_0001_ff00_0001L;

    private final IcmpMessage icmp = new IcmpMessage();

    private IcmpMessage wrap(byte[] b) {
        return icmp.wrap(Ref.store(b), 0, b.length);
    }

    @Test
    void echoFields() {
        byte[] b = Ref.hex(ECHO);
        assertEquals(IcmpMessage.Status.ACCEPTED, wrap(b).validateV4());
        assertEquals(-1, icmp.failedAt());
        assertEquals(IcmpMessage.ECHO_REQUEST, icmp.type());
        assertEquals(0, icmp.code());
        assertEquals(0x4d5a, icmp.checksum());
        assertEquals(1, icmp.identifier());
        assertEquals(1, icmp.sequence());
        assertEquals(40, icmp.length());
    }

    @Test
    void echoHeaderBuilderAndChecksumWriteTheKnownBytes() {
        byte[] out = new byte[44];
        BytesStore<?, byte[]> s = Ref.store(out);
        assertEquals(8, IcmpMessage.writeEchoHeader(s, 2, IcmpMessage.ECHO_REQUEST, 1, 1));
        System.arraycopy(Ref.hex(ECHO), 8, out, 10, 32);
        IcmpMessage.writeChecksum(s, 2, 40, 0);
        assertEquals("0000" + ECHO.replace(" ", "") + "0000", Ref.toHex(out, 0, 44));
        assertThrows(IllegalArgumentException.class, () -> IcmpMessage.writeEchoHeader(s, 40, 8, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> IcmpMessage.writeChecksum(s, 2, 43, 0),
                "the range reaches past the buffer");
        assertThrows(IllegalArgumentException.class, () -> IcmpMessage.writeChecksum(s, 2, 3, 0),
                "no room for the checksum field");
    }

    @Test
    void echo6ChecksumCoversThePseudoHeader() {
        byte[] b = Ref.hex(ECHO6);
        assertEquals(IcmpMessage.Status.ACCEPTED, wrap(b).validateV6(DOC_HI, 2, DOC_HI, 1));
        assertEquals(IcmpMessage.ECHO6_REQUEST, icmp.type());
        assertEquals(0x1234, icmp.identifier());
        assertEquals(7, icmp.sequence());
        // the same bytes between other addresses (RFC 4443 §2.3): the pseudo-header no longer matches
        assertEquals(IcmpMessage.Status.BAD_CHECKSUM, icmp.validateV6(DOC_HI, 3, DOC_HI, 1));
        assertEquals(2, icmp.failedAt());
        assertEquals(IcmpMessage.Status.BAD_CHECKSUM, icmp.validateV4(), "no pseudo-header: not an ICMP checksum");
    }

    @Test
    void solicitationFields() {
        byte[] b = Ref.hex(SOLICITATION);
        assertEquals(IcmpMessage.Status.ACCEPTED, wrap(b).validateV6(DOC_HI, 2, SOLICITED_HI, SOLICITED_LO));
        assertEquals(IcmpMessage.Status.ACCEPTED, icmp.validateNeighborDiscovery(255, false, true, true));
        assertEquals(IcmpMessage.NEIGHBOR_SOLICITATION, icmp.type());
        assertEquals(DOC_HI, icmp.targetHi());
        assertEquals(1, icmp.targetLo());
        assertEquals(0x02_00_00_00_00_02L, icmp.linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER));
        assertEquals(-1, icmp.linkLayerOption(IcmpMessage.OPTION_TARGET_LINK_LAYER));
    }

    @Test
    void advertisementBuilderWritesTheKnownBytes() {
        byte[] out = new byte[34];
        BytesStore<?, byte[]> s = Ref.store(out);
        assertEquals(32, IcmpMessage.writeNeighborAdvertisement(s, 1,
                IcmpMessage.FLAG_SOLICITED | IcmpMessage.FLAG_OVERRIDE | 0x1f, DOC_HI, 1, 0x02_00_00_00_00_01L));
        IcmpMessage.writeChecksum(s, 1, 32, InternetChecksum.ipv6PseudoHeaderSum(DOC_HI, 1, DOC_HI, 2, 32,
                IcmpMessage.PROTOCOL_ICMPV6));
        assertEquals("00" + ADVERTISEMENT.replace(" ", "") + "00", Ref.toHex(out, 0, 34),
                "flag bits outside R, S, O are not written: RFC 4861 §4.4 Reserved");
        assertEquals(IcmpMessage.Status.ACCEPTED, icmp.wrap(s, 1, 32).validateV6(DOC_HI, 1, DOC_HI, 2));
        assertEquals(IcmpMessage.Status.ACCEPTED, icmp.validateNeighborDiscovery(255, false, false, false));
        assertEquals(IcmpMessage.FLAG_SOLICITED | IcmpMessage.FLAG_OVERRIDE, icmp.flags());
        assertEquals(0x02_00_00_00_00_01L, icmp.linkLayerOption(IcmpMessage.OPTION_TARGET_LINK_LAYER));
        assertThrows(IllegalArgumentException.class,
                () -> IcmpMessage.writeNeighborAdvertisement(s, 3, 0, 0, 0, 0));
    }

    @Test
    void linkLayerOptionSkipsOtherOptionsAndNonEthernetLengths() {
        // a nonce option (RFC 3971 §5.3.2, type 14, 1 unit), a source link-layer option of 2 units (not
        // Ethernet's length, so not a MAC), then the Ethernet-sized one
        byte[] b = Ref.hex("87 00 0000 00000000 20010db8000000000000000000000001"
                + "0e01 010203040506" + "0102 0a0b0c0d0e0f 0000000000000000" + "0101 020000000009");
        wrap(b);
        assertEquals(IcmpMessage.Status.ACCEPTED, icmp.validateNeighborDiscovery(255, false, true, true));
        assertEquals(0x02_00_00_00_00_09L, icmp.linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER));
        // an option of length 0 ends the walk: no answer, and no endless loop
        Ref.put16(b, 24, 0x0100);
        assertEquals(-1, wrap(b).linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER));
        // an Ethernet-sized option cut by the end of the message
        byte[] cut = Arrays.copyOf(Ref.hex(SOLICITATION), 30);
        assertEquals(-1, wrap(cut).linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER));
    }

    private static byte[] solicitation(Consumer<byte[]> change) {
        byte[] b = Ref.hex(SOLICITATION);
        change.accept(b);
        return b;
    }

    /** Name, message, hop limit, unspecified source, solicited-node destination, multicast destination. */
    static Stream<Arguments> neighborDiscoveryChecks() {
        byte[] advertisement = Ref.hex(ADVERTISEMENT);
        byte[] unsolicited = Ref.hex(ADVERTISEMENT);
        unsolicited[4] = 0x20;
        return Stream.of(
                Arguments.of("a solicitation", solicitation(b -> { }), 255, false, true, true,
                        IcmpMessage.Status.ACCEPTED, -1),
                Arguments.of("hop limit 254 (routed)", solicitation(b -> { }), 254, false, true, true,
                        IcmpMessage.Status.ND_HOP_LIMIT, -1),
                Arguments.of("code 1", solicitation(b -> b[1] = 1), 255, false, true, true,
                        IcmpMessage.Status.ND_CODE, 1),
                Arguments.of("23 octets", Arrays.copyOf(Ref.hex(SOLICITATION), 23), 255, false, true, true,
                        IcmpMessage.Status.ND_TRUNCATED, 0),
                Arguments.of("multicast target", solicitation(b -> b[8] = (byte) 0xff), 255, false, true, true,
                        IcmpMessage.Status.ND_MULTICAST_TARGET, 8),
                Arguments.of("option of length 0", solicitation(b -> b[25] = 0), 255, false, true, true,
                        IcmpMessage.Status.ND_BAD_OPTION, 24),
                Arguments.of("option reaching past the message", solicitation(b -> b[25] = 2), 255, false, true,
                        true, IcmpMessage.Status.ND_BAD_OPTION, 24),
                Arguments.of("one byte after the last option", Arrays.copyOf(Ref.hex(SOLICITATION), 33), 255, false,
                        true, true, IcmpMessage.Status.ND_BAD_OPTION, 32),
                Arguments.of("DAD probe (unspecified source, solicited-node, no option)",
                        Arrays.copyOf(Ref.hex(SOLICITATION), 24), 255, true, true, true,
                        IcmpMessage.Status.ACCEPTED, -1),
                Arguments.of("unspecified source with a source link-layer option", solicitation(b -> { }), 255,
                        true, true, true, IcmpMessage.Status.ND_UNSPECIFIED_SOURCE, 0),
                Arguments.of("unspecified source to a unicast address", Arrays.copyOf(Ref.hex(SOLICITATION), 24),
                        255, true, false, false, IcmpMessage.Status.ND_UNSPECIFIED_SOURCE, 0),
                Arguments.of("an advertisement", advertisement, 255, false, false, false,
                        IcmpMessage.Status.ACCEPTED, -1),
                Arguments.of("solicited advertisement to a multicast address", advertisement, 255, false, false,
                        true, IcmpMessage.Status.ND_SOLICITED_TO_MULTICAST, 4),
                Arguments.of("unsolicited advertisement to all nodes", unsolicited, 255, false, false, true,
                        IcmpMessage.Status.ACCEPTED, -1));
    }

    @ParameterizedTest(name = "{0} -> {6}")
    @MethodSource("neighborDiscoveryChecks")
    void eachNeighborDiscoveryCheck(String name, byte[] b, int hopLimit, boolean unspecifiedSource,
                                    boolean solicitedNode, boolean multicast, IcmpMessage.Status expected,
                                    int failedAt) {
        assertEquals(expected, wrap(b).validateNeighborDiscovery(hopLimit, unspecifiedSource, solicitedNode,
                multicast));
        assertEquals(failedAt, icmp.failedAt());
    }

    static Stream<Arguments> checksumChecks() {
        byte[] flipped = Ref.hex(ECHO);
        flipped[20] ^= 0x01;
        return Stream.of(
                Arguments.of("the known echo", Ref.hex(ECHO), IcmpMessage.Status.ACCEPTED, -1),
                Arguments.of("empty", new byte[0], IcmpMessage.Status.TRUNCATED, 0),
                Arguments.of("7 bytes", Arrays.copyOf(Ref.hex(ECHO), 7), IcmpMessage.Status.TRUNCATED, 0),
                Arguments.of("one data bit flipped", flipped, IcmpMessage.Status.BAD_CHECKSUM, 2),
                Arguments.of("one byte short", Arrays.copyOf(Ref.hex(ECHO), 39), IcmpMessage.Status.BAD_CHECKSUM, 2),
                // RFC 1071 §1: an odd length is summed as if padded with a zero byte, so one more zero byte is invisible
                Arguments.of("a zero byte more", Arrays.copyOf(Ref.hex(ECHO), 41), IcmpMessage.Status.ACCEPTED, -1));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checksumChecks")
    void eachChecksumCheck(String name, byte[] b, IcmpMessage.Status expected, int failedAt) {
        assertEquals(expected, wrap(b).validateV4());
        assertEquals(failedAt, icmp.failedAt());
    }

    @Test
    void lyingLengthIsCutAtTheEndOfTheStoreAndAnOffsetOutsideItReadsNothing() {
        byte[] b = Arrays.copyOf(Ref.hex(SOLICITATION), 31);
        icmp.wrap(Ref.store(b), 0, 1_000_000);
        assertEquals(31, icmp.length());
        assertEquals(IcmpMessage.Status.ND_BAD_OPTION, icmp.validateNeighborDiscovery(255, false, true, true));
        assertEquals(-1, icmp.linkLayerOption(IcmpMessage.OPTION_SOURCE_LINK_LAYER));
        icmp.wrap(Ref.store(b), 40, 8);
        assertEquals(IcmpMessage.Status.TRUNCATED, icmp.validateV4());
        assertEquals(0, icmp.type());
        icmp.wrap(null, 0, 8);
        assertEquals(IcmpMessage.Status.TRUNCATED, icmp.validateV6(0, 0, 0, 0));
        assertEquals(IcmpMessage.Status.ND_TRUNCATED, icmp.validateNeighborDiscovery(255, false, false, false));
        assertEquals(0, icmp.targetHi());
    }
}
