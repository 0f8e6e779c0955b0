package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EthernetFrameTest {
    private static final String DST = "020000000002";
    private static final String SRC = "020000000001";

    private final EthernetFrame frame = new EthernetFrame();

    @Test
    void untaggedHeaderFields() {
        byte[] b = Ref.hex(DST + SRC + "0800" + "45000000");
        assertEquals(EthernetFrame.Status.ACCEPTED, frame.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(0x020000000002L, frame.destination());
        assertEquals(0x020000000001L, frame.source());
        assertEquals(EthernetFrame.ETHERTYPE_IPV4, frame.etherType());
        assertFalse(frame.hasVlanTag());
        assertEquals(-1, frame.vlanId());
        assertEquals(0, frame.pcp());
        assertEquals(14, frame.payloadOffset());
        assertEquals(4, frame.payloadLength());
        assertEquals(-1, frame.failedAt());
    }

    @Test
    void taggedHeaderFields() {
        // 802.1Q TCI: PCP 7, DEI 0, VID 100 = 0xe064; then PCP 1, DEI 1, VID 4095 = 0x3fff.
        byte[] b = Ref.hex(DST + SRC + "8100e064" + "86dd");
        frame.wrap(Ref.store(b), 0, b.length);
        assertEquals(EthernetFrame.Status.ACCEPTED, frame.validate());
        assertTrue(frame.hasVlanTag());
        assertEquals(7, frame.pcp());
        assertFalse(frame.dei());
        assertEquals(100, frame.vlanId());
        assertEquals(EthernetFrame.ETHERTYPE_IPV6, frame.etherType());
        assertEquals(18, frame.payloadOffset());
        assertEquals(0, frame.payloadLength());

        byte[] c = Ref.hex(DST + SRC + "81003fff" + "0806");
        frame.wrap(Ref.store(c), 0, c.length).validate();
        assertEquals(1, frame.pcp());
        assertTrue(frame.dei());
        assertEquals(4095, frame.vlanId());
        assertEquals(EthernetFrame.ETHERTYPE_ARP, frame.etherType());
    }

    @Test
    void builderWritesTheExactHeaderBytes() {
        byte[] out = new byte[20];
        BytesStore<?, byte[]> s = Ref.store(out);
        assertEquals(14, EthernetFrame.write(s, 2, 0x020000000002L, 0x020000000001L, 0x0800));
        assertEquals("0000" + DST + SRC + "0800" + "00000000", Ref.toHex(out, 0, 20));
        assertEquals(18, EthernetFrame.writeTagged(s, 0, 0x020000000002L, 0x020000000001L, 5, true, 0x123, 0x86dd));
        assertEquals(DST + SRC + "8100b123" + "86dd", Ref.toHex(out, 0, 18));
        // the same tag from a receive descriptor's whole TCI
        assertEquals(18, EthernetFrame.writeTagged(s, 0, 0x020000000002L, 0x020000000001L, 0xb123, 0x86dd));
        assertEquals(DST + SRC + "8100b123" + "86dd", Ref.toHex(out, 0, 18));
        assertThrows(IllegalArgumentException.class, () -> EthernetFrame.write(s, 7, 0, 0, 0x0800));
        assertThrows(IllegalArgumentException.class, () -> EthernetFrame.writeTagged(s, 0, 0, 0, 8, false, 1, 0x0800));
        assertThrows(IllegalArgumentException.class, () -> EthernetFrame.writeTagged(s, 0, 0, 0, 0, false, 4096, 0x0800));
    }

    static Stream<Arguments> checks() {
        return Stream.of(
                Arguments.of("empty", "", EthernetFrame.Status.TRUNCATED, 0L),
                Arguments.of("13 bytes", DST + SRC + "08", EthernetFrame.Status.TRUNCATED, 0L),
                Arguments.of("untagged header only", DST + SRC + "0800", EthernetFrame.Status.ACCEPTED, -1L),
                Arguments.of("TPID, no TCI", DST + SRC + "8100", EthernetFrame.Status.TAG_TRUNCATED, 14L),
                Arguments.of("TPID, TCI, half an inner type", DST + SRC + "8100006408",
                        EthernetFrame.Status.TAG_TRUNCATED, 14L),
                Arguments.of("tagged header only", DST + SRC + "810000640800", EthernetFrame.Status.ACCEPTED, -1L));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checks")
    void eachCheck(String name, String hex, EthernetFrame.Status expected, long failedAt) {
        byte[] b = Ref.hex(hex);
        assertEquals(expected, frame.wrap(Ref.store(b), 0, b.length).validate());
        assertEquals(failedAt, frame.failedAt());
    }

    @Test
    void lyingLengthIsCutAtTheEndOfTheStoreAndAnOffsetOutsideItReadsNothing() {
        byte[] b = Ref.hex(DST + SRC + "8100");
        frame.wrap(Ref.store(b), 0, 1_000_000);
        assertEquals(14, frame.length());
        assertEquals(EthernetFrame.Status.TAG_TRUNCATED, frame.validate());
        frame.wrap(Ref.store(b), 14, 100);
        assertEquals(EthernetFrame.Status.TRUNCATED, frame.validate());
        frame.wrap(Ref.store(b), -5, 100);
        assertEquals(EthernetFrame.Status.TRUNCATED, frame.validate());
        assertEquals(0, frame.destination());
        assertEquals(-1, frame.vlanId());
    }
}
