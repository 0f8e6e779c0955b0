package dev.irdmaemu.fw.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Known-bytes tests of the CQE and its extension, quadwords written by hand from the defs.h masks. */
class CqeTest {
    private final Cqe cqe = new Cqe();
    private final CqeExtension ext = new CqeExtension();

    /** An ILQ receive completion as irdma_puda_poll_info reads it (gen2, extended for the VLAN). */
    @Test
    void pudaReceiveCompletionKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(64);
        cqe.wrap(s, 0, 32).clear().payloadLength(40 + 20 + 12).completionContext(0xffff_8880_1234_5678L).qpId(1)
            .wqeIndex(5).extended(true).ipv4(true).opType(Cqe.OP_RECEIVE).valid(true);
        // IRDMACQ_PAYLDLEN [31:0] = 72
        assertEquals(72L, Mem.qword(s, 0));
        // IRDMA_CQ_QPCTX: the QP handle
        assertEquals(0xffff_8880_1234_5678L, Mem.qword(s, 8));
        // IRDMACQ_QPID [55:32] = 1
        assertEquals(0x0000_0001_0000_0000L, Mem.qword(s, 16));
        // IRDMA_CQ_VALID 63 | IRDMACQ_OP [61:56] = 0x3e | IRDMACQ_IPV4 53 | IRDMA_CQ_EXTCQE 50 | IRDMA_CQ_WQEIDX = 5
        assertEquals(0xbe24_0005_0000_0000L, Mem.qword(s, 24));

        ext.wrap(s, 32, 32).clear().vlan(0x0064).sourceMac(0x02_00_00_00_00_01L).valid(true);
        // IRDMA_CQ_UDVLAN [63:48] = 100 | IRDMA_CQ_UDSMAC [47:0]
        assertEquals(0x0064_0200_0000_0001L, Mem.qword(s, 48));
        // IRDMA_CQ_VALID 63 | IRDMA_CQ_UDSMACVALID 61 | IRDMA_CQ_UDVLANVALID 60
        assertEquals(0xb000_0000_0000_0000L, Mem.qword(s, 56));
    }

    /**
     * A slot of the second pass of a ring (new polarity 0) holds the first pass's entry (valid bit 1): while the
     * device rewrites it, the driver must go on reading "not yet written". Clearing the valid bit with the rest let
     * libirdma take a half-written SQ completion (no SQ bit yet) for a receive (perftest's "Bad wc status 0").
     */
    @Test
    void aSlotBeingRewrittenNeverMatchesTheNewPolarityBeforeValid() {
        BytesStore<?, ?> s = Mem.heap(64);
        cqe.wrap(s, 0, 32).clear().completionContext(0x1234).qpId(4).wqeIndex(3).opType(3).sq(true).valid(true);
        cqe.clear();
        assertTrue(cqe.valid(), "clear keeps the old pass's bit");
        cqe.completionContext(0x1234).qpId(4).wqeIndex(4).opType(3).error(1, 2).sq(true);
        assertTrue(cqe.valid(), "no setter touches it");
        assertEquals(0L, Mem.qword(s, 0), "the other quadwords are cleared");
        cqe.valid(false);
        assertFalse(cqe.valid());
        assertTrue(cqe.sq());
        assertEquals(4, cqe.wqeIndex());
        ext.wrap(s, 32, 32).clear().vlan(7).valid(true);
        ext.clear();
        assertTrue(ext.valid(), "the extension's clear keeps its bit too");
        assertFalse(ext.vlanValid());
    }

    /** Bytes in memory order, read as irdma_uk_cq_poll_cmpl / irdma_puda_poll_info would. */
    @Test
    void readsHandWrittenBytes() {
        BytesStore<?, ?> s = Mem.offHeap(64);
        try {
            Mem.putQword(s, 0, 0x1122_3344_0000_05dcL);
            Mem.putQword(s, 8, 0x0000_7f00_dead_beefL);
            Mem.putQword(s, 16, 0x0000_0abc_0000_5555L);
            // valid, SQ, op 0x03 (Send), error, SE, SRQ, wqe idx 0x7fff, major 1 (flush), minor 2
            Mem.putQword(s, 24, 0xc3d0_7fff_0001_0002L);
            cqe.wrap(s, 0, 32);
            assertEquals(CqeCheck.ACCEPTED, cqe.validate(true));
            assertEquals(CqeCheck.NOT_POSTED, cqe.validate(false));
            assertEquals(1500, cqe.payloadLength());
            assertEquals(0x1122_3344, cqe.tcpSeqNumRtt());
            assertEquals(0x0000_7f00_dead_beefL, cqe.completionContext());
            assertEquals(0xabc, cqe.qpId());
            assertEquals(0x5555, cqe.invalidatedStag());
            assertTrue(cqe.valid());
            assertTrue(cqe.sq());
            assertEquals(Cqe.QTYPE_SQ, cqe.queueType());
            assertEquals(0x03, cqe.opType());
            assertTrue(cqe.error());
            assertTrue(cqe.solicitedEvent());
            assertTrue(cqe.srq());
            assertFalse(cqe.stagInvalidated());
            assertFalse(cqe.extended());
            assertEquals(0x7fff, cqe.wqeIndex());
            assertEquals(Cqe.MAJOR_FLUSH, cqe.majorError());
            assertEquals(2, cqe.minorError());
            assertEquals(0x0001_0002, cqe.pudaComplError());
        } finally {
            s.releaseLast();
        }
    }

    @Test
    void errorCompletionKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(32);
        cqe.wrap(s, 0, 32).clear().error(Cqe.MAJOR_FLUSH, 1).wqeIndex(3).valid(false);
        // IRDMA_CQ_ERROR 55 | IRDMA_CQ_WQEIDX = 3 | IRDMA_CQ_MAJERR = 1 | IRDMA_CQ_MINERR = 1 (FLUSH_GENERAL_ERR)
        assertEquals(0x0080_0003_0001_0001L, Mem.qword(s, 24));
    }

    @Test
    void extensionValidBitFlipsAtSlotZero() {
        // irdma_uk_cq_poll_cmpl: polarity ^= 1 when peek_head == 0
        assertTrue(Cqe.extensionValidBit(true, 5));
        assertFalse(Cqe.extensionValidBit(true, 0));
        assertTrue(Cqe.extensionValidBit(false, 0));
    }

    @Test
    void extensionReadsSmacInDriverByteOrder() {
        BytesStore<?, ?> s = Mem.heap(32);
        Mem.putQword(s, 16, 0x0000_0211_2233_4455L);
        Mem.putQword(s, 24, 0xe000_0000_0000_0000L);
        Mem.putQword(s, 0, 0x0000_0001_cafe_f00dL);
        ext.wrap(s, 0, 32);
        assertEquals(CqeCheck.ACCEPTED, ext.validate(true));
        assertEquals(0x02, ext.sourceMacByte(0));
        assertEquals(0x55, ext.sourceMacByte(5));
        assertTrue(ext.sourceMacValid());
        assertTrue(ext.immediateValid());
        assertFalse(ext.vlanValid());
        assertEquals(0xcafe_f00d, ext.immediateDataLow32());
    }

    @Test
    void shortWindows() {
        BytesStore<?, ?> s = Mem.heap(40);
        assertEquals(CqeCheck.TRUNCATED, cqe.wrap(s, 16, 32).validate(false));
        assertEquals(24, cqe.failedAt());
        assertEquals(0, cqe.wrap(s, 16, 32).wqeIndex()); // qword3 lies outside the window
        assertThrows(IllegalArgumentException.class, () -> cqe.wrap(s, 16, 32).clear());
        assertEquals(CqeCheck.TRUNCATED, cqe.wrap(s, -8, 32).validate(false));
    }
}
