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

/** ARP for IPv4 over Ethernet, byte by byte as RFC 826 "Packet format" lays it out. */
class ArpPacketTest {
    /**
     * "Who has 192.0.2.1? Tell 192.0.2.2" from 02:00:00:00:00:02: ar$hrd 1 (Ethernet), ar$pro 0x0800, ar$hln 6,
     * ar$pln 4, ar$op 1 (request), ar$sha, ar$spa, ar$tha (unknown: zeros), ar$tpa.
     */
    static final String REQUEST = "0001 0800 06 04 0001 020000000002 c0000202 000000000000 c0000201";
    /** The answer: ar$op 2, the node's hardware and protocol address as sender, the asker as target. */
    static final String REPLY = "0001 0800 06 04 0002 020000000001 c0000201 020000000002 c0000202";

    private final ArpPacket arp = new ArpPacket();

    @Test
    void requestFields() {
        byte[] b = Ref.hex(REQUEST);
        assertEquals(ArpPacket.Status.ACCEPTED, arp.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(-1, arp.failedAt());
        assertEquals(ArpPacket.REQUEST, arp.operation());
        assertEquals(0x02_00_00_00_00_02L, arp.senderMac());
        assertEquals(IpAddress.ipv4(192, 0, 2, 2), arp.senderIp());
        assertEquals(0, arp.targetMac());
        assertEquals(IpAddress.ipv4(192, 0, 2, 1), arp.targetIp());
        assertEquals(28, arp.length());
    }

    @Test
    void builderWritesTheExactReplyBytes() {
        byte[] out = new byte[32];
        BytesStore<?, byte[]> s = Ref.store(out);
        assertEquals(28, ArpPacket.write(s, 2, ArpPacket.REPLY, 0x02_00_00_00_00_01L, IpAddress.ipv4(192, 0, 2, 1),
                0x02_00_00_00_00_02L, IpAddress.ipv4(192, 0, 2, 2)));
        assertEquals("0000" + REPLY.replace(" ", "") + "0000", Ref.toHex(out, 0, 32));
        assertThrows(IllegalArgumentException.class, () -> ArpPacket.write(s, 5, ArpPacket.REQUEST, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> ArpPacket.write(null, 0, ArpPacket.REQUEST, 0, 0, 0, 0));
    }

    private static byte[] request(Consumer<byte[]> change) {
        byte[] b = Ref.hex(REQUEST);
        change.accept(b);
        return b;
    }

    static Stream<Arguments> checks() {
        return Stream.of(
                Arguments.of("a request", request(b -> { }), ArpPacket.Status.ACCEPTED, -1),
                Arguments.of("a reply", Ref.hex(REPLY), ArpPacket.Status.ACCEPTED, -1),
                Arguments.of("empty", new byte[0], ArpPacket.Status.TRUNCATED, 0),
                Arguments.of("27 bytes", Arrays.copyOf(Ref.hex(REQUEST), 27), ArpPacket.Status.TRUNCATED, 0),
                Arguments.of("hardware type 6 (IEEE 802)", request(b -> b[1] = 6),
                        ArpPacket.Status.NOT_ETHERNET_IPV4, 0),
                Arguments.of("protocol type IPv6", request(b -> Ref.put16(b, 2, 0x86dd)),
                        ArpPacket.Status.NOT_ETHERNET_IPV4, 2),
                Arguments.of("hardware address length 8", request(b -> b[4] = 8),
                        ArpPacket.Status.NOT_ETHERNET_IPV4, 4),
                Arguments.of("protocol address length 16", request(b -> b[5] = 16),
                        ArpPacket.Status.NOT_ETHERNET_IPV4, 5),
                Arguments.of("operation 0", request(b -> b[7] = 0), ArpPacket.Status.UNKNOWN_OPERATION, 6),
                Arguments.of("RARP request (3, RFC 903)", request(b -> b[7] = 3),
                        ArpPacket.Status.UNKNOWN_OPERATION, 6),
                Arguments.of("operation 0x0101", request(b -> b[6] = 1), ArpPacket.Status.UNKNOWN_OPERATION, 6),
                Arguments.of("Ethernet padding after the packet", Arrays.copyOf(Ref.hex(REQUEST), 46),
                        ArpPacket.Status.ACCEPTED, -1));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checks")
    void eachCheck(String name, byte[] b, ArpPacket.Status expected, int failedAt) {
        assertEquals(expected, arp.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(failedAt, arp.failedAt());
    }

    @Test
    void lyingLengthIsCutAtTheEndOfTheStoreAndAnOffsetOutsideItReadsNothing() {
        byte[] b = Arrays.copyOf(Ref.hex(REQUEST), 27);
        arp.wrap(Ref.store(b), 0, 1_000_000);
        assertEquals(27, arp.length());
        assertEquals(ArpPacket.Status.TRUNCATED, arp.validate());
        assertEquals(0, arp.targetIp(), "the last field is one byte short: read as 0, not past the store");
        assertEquals(0x02_00_00_00_00_02L, arp.senderMac());
        arp.wrap(Ref.store(b), -8, 100);
        assertEquals(ArpPacket.Status.TRUNCATED, arp.validate());
        assertEquals(0, arp.operation());
        arp.wrap(null, 0, 28);
        assertEquals(ArpPacket.Status.TRUNCATED, arp.validate());
        assertEquals(0, arp.senderMac());
    }

    @Test
    void aPacketBetweenForeignBytesReadsOnlyItsOwn() {
        byte[] big = new byte[28 + 64];
        Arrays.fill(big, (byte) 0xa5);
        System.arraycopy(Ref.hex(REQUEST), 0, big, 32, 28);
        assertEquals(ArpPacket.Status.ACCEPTED, arp.wrap(Ref.store(big), 32, 28).validate());
        assertEquals(IpAddress.ipv4(192, 0, 2, 1), arp.targetIp());
        assertEquals(ArpPacket.Status.TRUNCATED, arp.wrap(Ref.store(big), 32, 27).validate());
        assertEquals(0, arp.targetIp(), "the byte after the window is foreign: the field reads as 0");
    }
}
