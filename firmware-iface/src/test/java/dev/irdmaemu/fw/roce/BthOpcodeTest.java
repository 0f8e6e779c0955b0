package dev.irdmaemu.fw.roce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The opcode table against IBA Table 38 / include/rdma/ib_pack.h and the header layouts of rxe_opcode.c. */
class BthOpcodeTest {
    @Test
    void codesAreIbPacksValues() {
        assertEquals(0x00, BthOpcode.RC_SEND_FIRST.code());
        assertEquals(0x0c, BthOpcode.RC_RDMA_READ_REQUEST.code());
        assertEquals(0x11, BthOpcode.RC_ACKNOWLEDGE.code());
        assertEquals(0x17, BthOpcode.RC_SEND_ONLY_WITH_INVALIDATE.code());
        assertEquals(0x2b, BthOpcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.code());
        assertEquals(0x64, BthOpcode.UD_SEND_ONLY.code());
        assertEquals(0x81, BthOpcode.CNP.code());
        for (BthOpcode op : BthOpcode.values()) {
            BthOpcode.Service expected = switch (op.code() >>> 5) {
                case 0 -> BthOpcode.Service.RC;
                case 1 -> BthOpcode.Service.UC;
                case 3 -> BthOpcode.Service.UD;
                default -> BthOpcode.Service.CNP;
            };
            assertEquals(expected, op.service(), op.name());
            assertTrue(op.name().startsWith(op.service().name()), op.name());
        }
    }

    @Test
    void lookupCoversAll256CodesWithoutAllocating() {
        int known = 0;
        for (int code = 0; code < 256; code++) {
            Optional<BthOpcode> op = BthOpcode.lookup(code);
            assertSame(op, BthOpcode.lookup(code), "preallocated");
            if (op.isPresent()) {
                known++;
                assertEquals(code, op.get().code());
                assertFalse(BthOpcode.isOtherTransport(code));
            }
        }
        assertEquals(BthOpcode.values().length, known);
        assertTrue(BthOpcode.lookup(-1).isEmpty());
        assertTrue(BthOpcode.lookup(256).isEmpty());
        assertTrue(BthOpcode.isOtherTransport(0x4c));
        assertTrue(BthOpcode.isOtherTransport(0xa4));
        assertTrue(BthOpcode.isOtherTransport(0xe0));
        assertFalse(BthOpcode.isOtherTransport(0x15));
    }

    @Test
    void extensionHeadersInIbaOrder() {
        assertEquals(0, BthOpcode.RC_SEND_ONLY.extensionHeadersLength());
        assertEquals(16, BthOpcode.RC_RDMA_WRITE_FIRST.extensionHeadersLength());
        assertEquals(0, BthOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.offsetOf(ExtensionHeader.RETH));
        assertEquals(16, BthOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.offsetOf(ExtensionHeader.IMM_DT));
        assertEquals(20, BthOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.extensionHeadersLength());
        assertEquals(0, BthOpcode.RC_ATOMIC_ACKNOWLEDGE.offsetOf(ExtensionHeader.AETH));
        assertEquals(4, BthOpcode.RC_ATOMIC_ACKNOWLEDGE.offsetOf(ExtensionHeader.ATOMIC_ACK_ETH));
        assertEquals(0, BthOpcode.UD_SEND_ONLY_WITH_IMMEDIATE.offsetOf(ExtensionHeader.DETH));
        assertEquals(8, BthOpcode.UD_SEND_ONLY_WITH_IMMEDIATE.offsetOf(ExtensionHeader.IMM_DT));
        assertEquals(4, BthOpcode.RC_FLUSH.offsetOf(ExtensionHeader.RETH));
        assertEquals(28, BthOpcode.RC_COMPARE_SWAP.extensionHeadersLength());
        assertEquals(16, BthOpcode.CNP.extensionHeadersLength());
        assertFalse(BthOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.carries(ExtensionHeader.AETH));
        assertTrue(BthOpcode.RC_RDMA_READ_RESPONSE_LAST.carries(ExtensionHeader.AETH));
        assertThrows(IllegalArgumentException.class, () -> BthOpcode.RC_SEND_ONLY.offsetOf(ExtensionHeader.RETH));
    }

    @Test
    void payloadAndPosition() {
        assertFalse(BthOpcode.RC_RDMA_READ_REQUEST.carriesPayload());
        assertFalse(BthOpcode.RC_ACKNOWLEDGE.carriesPayload());
        assertFalse(BthOpcode.CNP.carriesPayload());
        assertTrue(BthOpcode.RC_RDMA_READ_RESPONSE_MIDDLE.carriesPayload());
        assertEquals(BthOpcode.Position.FIRST, BthOpcode.UC_RDMA_WRITE_FIRST.position());
        assertEquals(BthOpcode.Position.LAST, BthOpcode.RC_SEND_LAST_WITH_INVALIDATE.position());
        assertTrue(BthOpcode.UC_SEND_LAST_WITH_IMMEDIATE.carriesImmediate());
    }

    @Test
    void aethSyndromes() {
        assertEquals(AethSyndrome.ACK, AethSyndrome.of(Aeth.ackSyndrome(Aeth.CREDITS_UNLIMITED)));
        assertEquals(0x1f, Aeth.ackSyndrome(Aeth.CREDITS_UNLIMITED));
        assertEquals(0x2e, Aeth.rnrNakSyndrome(14));
        assertEquals(AethSyndrome.RNR_NAK, AethSyndrome.of(0x2e));
        assertEquals(0x60, Aeth.nakSyndrome(NakCode.PSN_SEQUENCE_ERROR));
        assertEquals(0x63, Aeth.nakSyndrome(NakCode.REMOTE_OPERATIONAL_ERROR));
        assertEquals(AethSyndrome.NAK, AethSyndrome.of(0x61));
        assertEquals(AethSyndrome.RESERVED, AethSyndrome.of(0x40));
        assertEquals(AethSyndrome.RESERVED, AethSyndrome.of(0x80));
        assertEquals(NakCode.INVALID_RD_REQUEST, NakCode.of(4));
        assertEquals(NakCode.RESERVED, NakCode.of(5));
        assertThrows(IllegalStateException.class, NakCode.RESERVED::code);
        assertEquals(655_360, Aeth.rnrTimerMicros(0));
        assertEquals(10, Aeth.rnrTimerMicros(1));
        assertEquals(1_280, Aeth.rnrTimerMicros(14));
        assertEquals(61_440, Aeth.rnrTimerMicros(25));
        assertEquals(491_520, Aeth.rnrTimerMicros(31));
    }

    @Test
    void pathMtus() {
        assertEquals(PathMtu.MTU_1024, PathMtu.ofBytes(1024).orElseThrow());
        assertEquals(3, PathMtu.MTU_1024.code());
        assertTrue(PathMtu.ofBytes(1500).isEmpty());
    }
}
