package dev.irdmaemu.fw.iwarp;

import static dev.irdmaemu.fw.iwarp.Stores.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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

/** DDP segment headers (RFC 5041 §5) with RDMAP control (RFC 5040 §4.1/§4.2; siw iwarp.h). */
class DdpHeaderTest {
    private final DdpHeader ddp = new DdpHeader();

    @Test
    void taggedRdmaWriteFieldsAtRfcOffsets() {
        // RFC 5041 §5.2: T=1 L=1 DV=01 -> 0xc1; RFC 5040 §4.1: RV=01, opcode 0 (RDMA Write) -> 0x40;
        // STag at 2, TO at 6
        byte[] b = hex("c1 40 11223344 0102030405060708 aabb");
        assertEquals(DdpCheck.ACCEPTED, ddp.wrap(Stores.heap(b), 0, b.length).validate());
        assertTrue(ddp.tagged());
        assertTrue(ddp.last());
        assertEquals(1, ddp.ddpVersion());
        assertEquals(1, ddp.rdmapVersion());
        assertEquals(RdmapOpcode.RDMA_WRITE, ddp.rdmapOpcode());
        assertEquals(0x11223344, ddp.stag());
        assertEquals(0x0102030405060708L, ddp.taggedOffset());
        assertEquals(14, ddp.headerLength());
        assertEquals(14, ddp.payloadOffset());
        assertEquals(2, ddp.payloadLength());
        byte[] w = new byte[14];
        DdpHeader.writeTagged(Stores.heap(w), 0, 0, true, 0x11223344, 0x0102030405060708L);
        assertArrayEquals(java.util.Arrays.copyOf(b, 14), w);
    }

    @Test
    void untaggedSendWithInvalidateFieldsAtRfcOffsets() {
        // T=0 L=0 DV=01 -> 0x01; RV=01 opcode 4 -> 0x44; Inv STag 2, QN 6, MSN 10, MO 14
        byte[] b = hex("01 44 cafebabe 00000000 00000007 00001000");
        assertEquals(DdpCheck.ACCEPTED, ddp.wrap(Stores.heap(b), 0, b.length).validate());
        assertFalse(ddp.tagged());
        assertFalse(ddp.last());
        assertEquals(RdmapOpcode.SEND_WITH_INVALIDATE, ddp.rdmapOpcode());
        assertEquals(0xcafebabe, ddp.invalidateStag());
        assertEquals(0, ddp.queueNumber());
        assertEquals(7, ddp.msn());
        assertEquals(0x1000, ddp.messageOffset());
        assertTrue(ddp.queueMatchesOpcode());
        assertEquals(18, ddp.headerLength());
        byte[] w = new byte[18];
        DdpHeader.writeUntagged(Stores.heap(w), 0, 4, false, 0xcafebabe, 0, 7, 0x1000);
        assertArrayEquals(b, w);
    }

    @Test
    void queueNumbersAreReportedNotJudged() {
        byte[] b = hex("41 43 00000000 00000001 00000001 00000000"); // Send on QN 1
        assertEquals(DdpCheck.ACCEPTED, ddp.wrap(Stores.heap(b), 0, b.length).validate());
        assertEquals(1, ddp.queueNumber());
        assertFalse(ddp.queueMatchesOpcode());
        assertEquals(0, RdmapOpcode.expectedQueueFor(RdmapOpcode.CODE_SEND));
        assertEquals(1, RdmapOpcode.expectedQueueFor(RdmapOpcode.CODE_RDMA_READ_REQUEST));
        assertEquals(2, RdmapOpcode.expectedQueueFor(RdmapOpcode.CODE_TERMINATE));
        assertEquals(-1, RdmapOpcode.expectedQueueFor(RdmapOpcode.CODE_RDMA_WRITE));
        assertEquals(-1, RdmapOpcode.expectedQueueFor(9));
    }

    @Test
    void opcodeTableMatchesRfc5040() {
        String[] names = {"RDMA_WRITE", "RDMA_READ_REQUEST", "RDMA_READ_RESPONSE", "SEND", "SEND_WITH_INVALIDATE",
            "SEND_WITH_SE", "SEND_WITH_SE_AND_INVALIDATE", "TERMINATE"};
        for (int code = 0; code < 8; code++) {
            assertEquals(names[code], RdmapOpcode.of(code).name());
            assertEquals(code, RdmapOpcode.of(code).code());
            assertEquals(code == 0 || code == 2, RdmapOpcode.of(code).tagged());
        }
        for (int code = 8; code < 16; code++) {
            assertNull(RdmapOpcode.of(code));
        }
        assertNull(RdmapOpcode.of(-1));
    }

    static Stream<Arguments> badHeaders() {
        return Stream.of(
                Arguments.of("empty", "", DdpCheck.TRUNCATED, 0),
                Arguments.of("one byte", "c1", DdpCheck.TRUNCATED, 1),
                Arguments.of("tagged, 13 bytes", "c1 40 00000000 00000000000000", DdpCheck.TRUNCATED, 13),
                Arguments.of("untagged, 17 bytes", "41 43 00000000 00000000 00000000 000000", DdpCheck.TRUNCATED, 17),
                Arguments.of("DDP version 0", "c0 40 00000000 0000000000000000", DdpCheck.BAD_DDP_VERSION, 0),
                Arguments.of("DDP version 2", "c2 40 00000000 0000000000000000", DdpCheck.BAD_DDP_VERSION, 0),
                Arguments.of("RDMAP version 0", "c1 00 00000000 0000000000000000", DdpCheck.BAD_RDMAP_VERSION, 1),
                Arguments.of("RDMAP version 3", "c1 c0 00000000 0000000000000000", DdpCheck.BAD_RDMAP_VERSION, 1),
                Arguments.of("opcode 8", "41 48 00000000 00000000 00000000 00000000", DdpCheck.UNKNOWN_OPCODE, 1),
                Arguments.of("opcode 15", "41 4f 00000000 00000000 00000000 00000000", DdpCheck.UNKNOWN_OPCODE, 1),
                Arguments.of("untagged RDMA Write", "41 40 00000000 00000000 00000000 00000000",
                        DdpCheck.TAGGED_MISMATCH, 0),
                Arguments.of("untagged Read Response", "41 42 00000000 00000000 00000000 00000000",
                        DdpCheck.TAGGED_MISMATCH, 0),
                Arguments.of("tagged Send", "c1 43 00000000 0000000000000000", DdpCheck.TAGGED_MISMATCH, 0),
                Arguments.of("tagged Terminate", "c1 47 00000000 0000000000000000", DdpCheck.TAGGED_MISMATCH, 0));
    }

    @ParameterizedTest(name = "{0} -> {2} at {3}")
    @MethodSource("badHeaders")
    void eachCheckIsReached(String name, String hexBytes, DdpCheck expected, int at) {
        byte[] b = hex(hexBytes);
        assertEquals(expected, ddp.wrap(Stores.heap(b), 0, b.length).validate());
        assertEquals(at, ddp.failedAt());
    }

    @Property(tries = 300)
    void taggedRoundTrip(@ForAll boolean readResponse, @ForAll boolean last, @ForAll int stag, @ForAll long to,
                         @ForAll @IntRange(max = 64) int payload) {
        BytesStore<?, ?> s = Stores.heap(new byte[5 + 14 + payload]);
        int op = readResponse ? RdmapOpcode.CODE_RDMA_READ_RESPONSE : RdmapOpcode.CODE_RDMA_WRITE;
        assertEquals(14, DdpHeader.writeTagged(s, 5, op, last, stag, to));
        assertEquals(DdpCheck.ACCEPTED, ddp.wrap(s, 5, 14 + payload).validate());
        assertEquals(op, ddp.opcode());
        assertEquals(last, ddp.last());
        assertEquals(stag, ddp.stag());
        assertEquals(to, ddp.taggedOffset());
        assertEquals(payload, ddp.payloadLength());
        assertEquals(0, ddp.ddpReserved());
        assertEquals(0, ddp.rdmapReserved());
    }

    @Property(tries = 300)
    void untaggedRoundTrip(@ForAll @IntRange(min = 0, max = 5) int pick, @ForAll boolean last, @ForAll int inv,
                           @ForAll int qn, @ForAll int msn, @ForAll int mo) {
        int code = new int[] {1, 3, 4, 5, 6, 7}[pick]; // the untagged opcodes
        RdmapOpcode op = RdmapOpcode.of(code);
        assertFalse(op.tagged());
        BytesStore<?, ?> s = Stores.heap(new byte[18]);
        DdpHeader.writeUntagged(s, 0, code, last, inv, qn, msn, mo);
        assertEquals(DdpCheck.ACCEPTED, ddp.wrap(s, 0, 18).validate());
        assertEquals(op, ddp.rdmapOpcode());
        assertEquals(last, ddp.last());
        assertEquals(inv, ddp.invalidateStag());
        assertEquals(Integer.toUnsignedLong(qn), ddp.queueNumber());
        assertEquals(Integer.toUnsignedLong(msn), ddp.msn());
        assertEquals(Integer.toUnsignedLong(mo), ddp.messageOffset());
    }
}
