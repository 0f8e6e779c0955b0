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

class TcpHeaderTest {
    private final TcpHeader tcp = new TcpHeader();

    /** Ports 12345 -> 4567, seq 0xfedcba98, ack 0x01020304, given data offset and flags, window 0xfaf0. */
    private static String header(int dataOffset, int flags) {
        return String.format("303911d7 fedcba98 01020304 %02x%02x faf0 abcd 0007", dataOffset << 4, flags);
    }

    /** A header with the given options (hex, a multiple of 4 bytes) and data offset to match. */
    private static byte[] withOptions(String options) {
        String o = options.replace(" ", "");
        return Ref.hex(header(5 + o.length() / 8, TcpHeader.ACK) + o);
    }

    private TcpHeader.Status parse(byte[] b) {
        return tcp.wrap(Ref.store(b), 0, b.length).validate();
    }

    /** cm.c irdma_send_syn lays out MSS (kind 2, len 4), window scale (kind 3, len 3) and EOL: 8 option bytes. */
    @Test
    void packedLayoutIsTheOneIrdmaSendSynWrites() {
        BytesStore<?, byte[]> out = Ref.store(new byte[40]);
        int len = new TcpHeader.Builder().ports(12345, 4567).flags(TcpHeader.SYN).window(0xfaf0)
                .mss(1460).windowScale(2).packedWithEndOfList(true).write(out, 0);
        assertEquals(28, len);
        byte[] b = new byte[len];
        out.read(0, b, 0, len);
        assertEquals("020405b4" + "03030200", Ref.toHex(b, 20, 8));
        assertEquals(TcpHeader.Status.ACCEPTED, parse(b));
        assertEquals(1460, tcp.mss());
        assertEquals(2, tcp.windowScale());
    }

    @Test
    void packedLayoutPadsEveryOptionSetToAWordAfterEol() {
        TcpHeader.Builder all = new TcpHeader.Builder().mss(536).sackPermitted(true).timestamps(1, 2).windowScale(7)
                .packedWithEndOfList(true);
        assertEquals(20, all.optionsLength(), "4 + 2 + 10 + 3 + EOL = 20");
        assertEquals(0, new TcpHeader.Builder().packedWithEndOfList(true).optionsLength());
        BytesStore<?, byte[]> out = Ref.store(new byte[60]);
        int len = all.write(out, 0);
        byte[] b = new byte[len];
        out.read(0, b, 0, len);
        assertEquals(TcpHeader.Status.ACCEPTED, parse(b));
        assertTrue(tcp.sackPermitted() && tcp.hasTimestamps());
        assertEquals(536, tcp.mss());
        assertEquals(7, tcp.windowScale());
        assertEquals(1L, tcp.tsVal());
    }

    @Test
    void fixedFieldsAndFlags() {
        byte[] b = Ref.hex(header(5, 0xff) + "68656c6c6f");
        assertEquals(TcpHeader.Status.ACCEPTED, parse(b));
        assertEquals(12345, tcp.sourcePort());
        assertEquals(4567, tcp.destinationPort());
        assertEquals(0xfedcba98L, tcp.sequenceNumber());
        assertEquals(0x01020304L, tcp.acknowledgmentNumber());
        assertEquals(5, tcp.dataOffset());
        assertEquals(0xff, tcp.flags());
        assertTrue(tcp.fin() && tcp.syn() && tcp.rst() && tcp.psh() && tcp.ack() && tcp.urg() && tcp.ece() && tcp.cwr());
        assertEquals(0xfaf0, tcp.window());
        assertEquals(0xabcd, tcp.checksum());
        assertEquals(7, tcp.urgentPointer());
        assertEquals(20, tcp.payloadOffset());
        assertEquals(5, tcp.payloadLength());
        assertFalse(tcp.hasMss() || tcp.hasWindowScale() || tcp.sackPermitted() || tcp.hasTimestamps());
        assertEquals(-1, tcp.mss());
        assertEquals(-1, tcp.windowScale());
    }

    @Test
    void eachFlagIsItsOwnBit() {
        int[] flags = {TcpHeader.FIN, TcpHeader.SYN, TcpHeader.RST, TcpHeader.PSH,
                TcpHeader.ACK, TcpHeader.URG, TcpHeader.ECE, TcpHeader.CWR};
        for (int i = 0; i < flags.length; i++) {
            assertEquals(1 << i, flags[i]); // RFC 9293 §3.1 / RFC 3168 §6.1 bit order, FIN lowest
            parse(Ref.hex(header(5, flags[i])));
            boolean[] got = {tcp.fin(), tcp.syn(), tcp.rst(), tcp.psh(), tcp.ack(), tcp.urg(), tcp.ece(), tcp.cwr()};
            for (int j = 0; j < got.length; j++) {
                assertEquals(i == j, got[j], "flag " + i + " accessor " + j);
            }
        }
    }

    @Test
    void allKnownOptionsParse() {
        // MSS 1460; SACK-permitted + timestamps (1, 2); NOP + window scale 7 (RFC 7323 Appendix A layout).
        byte[] b = withOptions("020405b4 0402080a 00000001 00000002 01030307");
        assertEquals(TcpHeader.Status.ACCEPTED, parse(b));
        assertEquals(1460, tcp.mss());
        assertTrue(tcp.sackPermitted());
        assertTrue(tcp.hasTimestamps());
        assertEquals(1, tcp.tsVal());
        assertEquals(2, tcp.tsEcr());
        assertEquals(7, tcp.windowScale());
        assertFalse(tcp.windowScaleClamped());
        assertEquals(40, tcp.headerLength());
    }

    @Test
    void timestampsAreUnsigned() {
        assertEquals(TcpHeader.Status.ACCEPTED, parse(withOptions("0101080a fffffffe 80000000")));
        assertEquals(0xfffffffeL, tcp.tsVal());
        assertEquals(0x80000000L, tcp.tsEcr());
    }

    @Test
    void windowScaleAbove14IsUsedAs14() {
        // RFC 7323 §2.3: a shift count above 14 is logged and 14 is used instead.
        assertEquals(TcpHeader.Status.ACCEPTED, parse(withOptions("0103030f")));
        assertEquals(14, tcp.windowScale());
        assertEquals(15, tcp.windowScaleRaw());
        assertTrue(tcp.windowScaleClamped());
        assertEquals(TcpHeader.Status.ACCEPTED, parse(withOptions("010303ff")));
        assertEquals(14, tcp.windowScale());
        assertEquals(255, tcp.windowScaleRaw());
        assertEquals(TcpHeader.Status.ACCEPTED, parse(withOptions("0103030e")));
        assertEquals(14, tcp.windowScale());
        assertFalse(tcp.windowScaleClamped());
    }

    @Test
    void unknownOptionsAreSkippedByTheirLengthAndEolEndsTheList() {
        // kind 0xfe (RFC 4727 experiment) length 4, SACK blocks (kind 5, RFC 2018 §3) length 10, then MSS.
        assertEquals(TcpHeader.Status.ACCEPTED, parse(withOptions("fe04abcd 050a 00000001 00000002 020405dc 0101")));
        assertEquals(1500, tcp.mss());
        // After EOL the rest of the option space is padding: bytes that would be malformed are not read.
        assertEquals(TcpHeader.Status.ACCEPTED, parse(withOptions("020405dc 00020100")));
        assertEquals(1500, tcp.mss());
    }

    static Stream<Arguments> checks() {
        return Stream.of(
                Arguments.of("19 bytes", Ref.hex(header(5, 0).replace(" ", "").substring(0, 38)), TcpHeader.Status.TRUNCATED, 0L),
                Arguments.of("data offset 4", Ref.hex(header(4, 0)), TcpHeader.Status.DATA_OFFSET_TOO_SMALL, 12L),
                Arguments.of("data offset 0", Ref.hex(header(0, 0)), TcpHeader.Status.DATA_OFFSET_TOO_SMALL, 12L),
                Arguments.of("data offset 6 in a 20-byte segment", Ref.hex(header(6, 0)),
                        TcpHeader.Status.DATA_OFFSET_BEYOND_SEGMENT, 12L),
                Arguments.of("data offset 15 in a 40-byte segment", Ref.hex(header(15, 0) + "01".repeat(20)),
                        TcpHeader.Status.DATA_OFFSET_BEYOND_SEGMENT, 12L),
                Arguments.of("unknown option length 0", withOptions("fe000000"),
                        TcpHeader.Status.OPTION_LENGTH_TOO_SMALL, 21L),
                Arguments.of("unknown option length 1", withOptions("0101fe01"),
                        TcpHeader.Status.OPTION_LENGTH_TOO_SMALL, 23L),
                Arguments.of("MSS length 1", withOptions("02010000"), TcpHeader.Status.OPTION_LENGTH_TOO_SMALL, 21L),
                Arguments.of("kind in the last byte, no length", withOptions("010101fe"),
                        TcpHeader.Status.OPTION_BEYOND_DATA_OFFSET, 23L),
                Arguments.of("option length past data offset", withOptions("fe05abcd"),
                        TcpHeader.Status.OPTION_BEYOND_DATA_OFFSET, 21L),
                Arguments.of("timestamps cut by data offset", withOptions("080a0000 00000000"),
                        TcpHeader.Status.OPTION_BEYOND_DATA_OFFSET, 21L),
                Arguments.of("MSS length 3", withOptions("02030000"), TcpHeader.Status.MSS_BAD_LENGTH, 21L),
                Arguments.of("MSS length 8", withOptions("02080000 00000000"), TcpHeader.Status.MSS_BAD_LENGTH, 21L),
                Arguments.of("window scale length 4", withOptions("03040e00"),
                        TcpHeader.Status.WINDOW_SCALE_BAD_LENGTH, 21L),
                Arguments.of("window scale length 2", withOptions("01010302"),
                        TcpHeader.Status.WINDOW_SCALE_BAD_LENGTH, 23L),
                Arguments.of("SACK-permitted length 4", withOptions("04040000"),
                        TcpHeader.Status.SACK_PERMITTED_BAD_LENGTH, 21L),
                Arguments.of("timestamps length 8", withOptions("08080000 00000000"),
                        TcpHeader.Status.TIMESTAMPS_BAD_LENGTH, 21L),
                Arguments.of("timestamps length 12", withOptions("080c0000 00000000 00000000"),
                        TcpHeader.Status.TIMESTAMPS_BAD_LENGTH, 21L),
                Arguments.of("all NOPs", withOptions("01010101 01010101"), TcpHeader.Status.ACCEPTED, -1L));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("checks")
    void eachCheck(String name, byte[] b, TcpHeader.Status expected, long failedAt) {
        assertEquals(expected, parse(b));
        assertEquals(failedAt, tcp.failedAt());
        if (!expected.accepted()) {
            // a malformed option list leaves no half-parsed option behind
            assertFalse(tcp.hasMss() || tcp.hasWindowScale() || tcp.sackPermitted() || tcp.hasTimestamps());
        }
    }

    @Test
    void builderLaysOutEachOptionSetAligned() {
        TcpHeader.Builder b = new TcpHeader.Builder();
        byte[] out = new byte[60];
        BytesStore<?, byte[]> s = Ref.store(out);
        b.ports(12345, 4567).sequenceNumber(0xfedcba98L).acknowledgmentNumber(0x01020304L)
                .flags(TcpHeader.ACK).window(0xfaf0).urgentPointer(7);
        assertEquals(20, b.write(s, 0));
        assertEquals(header(5, TcpHeader.ACK).replace(" ", "").replace("abcd", "0000"), Ref.toHex(out, 0, 20));

        String[][] sets = {
                {"mss", "020405b4"},
                {"sack", "01010402"},
                {"ts", "0101080a 00000001 00000002"},
                {"sack+ts", "0402080a 00000001 00000002"},
                {"ws", "01030307"},
                {"all", "020405b4 0402080a 00000001 00000002 01030307"},
        };
        for (String[] set : sets) {
            b.mss(set[0].equals("mss") || set[0].equals("all") ? 1460 : -1)
                    .sackPermitted(set[0].contains("sack") || set[0].equals("all"))
                    .windowScale(set[0].equals("ws") || set[0].equals("all") ? 7 : -1);
            if (set[0].contains("ts") || set[0].equals("all")) {
                b.timestamps(1, 2);
            } else {
                b.noTimestamps();
            }
            String opts = set[1].replace(" ", "");
            int len = b.write(s, 0);
            assertEquals(20 + opts.length() / 2, len, set[0]);
            assertEquals(opts, Ref.toHex(out, 20, len - 20), set[0]);
            assertEquals(TcpHeader.Status.ACCEPTED, tcp.wrap(s, 0, len).validate(), set[0]);
        }
        assertThrows(IllegalArgumentException.class, () -> b.ports(65536, 1));
        assertThrows(IllegalArgumentException.class, () -> b.flags(0x100));
        assertThrows(IllegalArgumentException.class, () -> b.mss(-2));
        assertThrows(IllegalArgumentException.class, () -> b.write(Ref.store(new byte[39]), 0));
    }

    @Test
    void sequenceArithmeticIsModulo2To32() {
        assertTrue(TcpHeader.seqBefore(0xffff_fff0L, 0x10L));
        assertFalse(TcpHeader.seqBefore(0x10L, 0xffff_fff0L));
        assertEquals(0x20, TcpHeader.seqDelta(0x10L, 0xffff_fff0L));
    }

    @Test
    void checksumWritersMatchTheHandBuiltSyns() {
        // The TCP segments of TcpPacketTest's hand-built SYNs, checksummed in place by the layer writers.
        byte[] v4 = Ref.hex(TcpPacketTest.SYN_V4);
        Ref.put16(v4, 34 + 16, 0);
        TcpHeader.writeChecksumIpv4(Ref.store(v4), 34, 24, TcpPacketTest.V4_A, TcpPacketTest.V4_B);
        assertEquals(0x6ae8, Ref.u16(v4, 34 + 16));
        byte[] v6 = Ref.hex(TcpPacketTest.SYN_V6_VLAN);
        Ref.put16(v6, 58 + 16, 0);
        TcpHeader.writeChecksumIpv6(Ref.store(v6), 58, 32, TcpPacketTest.V6_HI, 1, TcpPacketTest.V6_HI, 2);
        assertEquals(0x8599, Ref.u16(v6, 58 + 16));
        assertTrue(tcp.wrap(Ref.store(v6), 58, 32).checksumValid(InternetChecksum.ipv6PseudoHeaderSum(
                TcpPacketTest.V6_HI, 1, TcpPacketTest.V6_HI, 2, 32, 6)));
    }
}
