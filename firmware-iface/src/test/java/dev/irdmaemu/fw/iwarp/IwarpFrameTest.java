package dev.irdmaemu.fw.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.zip.CRC32C;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Whole frames: FPDU (RFC 5044 §4) + DDP (RFC 5041 §5) + RDMAP (RFC 5040 §4) in one call. */
class IwarpFrameTest {
    private final IwarpFrame frame = new IwarpFrame();

    @Test
    void sendFrameBytesByHand() {
        // Send, L, QN 0, MSN 1, MO 0, payload "hi": ULPDU = 18 + 2 = 20 -> pad 2 -> 24 + CRC
        byte[] payload = {'h', 'i'};
        byte[] out = new byte[IwarpFrame.untaggedFrameLength(2)];
        assertEquals(28, out.length);
        int n = frame.writeUntagged(Stores.heap(out), 0, out.length, RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0,
                Stores.heap(payload), 0, 2, true);
        assertEquals(28, n);
        byte[] head = Stores.hex("0014 41 43 00000000 00000000 00000001 00000000 6869 0000");
        assertArrayEquals(head, java.util.Arrays.copyOf(out, 24));
        CRC32C ref = new CRC32C();
        ref.update(out, 0, 24);
        assertEquals((int) ref.getValue(), Crc32c.readWire(Stores.heap(out), 24));
        assertEquals(FpduCheck.ACCEPTED, frame.parse(Stores.heap(out), 0, out.length, true));
        assertEquals(RdmapOpcode.SEND, frame.ddp().rdmapOpcode());
        assertEquals(2, frame.ddp().payloadLength());
        assertEquals(20, frame.ddp().payloadOffset());
    }

    @Test
    void sendFrameWithoutCrcBytesByHand() {
        // RFC 5044 §4.1: with CRC off the same frame still ends in the 4-byte CRC field, here zeros: 28 bytes
        byte[] payload = {'h', 'i'};
        byte[] out = new byte[IwarpFrame.untaggedFrameLength(2)];
        assertEquals(28, out.length);
        int n = frame.writeUntagged(Stores.heap(out), 0, out.length, RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0,
                Stores.heap(payload), 0, 2, false);
        assertEquals(28, n);
        assertArrayEquals(Stores.hex("0014 41 43 00000000 00000000 00000001 00000000 6869 0000 00000000"), out);
        assertEquals(FpduCheck.ACCEPTED, frame.parse(Stores.heap(out), 0, out.length, false));
        assertEquals(2, frame.ddp().payloadLength());
        out[27] = 0x77; // not checked with CRC off
        assertEquals(FpduCheck.ACCEPTED, frame.parse(Stores.heap(out), 0, out.length, false));
        assertEquals(FpduCheck.CRC_MISMATCH, frame.parse(Stores.heap(out), 0, out.length, true));
    }

    @Property(tries = 200)
    void taggedRoundTripOffHeap(@ForAll boolean readResponse, @ForAll int stag, @ForAll long to,
                                @ForAll @Size(max = 600) byte[] payload, @ForAll boolean crc,
                                @ForAll @IntRange(max = 9) int at) {
        int len = IwarpFrame.taggedFrameLength(payload.length);
        BytesStore<?, ?> out = Stores.nativeAt(new byte[0], at + len);
        try {
            int op = readResponse ? RdmapOpcode.CODE_RDMA_READ_RESPONSE : RdmapOpcode.CODE_RDMA_WRITE;
            assertEquals(len, frame.writeTagged(out, at, len, op, true, stag, to, Stores.heap(payload), 0,
                    payload.length, crc));
            assertEquals(FpduCheck.ACCEPTED, frame.parse(out, at, len, crc));
            DdpHeader d = frame.ddp();
            assertEquals(op, d.opcode());
            assertEquals(stag, d.stag());
            assertEquals(to, d.taggedOffset());
            assertEquals(payload.length, d.payloadLength());
            assertArrayEquals(payload, Stores.read(out, d.payloadOffset(), payload.length));
        } finally {
            out.releaseLast();
        }
    }

    @Property(tries = 200)
    void readRequestRoundTrip(@ForAll int msn, @ForAll int sinkStag, @ForAll long sinkTo, @ForAll int size,
                              @ForAll int srcStag, @ForAll long srcTo) {
        byte[] out = new byte[IwarpFrame.untaggedFrameLength(RdmaReadRequest.LENGTH)];
        BytesStore<?, ?> s = Stores.heap(out);
        assertEquals(out.length, frame.writeReadRequest(s, 0, out.length, msn, sinkStag, sinkTo, size, srcStag,
                srcTo, true));
        assertEquals(FpduCheck.ACCEPTED, frame.parse(s, 0, out.length, true));
        DdpHeader d = frame.ddp();
        assertEquals(RdmapOpcode.RDMA_READ_REQUEST, d.rdmapOpcode());
        assertEquals(RdmapOpcode.QN_READ_REQUEST, d.queueNumber());
        assertTrue(d.queueMatchesOpcode());
        RdmaReadRequest r = new RdmaReadRequest().wrap(s, d.payloadOffset(), d.payloadLength());
        assertEquals(RdmaReadRequestCheck.ACCEPTED, r.validate());
        assertEquals(sinkStag, r.sinkStag());
        assertEquals(sinkTo, r.sinkTaggedOffset());
        assertEquals(Integer.toUnsignedLong(size), r.readMessageSize());
        assertEquals(srcStag, r.sourceStag());
        assertEquals(srcTo, r.sourceTaggedOffset());
    }

    @Test
    void ddpFailuresAreReportedWithOffsetsIntoTheFpdu() {
        byte[] out = new byte[IwarpFrame.untaggedFrameLength(0)];
        BytesStore<?, ?> s = Stores.heap(out);
        frame.writeUntagged(s, 0, out.length, RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, null, 0, 0, false);
        out[3] = (byte) 0x49; // RDMAP opcode 9
        assertEquals(DdpCheck.UNKNOWN_OPCODE, frame.parse(s, 0, out.length, false));
        assertEquals(3, frame.failedAt());
        assertEquals(FpduCheck.TOO_SHORT, frame.parse(s, 0, 1, false));
    }
}
