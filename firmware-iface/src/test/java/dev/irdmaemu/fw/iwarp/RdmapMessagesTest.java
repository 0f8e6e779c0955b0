package dev.irdmaemu.fw.iwarp;

import static dev.irdmaemu.fw.iwarp.Stores.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** RDMA Read Request (RFC 5040 §4.4) and Terminate (RFC 5040 §4.8; irdma type.h/ctrl.c; siw iwarp.h). */
class RdmapMessagesTest {
    private final RdmaReadRequest rreq = new RdmaReadRequest();
    private final Terminate term = new Terminate();

    @Test
    void readRequestFieldsAtRfcOffsets() {
        // sink STag 0, sink TO 4, read size 12, source STag 16, source TO 20 (RFC 5040 §4.4)
        byte[] b = hex("01020304 1112131415161718 00010000 a1a2a3a4 b1b2b3b4b5b6b7b8");
        assertEquals(RdmaReadRequestCheck.ACCEPTED, rreq.wrap(Stores.heap(b), 0, b.length).validate());
        assertEquals(0x01020304, rreq.sinkStag());
        assertEquals(0x1112131415161718L, rreq.sinkTaggedOffset());
        assertEquals(0x10000, rreq.readMessageSize());
        assertEquals(0xa1a2a3a4, rreq.sourceStag());
        assertEquals(0xb1b2b3b4b5b6b7b8L, rreq.sourceTaggedOffset());
        byte[] w = new byte[28];
        RdmaReadRequest.write(Stores.heap(w), 0, 0x01020304, 0x1112131415161718L, 0x10000, 0xa1a2a3a4,
                0xb1b2b3b4b5b6b7b8L);
        assertArrayEquals(b, w);
    }

    @Test
    void readRequestOf27BytesIsTruncated() {
        assertEquals(RdmaReadRequestCheck.TRUNCATED, rreq.wrap(Stores.heap(new byte[27]), 0, 27).validate());
        assertEquals(27, rreq.failedAt());
    }

    @Property(tries = 300)
    void readRequestRoundTrip(@ForAll int sinkStag, @ForAll long sinkTo, @ForAll int size, @ForAll int srcStag,
                              @ForAll long srcTo) {
        BytesStore<?, ?> s = Stores.heap(new byte[31]);
        assertEquals(28, RdmaReadRequest.write(s, 3, sinkStag, sinkTo, size, srcStag, srcTo));
        assertEquals(RdmaReadRequestCheck.ACCEPTED, rreq.wrap(s, 3, 28).validate());
        assertEquals(sinkStag, rreq.sinkStag());
        assertEquals(sinkTo, rreq.sinkTaggedOffset());
        assertEquals(Integer.toUnsignedLong(size), rreq.readMessageSize());
        assertEquals(srcStag, rreq.sourceStag());
        assertEquals(srcTo, rreq.sourceTaggedOffset());
    }

    @Test
    void terminateControlLayout() {
        // layer DDP (1) << 4 | etype untagged (2) = 0x12; code invalid MSN range 3; Hdrct M|D = 0xc0;
        // DDP Segment Length 0x0020; copied untagged DDP header (18 bytes)
        String ddpHdr = "41 43 00000000 00000000 00000005 00000000";
        byte[] b = hex("12 03 c0 00 0020 " + ddpHdr);
        Terminate t = term.wrap(Stores.heap(b), 0, b.length);
        assertEquals(TerminateCheck.ACCEPTED, t.validate());
        assertEquals(Terminate.LAYER_DDP, t.layer());
        assertEquals(Terminate.Ddp.ETYPE_UNTAGGED_BUFFER, t.errorType());
        assertEquals(Terminate.Ddp.UNTAGGED_INVALID_MSN_RANGE, t.errorCode());
        assertTrue(t.hasDdpSegmentLength());
        assertTrue(t.hasDdpHeader());
        assertFalse(t.hasRdmaHeader());
        assertEquals(0x20, t.ddpSegmentLength());
        assertEquals(6, t.ddpHeaderOffset());
        assertEquals(18, t.ddpHeaderLength());
        assertEquals(24, t.messageLength());
        DdpHeader copied = new DdpHeader().wrap(Stores.heap(b), t.ddpHeaderOffset(), t.ddpHeaderLength());
        assertEquals(DdpCheck.ACCEPTED, copied.validate());
        assertEquals(5, copied.msn());

        byte[] w = new byte[24];
        int n = Terminate.write(Stores.heap(w), 0, w.length, Terminate.LAYER_DDP, Terminate.Ddp.ETYPE_UNTAGGED_BUFFER,
                Terminate.Ddp.UNTAGGED_INVALID_MSN_RANGE, 0x20, Stores.heap(hex(ddpHdr)), 0, null, 0);
        assertEquals(24, n);
        assertArrayEquals(b, w);
    }

    @Test
    void codesMatchTheRfcTables() {
        // RFC 5040 §7.2 / siw iwarp.h rdmap_ecode; RFC 5041 §7.2 ddp_ecode; RFC 5044 §8 / RFC 6581 llp_ecode
        assertEquals(0x00, Terminate.Rdmap.INVALID_STAG);
        assertEquals(0x01, Terminate.Rdmap.BASE_OR_BOUNDS_VIOLATION);
        assertEquals(0x02, Terminate.Rdmap.ACCESS_RIGHTS_VIOLATION);
        assertEquals(0x05, Terminate.Rdmap.INVALID_RDMAP_VERSION);
        assertEquals(0x06, Terminate.Rdmap.UNEXPECTED_OPCODE);
        assertEquals(0x07, Terminate.Rdmap.CATASTROPHIC_LOCAL);
        assertEquals(0x01, Terminate.Ddp.UNTAGGED_INVALID_QN);
        assertEquals(0x02, Terminate.Ddp.UNTAGGED_INVALID_MSN_NO_BUFFER);
        assertEquals(0x04, Terminate.Ddp.UNTAGGED_INVALID_MO);
        assertEquals(0x05, Terminate.Ddp.UNTAGGED_MESSAGE_TOO_LONG);
        assertEquals(0x04, Terminate.Ddp.TAGGED_INVALID_DDP_VERSION);
        assertEquals(0x06, Terminate.Ddp.UNTAGGED_INVALID_DDP_VERSION);
        assertEquals(0x02, Terminate.Llp.CRC_ERROR);
        assertEquals(0x03, Terminate.Llp.MARKER_ERROR);
        assertEquals(2, Terminate.LAYER_LLP);
    }

    static Stream<Arguments> badTerminates() {
        return Stream.of(
                Arguments.of("3 bytes", "00 00 00", TerminateCheck.TRUNCATED, 3),
                Arguments.of("M without its length", "12 01 80 00 00", TerminateCheck.MISSING_DDP_SEGMENT_LENGTH, 4),
                Arguments.of("D without the header", "12 01 c0 00 0012", TerminateCheck.MISSING_DDP_HEADER, 6),
                Arguments.of("D with a tagged header cut at 13", "11 00 c0 00 000e c1 40 00000000 00000000000000",
                        TerminateCheck.MISSING_DDP_HEADER, 6),
                Arguments.of("R without the RDMA header", "01 00 e0 00 002e 41 41 00000000 00000001 00000001 00000000"
                        + "00000000", TerminateCheck.MISSING_RDMA_HEADER, 24));
    }

    @ParameterizedTest(name = "{0} -> {2} at {3}")
    @MethodSource("badTerminates")
    void eachTerminateCheckIsReached(String name, String hexBytes, TerminateCheck expected, int at) {
        byte[] b = hex(hexBytes);
        assertEquals(expected, term.wrap(Stores.heap(b), 0, b.length).validate());
        assertEquals(at, term.failedAt());
    }

    @Property(tries = 300)
    void terminateRoundTrip(@ForAll @IntRange(max = 15) int layer, @ForAll @IntRange(max = 15) int etype,
                            @ForAll @IntRange(max = 255) int ecode, @ForAll @IntRange(min = -1, max = 0xffff) int segLen,
                            @ForAll boolean withDdp, @ForAll boolean taggedDdp, @ForAll boolean withRdma,
                            @ForAll int stag) {
        BytesStore<?, ?> ddpSrc = Stores.heap(new byte[18]);
        if (taggedDdp) {
            DdpHeader.writeTagged(ddpSrc, 0, 0, true, stag, 99);
        } else {
            DdpHeader.writeUntagged(ddpSrc, 0, 1, true, 0, 1, stag, 0);
        }
        BytesStore<?, ?> rdmaSrc = Stores.heap(new byte[28]);
        RdmaReadRequest.write(rdmaSrc, 0, stag, 1, 2, 3, 4);
        BytesStore<?, ?> out = Stores.heap(new byte[100]);
        int n = Terminate.write(out, 1, 99, layer, etype, ecode, segLen, withDdp ? ddpSrc : null, 0,
                withRdma ? rdmaSrc : null, 0);
        Terminate t = term.wrap(out, 1, n);
        assertEquals(TerminateCheck.ACCEPTED, t.validate());
        assertEquals(n, t.messageLength());
        assertEquals(layer, t.layer());
        assertEquals(etype, t.errorType());
        assertEquals(ecode, t.errorCode());
        assertEquals(segLen >= 0, t.hasDdpSegmentLength());
        assertEquals(segLen, t.ddpSegmentLength());
        assertEquals(withDdp, t.hasDdpHeader());
        assertEquals(withRdma, t.hasRdmaHeader());
        assertEquals(0, t.reserved());
        if (withDdp) {
            assertEquals(taggedDdp ? 14 : 18, t.ddpHeaderLength());
            DdpHeader d = new DdpHeader().wrap(out, t.ddpHeaderOffset(), t.ddpHeaderLength());
            assertEquals(DdpCheck.ACCEPTED, d.validate());
            assertEquals(stag, taggedDdp ? d.stag() : (int) d.msn());
        }
        if (withRdma) {
            RdmaReadRequest r = new RdmaReadRequest().wrap(out, t.rdmaHeaderOffset(), t.rdmaHeaderLength());
            assertEquals(RdmaReadRequestCheck.ACCEPTED, r.validate());
            assertEquals(stag, r.sinkStag());
        }
    }
}
