package dev.irdmaemu.fw.iwarp;

import static dev.irdmaemu.fw.iwarp.Stores.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** MPA Request/Reply frames: RFC 5044 §7.1, RFC 6581 §5, irdma cm.h ietf_mpa_v1/v2 and cm.c build/parse. */
class MpaFrameTest {
    private static final String KEY_REQ_HEX = "4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65"; // "MPA ID Req Frame"
    private static final String KEY_REP_HEX = "4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65"; // "MPA ID Rep Frame"

    private final MpaFrame.Builder builder = new MpaFrame.Builder();
    private final MpaFrame frame = new MpaFrame();

    private byte[] build(MpaFrame.Builder b) {
        byte[] out = new byte[b.frameLength()];
        assertEquals(out.length, b.build(Stores.heap(out), 0, out.length));
        return out;
    }

    @Test
    void v1RequestWithPrivateDataMatchesHandBuiltBytes() {
        byte[] pd = "hello".getBytes(StandardCharsets.US_ASCII);
        byte[] got = build(builder.reset().request().revision(1).flags(MpaFrame.FLAG_CRC)
                .privateData(Stores.heap(pd), 0, pd.length));
        // key(16) | flags C=0x40 | rev 1 | PD_Length 5 (BE) | "hello"
        assertArrayEquals(hex(KEY_REQ_HEX + "40 01 0005 68656c6c6f"), got);
    }

    @Test
    void v2ReplyWithRtrMatchesHandBuiltBytes() {
        byte[] pd = "abc".getBytes(StandardCharsets.US_ASCII);
        byte[] got = build(builder.reset().reply().revision(2).flags(MpaFrame.FLAG_CRC)
                .rtr(16, 8, true, false, true, false).privateData(Stores.heap(pd), 0, pd.length));
        // flags C|H = 0x50, rev 2, PD_Length = 4 (RTR, counted as irdma_build_mpa_v2 does) + 3,
        // ctrl_ird = P2P 0x8000 | IRD 16, ctrl_ord = RDMA0 write 0x8000 | ORD 8, then "abc"
        assertArrayEquals(hex(KEY_REP_HEX + "50 02 0007 8010 8008 616263"), got);
    }

    @Test
    void fieldsAtTheirLayoutOffsets() {
        byte[] b = hex(KEY_REP_HEX + "f0 02 0009 c123 7fff 0102030405");
        MpaFrame f = frame.wrap(Stores.heap(b), 0, b.length);
        assertEquals(MpaCheck.ACCEPTED, f.validate());
        assertEquals(-1, f.failedAt());
        assertTrue(f.isReply());
        assertFalse(f.isRequest());
        assertEquals(0xf0, f.flags());
        assertTrue(f.requestsMarkers());
        assertTrue(f.requestsCrc());
        assertTrue(f.isReject());
        assertTrue(f.isEnhanced());
        assertEquals(2, f.revision());
        assertEquals(9, f.privateDataLengthField());
        assertEquals(29, f.frameLength());
        assertTrue(f.hasRtr());
        assertEquals(0xc123, f.ctrlIrd());
        assertEquals(0x0123, f.ird());
        assertTrue(f.peerToPeer());
        assertTrue(f.zeroLengthFpduRtr());
        assertEquals(0x7fff, f.ctrlOrd());
        assertEquals(MpaFrame.NO_IRD_ORD, f.ord());
        assertFalse(f.rdma0WriteRtr());
        assertTrue(f.rdma0ReadRtr());
        assertEquals(24, f.privateDataOffset());
        assertEquals(5, f.privateDataLength());
    }

    @Test
    void rev2WithoutHBitHasNoRtrAndPrivateDataAt20() {
        byte[] b = hex(KEY_REQ_HEX + "40 02 0002 abcd");
        MpaFrame f = frame.wrap(Stores.heap(b), 0, b.length);
        assertEquals(MpaCheck.ACCEPTED, f.validate());
        assertFalse(f.hasRtr());
        assertEquals(20, f.privateDataOffset());
        assertEquals(2, f.privateDataLength());
        // The bytes at 20..21 remain readable for a CM that mimics irdma_parse_mpa (RTR read on rev 2 regardless).
        assertEquals(0xabcd, f.ctrlIrd());
    }

    @Test
    void builderRefusesPrivateDataOver512WithRtr() {
        BytesStore<?, ?> pd = Stores.heap(new byte[512]);
        builder.reset().revision(2).rtr(1, 1, true, false, true, false).privateData(pd, 0, 510);
        assertThrows(IllegalArgumentException.class, () -> builder.build(Stores.heap(new byte[600]), 0, 600));
        builder.noRtr().revision(1).privateData(pd, 0, 512);
        assertEquals(532, builder.build(Stores.heap(new byte[600]), 0, 600));
    }

    static Stream<Arguments> badFrames() {
        return Stream.of(
                Arguments.of("empty buffer", "", MpaCheck.TOO_SHORT, 0),
                Arguments.of("19 bytes", KEY_REQ_HEX + "40 01 00", MpaCheck.TOO_SHORT, 19),
                Arguments.of("key neither request nor reply", KEY_REQ_HEX.replace("52 65 71", "52 65 78") + "40 01 0000",
                        MpaCheck.BAD_KEY, 0),
                Arguments.of("lower-case key", KEY_REQ_HEX.replace("4d 50 41", "6d 70 61") + "40 01 0000",
                        MpaCheck.BAD_KEY, 0),
                Arguments.of("revision 0", KEY_REQ_HEX + "40 00 0000", MpaCheck.BAD_REVISION, 17),
                Arguments.of("revision 3", KEY_REP_HEX + "40 03 0000", MpaCheck.BAD_REVISION, 17),
                Arguments.of("revision 255", KEY_REP_HEX + "40 ff 0000", MpaCheck.BAD_REVISION, 17),
                Arguments.of("PD_Length 513", KEY_REQ_HEX + "40 01 0201" + "00".repeat(513),
                        MpaCheck.PRIVATE_DATA_TOO_LONG, 18),
                Arguments.of("PD_Length 0xffff", KEY_REQ_HEX + "40 01 ffff", MpaCheck.PRIVATE_DATA_TOO_LONG, 18),
                Arguments.of("PD_Length 4 but 3 bytes present", KEY_REQ_HEX + "40 01 0004 010203",
                        MpaCheck.PRIVATE_DATA_BEYOND_BUFFER, 18),
                Arguments.of("buffer of 545 bytes", KEY_REQ_HEX + "40 01 0000" + "00".repeat(525),
                        MpaCheck.OVER_MAX_CM_BUF, 544),
                Arguments.of("enhanced v2 with PD_Length 3", KEY_REQ_HEX + "50 02 0003 800000",
                        MpaCheck.RTR_MISSING, 18),
                Arguments.of("enhanced v2 with PD_Length 0", KEY_REP_HEX + "50 02 0000", MpaCheck.RTR_MISSING, 18));
    }

    @ParameterizedTest(name = "{0} -> {2} at {3}")
    @MethodSource("badFrames")
    void eachCheckIsReached(String name, String hexBytes, MpaCheck expected, int at) {
        byte[] b = hex(hexBytes);
        MpaFrame f = frame.wrap(Stores.heap(b), 0, b.length);
        assertEquals(expected, f.validate());
        assertFalse(expected.accepted());
        assertEquals(at, f.failedAt());
    }

    @Test
    void checksDescribeThemselves() {
        assertTrue(MpaCheck.ACCEPTED.accepted());
        for (MpaCheck c : MpaCheck.values()) {
            assertFalse(c.describe().isEmpty());
        }
    }

    @Test
    void exactly544BytesIsAccepted() {
        byte[] b = hex(KEY_REQ_HEX + "40 01 0200" + "00".repeat(524));
        assertEquals(544, b.length);
        assertEquals(MpaCheck.ACCEPTED, frame.wrap(Stores.heap(b), 0, b.length).validate());
    }

    @Property(tries = 300)
    void roundTrip(@ForAll boolean request, @ForAll @IntRange(min = 1, max = 2) int rev,
                   @ForAll boolean markers, @ForAll boolean crc, @ForAll boolean reject, @ForAll boolean withRtr,
                   @ForAll @IntRange(max = 0x3fff) int ird, @ForAll @IntRange(max = 0x3fff) int ord,
                   @ForAll boolean p2p, @ForAll boolean zeroLen, @ForAll boolean write0, @ForAll boolean read0,
                   @ForAll @Size(max = 512) byte[] pd, @ForAll @IntRange(max = 40) int at) {
        boolean rtr = withRtr && rev == 2;
        int pdLen = rtr ? Math.min(pd.length, 508) : pd.length;
        int flags = (markers ? MpaFrame.FLAG_MARKERS : 0) | (crc ? MpaFrame.FLAG_CRC : 0)
                | (reject ? MpaFrame.FLAG_REJECT : 0);
        MpaFrame.Builder b = builder.reset().revision(rev).flags(flags).privateData(Stores.heap(pd), 0, pdLen);
        if (request) {
            b.request();
        } else {
            b.reply();
        }
        if (rtr) {
            b.rtr(ird, ord, p2p, zeroLen, write0, read0);
        }
        BytesStore<?, ?> out = Stores.nativeAt(new byte[0], at + b.frameLength());
        try {
            int n = b.build(out, at, b.frameLength());
            MpaFrame f = frame.wrap(out, at, n);
            assertEquals(MpaCheck.ACCEPTED, f.validate());
            assertEquals(request, f.isRequest());
            assertEquals(!request, f.isReply());
            assertEquals(rev, f.revision());
            assertEquals(markers, f.requestsMarkers());
            assertEquals(crc, f.requestsCrc());
            assertEquals(reject, f.isReject());
            assertEquals(rtr, f.isEnhanced());
            assertEquals(rtr, f.hasRtr());
            assertEquals(n, f.frameLength());
            assertEquals(pdLen, f.privateDataLength());
            if (rtr) {
                assertEquals(ird, f.ird());
                assertEquals(ord, f.ord());
                assertEquals(p2p, f.peerToPeer());
                assertEquals(zeroLen, f.zeroLengthFpduRtr());
                assertEquals(write0, f.rdma0WriteRtr());
                assertEquals(read0, f.rdma0ReadRtr());
            }
            byte[] expectPd = java.util.Arrays.copyOf(pd, pdLen);
            assertArrayEquals(expectPd, Stores.read(out, f.privateDataOffset(), f.privateDataLength()));
        } finally {
            out.releaseLast();
        }
    }

}
