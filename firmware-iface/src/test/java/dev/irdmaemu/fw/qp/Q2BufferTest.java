package dev.irdmaemu.fw.qp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The Q2 buffer's layout, both sides of it: the Terminate message at 0 as ctrl.c irdma_bld_terminate_hdr writes it
 * and as the device reads its length from the Hdrct bits (RFC 5040 §4.8), the frame at Q2_BAD_FRAME_OFFSET (72),
 * irdma_locate_mpa, and the DDP header and Terminate Control irdma_terminate_received reads behind it.
 */
class Q2BufferTest {
    private final BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(512);
    private final Q2Buffer q2 = new Q2Buffer();

    @Test
    void theDevicesFrameCopyIsTruncatedToTheBufferAndTheMpaHeaderIsFoundAsIrdmaFindsIt() {
        mem.zeroOut(0, 512);
        BytesStore<?, ?> frame = BytesStore.nativeStoreWithFixedCapacity(300);
        frame.zeroOut(0, 300);
        frame.writeUnsignedByte(14, 0x46);
        frame.writeUnsignedByte(14 + 24 + 12, 0x80);
        frame.writeUnsignedByte(299, 0x55);
        q2.wrap(mem, 0);
        assertEquals(Q2Buffer.FRAME_CAPACITY, q2.writeFrame(frame, 0, 300));
        assertEquals(0x46, q2.u8(Q2Buffer.BAD_FRAME_OFFSET + 14));
        // 14-byte MAC header, IHL 6 (24 bytes), data offset 8 (32 bytes)
        assertEquals(Q2Buffer.BAD_FRAME_OFFSET + 14 + 24 + 32, q2.locateMpa());
        assertEquals(0, mem.readUnsignedByte(Q2Buffer.SIZE), "nothing past the 256 bytes");
    }

    @Test
    void theTerminateHeaderClearsTheFrontOfTheBufferOnly() {
        mem.zeroOut(0, 512);
        for (int i = 0; i < Q2Buffer.SIZE; i++) {
            mem.writeUnsignedByte(i, 0xaa);
        }
        q2.wrap(mem, 0).writeTerminateHeader(Terminate.LAYER_DDP, Terminate.Ddp.ETYPE_UNTAGGED_BUFFER, 0x05, 0xc0);
        // type.h struct irdma_terminate_hdr: layer_etype = layer << 4 | error type (RFC 5040 §4.8)
        assertEquals(0x12, mem.readUnsignedByte(0));
        Terminate t = q2.terminate();
        assertEquals(1, t.layer());
        assertEquals(2, t.errorType());
        assertEquals(5, t.errorCode());
        assertEquals(0xc0, t.hdrct());
        assertEquals(0, t.reserved(), "rsvd");
        assertEquals(0, q2.u8(Q2Buffer.BAD_FRAME_OFFSET - 1));
        assertEquals(0xaa, q2.u8(Q2Buffer.BAD_FRAME_OFFSET), "the frame area is the device's");
        assertEquals(0xaaaa, q2.u16(Q2Buffer.BAD_FRAME_OFFSET));
        assertEquals(0, q2.u16(Q2Buffer.SIZE - 1), "reads past the buffer answer 0");
    }

    @Test
    void theDeviceSendsAsManyBytesAsTheHdrctBitsSayBoundedByWhatIrdmaEverBuilds() {
        mem.zeroOut(0, 512);
        q2.wrap(mem, 0);
        // M and D with an untagged copied header: 4 + 2 + 18
        q2.writeTerminateHeader(Terminate.LAYER_DDP, Terminate.Ddp.ETYPE_UNTAGGED_BUFFER, 1,
                Terminate.FLAG_M | Terminate.FLAG_D);
        mem.writeUnsignedByte(6, DdpHeader.controlByte(false, true));
        assertEquals(24, q2.terminateLength());
        // a tagged copied header is 14 bytes
        mem.writeUnsignedByte(6, DdpHeader.controlByte(true, true));
        assertEquals(20, q2.terminateLength());
        // all three: the longest message, Q2Buffer.MAX_TERM_LENGTH
        mem.writeUnsignedByte(2, Terminate.FLAG_M | Terminate.FLAG_D | Terminate.FLAG_R);
        mem.writeUnsignedByte(6, DdpHeader.controlByte(false, true));
        assertEquals(Q2Buffer.MAX_TERM_LENGTH, q2.terminateLength());
        assertEquals(52, Q2Buffer.MAX_TERM_LENGTH);
        // no bit: the Terminate Control alone
        mem.writeUnsignedByte(2, 0);
        assertEquals(Terminate.CONTROL_LENGTH, q2.terminateLength());
        BytesStore<?, ?> out = BytesStore.nativeStoreWithFixedCapacity(64);
        out.zeroOut(0, 64);
        assertEquals(4, q2.copyTerminate(out, 8, q2.terminateLength()));
        assertEquals(0x12, out.readUnsignedByte(8));
        assertEquals(0, out.readUnsignedByte(12), "no more than the message");
        assertEquals(Q2Buffer.MAX_TERM_LENGTH, q2.copyTerminate(out, 0, 1000), "never more than irdma builds");
    }

    @Test
    void aPeersTerminateInTheFrameAreaIsReadBehindItsUntaggedDdpHeader() {
        mem.zeroOut(0, 512);
        q2.wrap(mem, 0);
        int mpa = Q2Buffer.BAD_FRAME_OFFSET + 14 + 20 + 20;
        mem.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14, 0x45);
        mem.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14 + 20 + 12, 0x50);
        mem.writeUnsignedByte(mpa + 1, 28);
        DdpHeader.writeUntagged(mem, mpa + 2, RdmapOpcode.CODE_TERMINATE, true, 0, RdmapOpcode.QN_TERMINATE, 1, 0);
        mem.writeUnsignedByte(mpa + 20, Terminate.layerEtype(Terminate.LAYER_RDMAP,
                Terminate.Rdmap.ETYPE_REMOTE_PROTECTION));
        mem.writeUnsignedByte(mpa + 21, Terminate.Rdmap.INVALID_STAG);
        assertEquals(mpa, q2.locateMpa());
        assertEquals(28, q2.frameUlpduLength());
        DdpHeader ddp = q2.frameDdp();
        assertFalse(ddp.tagged());
        assertTrue(ddp.last());
        assertEquals(RdmapOpcode.QN_TERMINATE, ddp.queueNumber());
        assertEquals(1, ddp.msn());
        assertEquals(0, ddp.messageOffset());
        assertEquals(RdmapOpcode.CODE_TERMINATE, ddp.opcode());
        Terminate peer = q2.frameTerminate();
        assertEquals(Terminate.LAYER_RDMAP, peer.layer());
        assertEquals(Terminate.Rdmap.ETYPE_REMOTE_PROTECTION, peer.errorType());
        assertEquals(Terminate.Rdmap.INVALID_STAG, peer.errorCode());
    }

    /** irdma_bld_termhdr_ddp_rdma: M and the tagged DDP header for a Write; R too for a Read Request. */
    @Test
    void theTerminateCarriesTheOffendingFpdusHeadersAsIrdmaCopiesThem() {
        mem.zeroOut(0, 512);
        q2.wrap(mem, 0);
        int mpa = Q2Buffer.BAD_FRAME_OFFSET + 14 + 20 + 20;
        mem.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14, 0x45);
        mem.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14 + 20 + 12, 0x50);
        mem.writeUnsignedByte(mpa + 1, 14 + 100);
        DdpHeader.writeTagged(mem, mpa + 2, RdmapOpcode.CODE_RDMA_WRITE, true, 0x1234_5600, 0x10_0000L);
        assertEquals(4 + 2 + 14, q2.writeTerminate(Terminate.LAYER_DDP, Terminate.Ddp.ETYPE_TAGGED_BUFFER,
                Terminate.Ddp.TAGGED_INVALID_STAG, true));
        Terminate t = q2.terminate();
        assertEquals(Terminate.FLAG_M | Terminate.FLAG_D, t.hdrct());
        assertEquals(14 + 100, t.ddpSegmentLength());
        assertEquals(0x1234_5600, new DdpHeader().wrap(mem, t.ddpHeaderOffset(), t.ddpHeaderLength()).stag());
        assertEquals(20, q2.terminateLength(), "what the device will send");
        // an RDMA Read Request: untagged header and its 28-byte RDMAP header
        mem.writeUnsignedByte(mpa + 1, 18 + 28);
        DdpHeader.writeUntagged(mem, mpa + 2, RdmapOpcode.CODE_RDMA_READ_REQUEST, true, 0,
                RdmapOpcode.QN_READ_REQUEST, 1, 0);
        assertEquals(4 + 2 + 18 + 28, q2.writeTerminate(Terminate.LAYER_RDMAP,
                Terminate.Rdmap.ETYPE_REMOTE_PROTECTION, Terminate.Rdmap.ACCESS_RIGHTS_VIOLATION, true));
        assertEquals(Terminate.FLAG_M | Terminate.FLAG_D | Terminate.FLAG_R, q2.terminate().hdrct());
        assertEquals(Q2Buffer.MAX_TERM_LENGTH, q2.terminateLength());
        // without Q2 data (IRDMA_AEQE_Q2DATA clear) the frame area is not looked at
        assertEquals(4, q2.writeTerminate(Terminate.LAYER_RDMAP, Terminate.Rdmap.ETYPE_REMOTE_OPERATION,
                Terminate.Rdmap.UNSPECIFIED, false));
        assertEquals(0, q2.terminate().hdrct());
        assertEquals(0, q2.u8(4), "the copied headers of the last message are cleared");
    }

    @Test
    void headersClaimingMoreThanTheBufferHoldsGiveNoMpaHeaderAndEmptyViews() {
        mem.zeroOut(0, 512);
        for (int i = Q2Buffer.SIZE; i < 512; i++) {
            mem.writeUnsignedByte(i, 0x77);
        }
        q2.wrap(mem, 0);
        // IHL 15 and a data offset of 15 put the MPA header at 72 + 14 + 120 = 206: still inside
        mem.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14, 0x4f);
        mem.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14 + 60 + 12, 0xf0);
        assertEquals(206, q2.locateMpa());
        assertEquals(Q2Buffer.SIZE - 208, q2.frameDdp().length(), "the DDP view stops at the buffer's end");
        assertEquals(Q2Buffer.SIZE - 226, q2.frameTerminate().length());
        // a TCP header whose data offset field lies past the buffer
        BytesStore<?, ?> small = BytesStore.nativeStoreWithFixedCapacity(Q2Buffer.BAD_FRAME_OFFSET + 40);
        small.zeroOut(0, small.capacity());
        small.writeUnsignedByte(Q2Buffer.BAD_FRAME_OFFSET + 14, 0x4f);
        q2.wrap(small, 0);
        assertEquals(-1, q2.locateMpa());
        assertEquals(0, q2.frameDdp().length());
        assertEquals(0, q2.frameTerminate().length());
        assertEquals(0, q2.frameUlpduLength());
        assertFalse(q2.frameDdp().last(), "an empty view reads 0");
    }

    @Test
    void aWindowTooShortIsReadAsZeroAndRefusesWrites() {
        BytesStore<?, ?> small = BytesStore.nativeStoreWithFixedCapacity(16);
        small.zeroOut(0, 16);
        q2.wrap(small, 0);
        assertEquals(-1, q2.locateMpa());
        assertEquals(0, q2.terminateLength(), "no Terminate to send from a buffer that is not there");
        assertThrows(IllegalArgumentException.class, () -> q2.writeTerminateHeader(1, 2, 3, 0));
    }
}
