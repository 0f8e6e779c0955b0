package dev.irdmaemu.driver.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.AeCode;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Terminate header against ctrl.c irdma_bld_terminate_hdr's rules, for every AE it maps: layer, error type
 * and error code (type.h's enums, RFC 5040 §7.2 / RFC 5041 §7.2 / RFC 5044 §8), the hdrct flags and the copied
 * headers of the offending FPDU (irdma_bld_termhdr_ddp_rdma), the flush code and the QP event type. The expected
 * values are written out from the kernel source, case by case.
 */
class TerminateBuilderTest {
    /** The offending frame the device copies into Q2. */
    enum Frame {
        /** No Q2 data (IRDMA_AEQE_Q2DATA clear). */
        NONE,
        /** An RDMA Write FPDU: tagged DDP, RDMAP opcode 0, ULPDU length 14 + 100. */
        TAGGED_WRITE,
        /** A Send FPDU: untagged, opcode 3, ULPDU length 18 + 40. */
        SEND,
        /** A Send with Invalidate: untagged, opcode 4. */
        SEND_INV,
        /** An RDMA Read Request: untagged, opcode 1, ULPDU length 18 + 28: the RDMAP header is copied too. */
        READ_REQUEST,
        /** An untagged FPDU whose ULPDU length (10) is shorter than a DDP header: only the length is copied. */
        SHORT,
        /** A zero ULPDU length: nothing copied. */
        EMPTY
    }

    private static final int MPA = Q2Buffer.BAD_FRAME_OFFSET + 14 + 20 + 20;

    /** Writes an Ethernet / IPv4 / TCP frame with the FPDU's first 48 bytes into the Q2 frame area. */
    static void writeFrame(BytesStore<?, ?> q2, Frame f) {
        int at = Q2Buffer.BAD_FRAME_OFFSET;
        for (int i = 0; i < 14; i++) {
            q2.writeUnsignedByte(at + i, 0xee);
        }
        q2.writeUnsignedByte(at + 12, 0x08);
        q2.writeUnsignedByte(at + 13, 0x00);
        q2.writeUnsignedByte(at + 14, 0x45);
        q2.writeUnsignedByte(at + 14 + 20 + 12, 0x50);
        int len;
        int ddp;
        int rdmap;
        switch (f) {
            case TAGGED_WRITE -> {
                len = 14 + 100;
                ddp = 0xc1;
                rdmap = 0x40;
            }
            case SEND -> {
                len = 18 + 40;
                ddp = 0x41;
                rdmap = 0x43;
            }
            case SEND_INV -> {
                len = 18 + 40;
                ddp = 0x41;
                rdmap = 0x44;
            }
            case READ_REQUEST -> {
                len = 18 + 28;
                ddp = 0x41;
                rdmap = 0x41;
            }
            case SHORT -> {
                len = 10;
                ddp = 0x41;
                rdmap = 0x43;
            }
            default -> {
                len = 0;
                ddp = 0x41;
                rdmap = 0x43;
            }
        }
        q2.writeUnsignedByte(MPA, len >>> 8);
        q2.writeUnsignedByte(MPA + 1, len & 0xff);
        q2.writeUnsignedByte(MPA + 2, ddp);
        q2.writeUnsignedByte(MPA + 3, rdmap);
        for (int i = 4; i < 48; i++) {
            q2.writeUnsignedByte(MPA + i, 0x10 + i);
        }
    }

    static Arguments c(String name, AeCode ae, Frame frame, int layer, int type, int code, int flush, int event) {
        return arguments(named(name, ae), frame, layer, type, code, flush, event);
    }

    static final int ACCESS = FlushCode.EVENT_ACCESS_ERR;
    static final int CATA = FlushCode.EVENT_CATASTROPHIC;
    static final int RDMA = Terminate.LAYER_RDMAP;
    static final int DDP = Terminate.LAYER_DDP;
    static final int MPA_LAYER = Terminate.LAYER_LLP;

    static Stream<Arguments> rules() {
        return Stream.of(
                c("unallocated STag in an RDMA Write: DDP tagged, invalid STag", AeCode.AMP_UNALLOCATED_STAG,
                        Frame.TAGGED_WRITE, DDP, 1, 0x00, FlushCode.PROT_ERR, ACCESS),
                c("unallocated STag otherwise: RDMAP remote protection, invalid STag", AeCode.AMP_UNALLOCATED_STAG,
                        Frame.NONE, RDMA, 1, 0x00, FlushCode.REM_ACCESS_ERR, ACCESS),
                c("bounds violation with Q2 data: DDP tagged, base or bounds", AeCode.AMP_BOUNDS_VIOLATION,
                        Frame.TAGGED_WRITE, DDP, 1, 0x01, FlushCode.PROT_ERR, ACCESS),
                c("bounds violation without Q2 data: RDMAP, invalid bounds", AeCode.AMP_BOUNDS_VIOLATION,
                        Frame.NONE, RDMA, 1, 0x01, FlushCode.REM_ACCESS_ERR, ACCESS),
                c("bad PD in an RDMA Write: DDP tagged, STag not associated", AeCode.AMP_BAD_PD,
                        Frame.TAGGED_WRITE, DDP, 1, 0x02, FlushCode.PROT_ERR, CATA),
                c("bad PD in a Send with Invalidate: cannot invalidate", AeCode.AMP_BAD_PD, Frame.SEND_INV, RDMA,
                        1, 0x09, FlushCode.REM_ACCESS_ERR, CATA),
                c("bad PD otherwise: RDMAP, STag not associated", AeCode.AMP_BAD_PD, Frame.SEND, RDMA, 1, 0x03,
                        FlushCode.REM_ACCESS_ERR, CATA),
                c("invalid STag", AeCode.AMP_INVALID_STAG, Frame.SEND, RDMA, 1, 0x00, FlushCode.REM_ACCESS_ERR,
                        ACCESS),
                c("bad QP: DDP untagged, invalid QN", AeCode.AMP_BAD_QP, Frame.SEND, DDP, 2, 0x01,
                        FlushCode.LOC_QP_OP_ERR, CATA),
                c("bad STag key in a Send with Invalidate: remote operation, cannot invalidate",
                        AeCode.AMP_BAD_STAG_KEY, Frame.SEND_INV, RDMA, 2, 0x09, FlushCode.REM_OP_ERR, ACCESS),
                c("bad STag key otherwise: remote operation, invalid STag", AeCode.AMP_BAD_STAG_KEY,
                        Frame.TAGGED_WRITE, RDMA, 2, 0x00, FlushCode.REM_ACCESS_ERR, ACCESS),
                c("bad STag index in a Send with Invalidate", AeCode.AMP_BAD_STAG_INDEX, Frame.SEND_INV, RDMA, 2,
                        0x09, FlushCode.REM_OP_ERR, ACCESS),
                c("bad STag index otherwise", AeCode.AMP_BAD_STAG_INDEX, Frame.NONE, RDMA, 2, 0x00,
                        FlushCode.REM_ACCESS_ERR, ACCESS),
                c("rights violation: access rights", AeCode.AMP_RIGHTS_VIOLATION, Frame.TAGGED_WRITE, RDMA, 1,
                        0x02, FlushCode.REM_ACCESS_ERR, ACCESS),
                c("invalidate without remote access rights", AeCode.AMP_INVALIDATE_NO_REMOTE_ACCESS_RIGHTS,
                        Frame.SEND_INV, RDMA, 1, 0x02, FlushCode.REM_ACCESS_ERR, ACCESS),
                c("privileged operation denied", AeCode.PRIV_OPERATION_DENIED, Frame.NONE, RDMA, 1, 0x02,
                        FlushCode.REM_ACCESS_ERR, ACCESS),
                c("tagged offset wrap", AeCode.AMP_TO_WRAP, Frame.TAGGED_WRITE, RDMA, 1, 0x04,
                        FlushCode.REM_ACCESS_ERR, ACCESS),
                c("MPA CRC error: LLP layer, CRC", AeCode.LLP_RECEIVED_MPA_CRC_ERROR, Frame.SEND, MPA_LAYER, 3,
                        0x02, FlushCode.GENERAL_ERR, CATA),
                c("segment too small: DDP catastrophic", AeCode.LLP_SEGMENT_TOO_SMALL, Frame.SHORT, DDP, 0, 0x00,
                        FlushCode.LOC_LEN_ERR, CATA),
                c("QP catastrophic: DDP catastrophic", AeCode.LCE_QP_CATASTROPHIC, Frame.NONE, DDP, 0, 0x00,
                        FlushCode.FATAL_ERR, CATA),
                c("no L bit: DDP catastrophic", AeCode.DDP_NO_L_BIT, Frame.SEND, DDP, 0, 0x00, FlushCode.FATAL_ERR,
                        CATA),
                c("MSN gap: DDP untagged, MSN range", AeCode.DDP_INVALID_MSN_GAP_IN_MSN, Frame.SEND, DDP, 2, 0x03,
                        FlushCode.GENERAL_ERR, CATA),
                c("message too long for the buffer", AeCode.DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER,
                        Frame.SEND, DDP, 2, 0x05, FlushCode.LOC_LEN_ERR, ACCESS),
                c("invalid DDP version in a tagged FPDU", AeCode.DDP_UBE_INVALID_DDP_VERSION, Frame.TAGGED_WRITE,
                        DDP, 1, 0x04, FlushCode.GENERAL_ERR, CATA),
                c("invalid DDP version in an untagged FPDU", AeCode.DDP_UBE_INVALID_DDP_VERSION, Frame.SEND, DDP,
                        2, 0x06, FlushCode.GENERAL_ERR, CATA),
                c("invalid MO", AeCode.DDP_UBE_INVALID_MO, Frame.SEND, DDP, 2, 0x04, FlushCode.GENERAL_ERR, CATA),
                c("no buffer for the MSN", AeCode.DDP_UBE_INVALID_MSN_NO_BUFFER_AVAILABLE, Frame.SEND, DDP, 2,
                        0x02, FlushCode.REM_OP_ERR, CATA),
                c("invalid QN", AeCode.DDP_UBE_INVALID_QN, Frame.SEND, DDP, 2, 0x01, FlushCode.GENERAL_ERR, CATA),
                c("invalid RDMAP version", AeCode.RDMAP_ROE_INVALID_RDMAP_VERSION, Frame.READ_REQUEST, RDMA, 2,
                        0x05, FlushCode.GENERAL_ERR, CATA),
                c("any other error AE: RDMAP remote operation, unspecified", AeCode.RDMAP_ROE_UNEXPECTED_OPCODE,
                        Frame.SEND, RDMA, 2, 0xff, FlushCode.FATAL_ERR, CATA),
                c("too many retries: unspecified", AeCode.LLP_TOO_MANY_RETRIES, Frame.NONE, RDMA, 2, 0xff,
                        FlushCode.FATAL_ERR, CATA));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void theAeMapsToLayerTypeCodeFlushCodeAndEvent(AeCode ae, Frame frame, int layer, int type, int code, int flush,
                                                   int event) {
        BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(Q2Buffer.SIZE);
        mem.zeroOut(0, Q2Buffer.SIZE);
        boolean q2Data = frame != Frame.NONE;
        if (q2Data) {
            writeFrame(mem, frame);
        }
        Q2Buffer q2 = new Q2Buffer().wrap(mem, 0);
        TerminateBuilder b = new TerminateBuilder();
        int termLen = b.build(q2, ae.code(), q2Data);
        assertEquals(layer << 4 | type, mem.readUnsignedByte(0), "layer_etype");
        assertEquals(code, mem.readUnsignedByte(1), "error_code");
        assertEquals(0, mem.readUnsignedByte(3), "rsvd");
        assertEquals(layer, q2.terminate().layer());
        assertEquals(type, q2.terminate().errorType());
        assertEquals(code, q2.terminate().errorCode());
        assertEquals(layer, b.layer());
        assertEquals(type, b.errorType());
        assertEquals(flush, b.flushCode(), "flush_code");
        assertEquals(event, b.eventType(), "event_type");
        assertEquals(Terminate.CONTROL_LENGTH + b.copied(), termLen);
        assertEquals(termLen, q2.terminateLength(), "the device sends what the driver built, by its Hdrct bits");
    }

    static Stream<Arguments> copies() {
        return Stream.of(
                arguments(named("tagged FPDU: ULPDU length and the 14-byte DDP header", Frame.TAGGED_WRITE), 0xc0, 16),
                arguments(named("untagged FPDU: ULPDU length and the 18-byte DDP header", Frame.SEND), 0xc0, 20),
                arguments(named("RDMA Read Request: also its 28-byte RDMAP header", Frame.READ_REQUEST), 0xe0, 48),
                arguments(named("shorter than a DDP header: the length only", Frame.SHORT), 0x80, 2),
                arguments(named("zero ULPDU length: nothing", Frame.EMPTY), 0x00, 0),
                arguments(named("no Q2 data: nothing", Frame.NONE), 0x00, 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("copies")
    void theOffendingHeadersAreCopiedBehindTheHeaderWithTheirHdrctFlags(Frame frame, int hdrct, int copied) {
        BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(Q2Buffer.SIZE);
        mem.zeroOut(0, Q2Buffer.SIZE);
        if (frame != Frame.NONE) {
            writeFrame(mem, frame);
        }
        // stale bytes in front of the frame area are cleared (memset of Q2_BAD_FRAME_OFFSET)
        mem.writeUnsignedByte(60, 0x99);
        TerminateBuilder b = new TerminateBuilder();
        int termLen = b.build(new Q2Buffer().wrap(mem, 0), AeCode.DDP_UBE_INVALID_MO.code(), frame != Frame.NONE);
        assertEquals(hdrct, mem.readUnsignedByte(2), "hdrct");
        assertEquals(copied, b.copied());
        assertEquals(4 + copied, termLen);
        for (int i = 0; i < copied; i++) {
            assertEquals(mem.readUnsignedByte(MPA + i), mem.readUnsignedByte(4 + i), "copied byte " + i);
        }
        for (int i = 4 + copied; i < Q2Buffer.BAD_FRAME_OFFSET; i++) {
            assertEquals(0, mem.readUnsignedByte(i), "cleared byte " + i);
        }
    }

    @Test
    void theLongestHeadersAFrameCanClaimStillLeaveTheCopyInsideQ2() {
        BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(Q2Buffer.SIZE);
        mem.zeroOut(0, Q2Buffer.SIZE);
        // IHL 15 and a data offset of 15: 60 + 60 bytes of headers put the MPA header at 72 + 14 + 120 = 206
        mem.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14, 0x4f);
        mem.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14 + 60 + 12, 0xf0);
        int mpa = 206;
        mem.writeUnsignedByte(mpa + 1, 46);
        mem.writeUnsignedByte(mpa + 2, 0x41);
        mem.writeUnsignedByte(mpa + 3, 0x41);
        Q2Buffer q2 = new Q2Buffer().wrap(mem, 0);
        assertEquals(mpa, q2.locateMpa());
        TerminateBuilder b = new TerminateBuilder();
        assertEquals(4 + 48, b.build(q2, AeCode.DDP_UBE_INVALID_QN.code(), true));
        assertEquals(48, b.copied(), "206 + 48 = 254: inside the 256-byte buffer");
        assertEquals(0xe0, mem.readUnsignedByte(2));
        assertEquals(46, mem.readUnsignedByte(5));
    }

    @Test
    void aCopyRunningPastTheBufferIsCutShort() {
        BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(Q2Buffer.SIZE);
        mem.zeroOut(0, Q2Buffer.SIZE);
        Q2Buffer q2 = new Q2Buffer().wrap(mem, 0);
        assertEquals(10, q2.copyOffendingHeaders(Q2Buffer.SIZE - 10, 48));
        assertEquals(0, q2.copyOffendingHeaders(Q2Buffer.SIZE + 4, 48));
        assertEquals(0, q2.copyOffendingHeaders(10, 48), "only from the frame area");
    }

    @Test
    void anUnknownAeCodeIsUnspecified() {
        BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(Q2Buffer.SIZE);
        mem.zeroOut(0, Q2Buffer.SIZE);
        TerminateBuilder b = new TerminateBuilder();
        b.build(new Q2Buffer().wrap(mem, 0), 0x0fff, false);
        assertEquals(0x02, mem.readUnsignedByte(0));
        assertEquals(0xff, mem.readUnsignedByte(1));
        assertEquals(FlushCode.FATAL_ERR, b.flushCode());
    }
}
