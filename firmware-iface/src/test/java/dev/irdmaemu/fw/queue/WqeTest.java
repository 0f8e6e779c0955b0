package dev.irdmaemu.fw.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import java.util.OptionalInt;

/**
 * Known-bytes tests of the SQ and RQ WQEs as uk.c, ctrl.c and puda.c write them for gen2, expected quadwords
 * built by hand from the IRDMAQPSQ_* masks (defs.h).
 */
class WqeTest {
    private final SqWqe sq = new SqWqe();
    private final RqWqe rq = new RqWqe();
    private final SgeList sges = new SgeList();

    /** irdma_uk_send, one SGE, signaled. */
    @Test
    void sendOneSge() {
        BytesStore<?, ?> s = Mem.heap(256);
        sges.clear().add(0x1000_2000L, 64, 0x1122_3344);
        assertEquals(1, sq.wrap(s, 0, 256).writeSend(true, SqOpcode.RDMA_SEND, sges, SqWqe.SIGNALED, 0, 0));
        assertEquals(0x1000_2000L, Mem.qword(s, 0));                // IRDMAQPSQ_FRAG_TO
        assertEquals(0x8000_0040_1122_3344L, Mem.qword(s, 8));      // VALID | FRAG_LEN 64 | FRAG_STAG
        assertEquals(0L, Mem.qword(s, 16));                         // DESTQKEY / DESTQPN unused on iWARP
        assertEquals(0xc000_0003_0000_0000L, Mem.qword(s, 24));     // VALID | SIGCOMPL | OPCODE 3
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        assertEquals(1, sq.quanta());
        assertEquals(64, sq.totalLength());
        assertEquals(0x1122_3344, sq.fragmentStag(0));
    }

    /** An even fragment count gets the gen2 pad slot, counted in ADDFRAGCNT (irdma_uk_send). */
    @Test
    void sendTwoSgesWithPad() {
        BytesStore<?, ?> s = Mem.heap(256);
        Mem.putQword(s, 48, -1L);
        Mem.putQword(s, 56, -1L);
        sges.clear().add(0xa000, 10, 1).add(0xb000, 20, 2);
        assertEquals(2, sq.wrap(s, 0, 256).writeSend(false, SqOpcode.RDMA_SEND_SOL_EVENT, sges, 0, 0, 0));
        assertEquals(0xa000L, Mem.qword(s, 0));
        assertEquals(0x0000_000a_0000_0001L, Mem.qword(s, 8));
        assertEquals(0xb000L, Mem.qword(s, 32));
        assertEquals(0x0000_0014_0000_0002L, Mem.qword(s, 40));
        assertEquals(0L, Mem.qword(s, 48));                         // pad: no address
        assertEquals(0L, Mem.qword(s, 56));                         // pad: only VALID (= 0 here)
        // ADDFRAGCNT [41:38] = 2 | OPCODE 5
        assertEquals(0x0000_0085_0000_0000L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(false));
        assertEquals(WqeCheck.NOT_POSTED, sq.validate(true));
        assertEquals(3, sq.fragmentSlots());
        assertEquals(2, sq.quanta());
        assertEquals(30, sq.totalLength());
    }

    /** irdma_uk_rdma_write with immediate data: slot 0 is the immediate, SGEs start at +32. */
    @Test
    void rdmaWriteKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(256);
        sges.clear().add(0xc000, 100, 0x77);
        int quanta = sq.wrap(s, 0, 256).writeRdmaWrite(true, SqOpcode.RDMA_WRITE, sges, 0xabcd_ef01, 0x7000,
            SqWqe.IMMEDIATE | SqWqe.READ_FENCE, 0x0102_0304_0506_0708L);
        assertEquals(2, quanta);
        assertEquals(0x0102_0304_0506_0708L, Mem.qword(s, 0));      // IRDMAQPSQ_IMMDATA
        assertEquals(0x7000L, Mem.qword(s, 16));                    // IRDMAQPSQ_REMTO
        assertEquals(0xc000L, Mem.qword(s, 32));
        assertEquals(0x8000_0064_0000_0077L, Mem.qword(s, 40));
        assertEquals(0L, Mem.qword(s, 48));
        assertEquals(0x8000_0000_0000_0000L, Mem.qword(s, 56));     // pad slot's VALID
        // VALID | READFENCE 60 | IMMDATAFLAG 47 | ADDFRAGCNT 2 | OPCODE 0 | REMSTAG
        assertEquals(0x9000_8080_abcd_ef01L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        assertEquals(1, sq.firstDataSlot());
        assertEquals(100, sq.totalLength());
        assertTrue(sq.readFence());
    }

    /** irdma_uk_rdma_read, three SGEs (odd: no pad). */
    @Test
    void rdmaReadKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(256);
        sges.clear().add(0x1000, 1, 9).add(0x2000, 2, 9).add(0x3000, 3, 9);
        assertEquals(2, sq.wrap(s, 0, 256).writeRdmaRead(true, sges, 0x5a5a_0001, 0x0000_0001_0000_0000L, false,
            SqWqe.SIGNALED | SqWqe.LOCAL_FENCE));
        assertEquals(0x0000_0001_0000_0000L, Mem.qword(s, 16));
        assertEquals(0x3000L, Mem.qword(s, 48));
        // VALID | SIGCOMPL | LOCALFENCE 61 | ADDFRAGCNT 2 | OPCODE 1 | REMSTAG
        assertEquals(0xe000_0081_5a5a_0001L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        assertEquals(6, sq.totalLength());
    }

    /** irdma_uk_inline_send: 8 bytes at +8, then 31 per quantum with the valid bit in the quantum's last byte. */
    @Test
    void inlineSendKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(256);
        BytesStore<?, ?> data = Mem.heap(20);
        for (int i = 0; i < 20; i++) {
            data.writeByte(i, (byte) (i + 1));
        }
        assertEquals(2, sq.wrap(s, 0, 256).writeInlineSend(true, SqOpcode.RDMA_SEND, data, 0, 20, 0, 0, 0));
        assertEquals(0x0807_0605_0403_0201L, Mem.qword(s, 8));
        assertEquals(0x100f_0e0d_0c0b_0a09L, Mem.qword(s, 32));
        assertEquals(0x0000_0000_1413_1211L, Mem.qword(s, 40));
        assertEquals(0x80, s.readUnsignedByte(63));
        // VALID | INLINEDATAFLAG 57 | INLINEDATALEN [55:48] = 20 | OPCODE 3
        assertEquals(0x8214_0003_0000_0000L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        BytesStore<?, ?> out = Mem.heap(20);
        assertEquals(20, sq.copyInline(out, 0));
        for (int i = 0; i < 20; i++) {
            assertEquals(i + 1, out.readUnsignedByte(i));
        }
    }

    /** irdma_sc_send_lsmm (gen2). */
    @Test
    void lsmmKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(32);
        sq.wrap(s, 0, 32).writeLsmm(true, 0x3000, 0x40, 0x99);
        assertEquals(0x3000L, Mem.qword(s, 0));
        assertEquals(0x8000_0040_0000_0099L, Mem.qword(s, 8));
        // VALID | WAITFORRCVPDU 59 | STREAMMODE 58 | OPCODE 3
        assertEquals(0x8c00_0003_0000_0000L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        assertTrue(sq.streamMode());
        assertFalse(sq.signaled());
    }

    /** irdma_sc_send_rtt (gen2): zero-length Read with STags 0xabcd / 0x1234, or zero-length Write. */
    @Test
    void rtrKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(32);
        sq.wrap(s, 0, 32).writeRtr(true, true);
        assertEquals(0x8000_0000_0000_abcdL, Mem.qword(s, 8));
        assertEquals(0x8000_0001_0000_1234L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        assertEquals(0, sq.totalLength());
        sq.writeRtr(false, false);
        assertEquals(0L, Mem.qword(s, 8));
        assertEquals(0L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(false));
        assertEquals(SqOpcode.RDMA_WRITE, sq.sqOpcode());
    }

    /** irdma_sc_gen_rts_ae: NOP with LOCALFENCE at SQ index 1, GEN_RTS_AE at index 2, headers only. */
    @Test
    void rtsAeRequestKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(64);
        Mem.putQword(s, 8, 0x1234);
        sq.wrap(s, 0, 32).writeRtsAeRequest(true, false);
        assertEquals(0xa000_000c_0000_0000L, Mem.qword(s, 24));     // VALID | LOCALFENCE 61 | OPCODE 0x0c
        assertEquals(0x1234L, Mem.qword(s, 8));                     // untouched
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        sq.wrap(s, 32, 32).writeRtsAeRequest(true, true);
        assertEquals(0x8000_0030_0000_0000L, Mem.qword(s, 56));     // VALID | OPCODE 0x30
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        assertEquals(SqOpcode.GEN_RTS_AE, sq.sqOpcode());
    }

    /** irdma_puda_send (gen2): the ILQ transmit descriptor. */
    @Test
    void pudaSendKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(32);
        sq.wrap(s, 0, 32).writePudaSend(true, 0x5000, 74, 20, 0);
        assertEquals(0x5000L, Mem.qword(s, 0));
        assertEquals(0x8000_004a_0000_0000L, Mem.qword(s, 8));
        // IRDMA_UDA_QPSQ_VALID | IRDMA_UDA_QPSQ_SIGCOMPL | IRDMA_UDA_QPSQ_L4LEN [45:42] = 5 | OPCODE 3 (Send)
        assertEquals(0xc000_1403_0000_0000L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        assertEquals(5, sq.l4LengthWords());
        assertEquals(74, sq.fragmentLength(0));
    }

    /** irdma_sc_mr_fast_register: VA-based, 2 MiB pages, key 0x5a, index 0x123, first PBLE 0x1_2345. */
    @Test
    void fastRegisterKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(32);
        sq.wrap(s, 0, 32).writeFastRegister(true, 0x7f00_0000_0000L, true, 0x0000_0004_5678_9000L, 0x1_2345,
            0x20_0000L, 0x5a, 0x123, 1, 1, 0x1f, false, SqWqe.SIGNALED);
        assertEquals(0x7f00_0000_0000L, Mem.qword(s, 0));
        // IRDMAQPSQ_PBLADDR (the page-aligned PA) | IRDMAQPSQ_FIRSTPMPBLIDXHI [11:0] = 1
        assertEquals(0x0000_0004_5678_9001L, Mem.qword(s, 8));
        // IRDMAQPSQ_FIRSTPMPBLIDXLO [63:48] = 0x2345 | total length
        assertEquals(0x2345_0000_0020_0000L, Mem.qword(s, 16));
        // VALID | SIGCOMPL | VABASEDTO 53 | STAGRIGHTS [52:48] = 0x1f | HPAGESIZE [47:46] = 1 |
        // LPBLSIZE [45:44] = 1 | OPCODE 9 | STAGINDEX [31:8] = 0x123 | STAGKEY = 0x5a
        assertEquals(0xc03f_5009_0001_235aL, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        assertEquals(0x1_2345, sq.firstPmPblIndex());
        assertEquals(0x0000_0004_5678_9000L, sq.pblAddress());
        assertEquals(0x20_0000L, sq.stagLength());
        assertEquals(0x5a, sq.stagKey());
        assertEquals(0x123, sq.stagIndex());
        assertEquals(1, sq.hostPageSizeCode());
        assertEquals(1, sq.pblChunkSize());
        assertEquals(0x1f, sq.stagRights());
        assertTrue(sq.vaBased());
        assertFalse(sq.remoteAtomics());
    }

    /** irdma_uk_stag_local_invalidate (its fragment's valid bit is written as 0) and irdma_nop. */
    @Test
    void localInvalidateAndNop() {
        BytesStore<?, ?> s = Mem.heap(32);
        sq.wrap(s, 0, 32).writeLocalInvalidate(true, 0x5566, SqWqe.SIGNALED);
        assertEquals(0x5566L, Mem.qword(s, 8));
        assertEquals(0xc000_000a_0000_0000L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
        sq.writeNop(true, false);
        assertEquals(0x8000_000c_0000_0000L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, sq.validate(true));
    }

    /** irdma_uk_post_receive (gen2). */
    @Test
    void receiveKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(64);
        sges.clear().add(0x8000, 4096, 0x42);
        assertEquals(32, rq.wrap(s, 0, 64).write(true, sges));
        assertEquals(0x8000L, Mem.qword(s, 0));
        assertEquals(0x8000_1000_0000_0042L, Mem.qword(s, 8));
        assertEquals(0x8000_0000_0000_0000L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, rq.validate(true, 32));
        sges.add(0x9000, 16, 0x43);
        assertEquals(64, rq.write(true, sges));
        assertEquals(0x8000_0080_0000_0000L, Mem.qword(s, 24));     // VALID | ADDFRAGCNT 2
        assertEquals(0x8000_0000_0000_0000L, Mem.qword(s, 56));     // pad slot
        assertEquals(WqeCheck.ACCEPTED, rq.validate(true, 64));
        assertEquals(WqeCheck.TOO_LARGE_FOR_QUEUE, rq.validate(true, 32));
        assertEquals(4112, rq.totalLength());
    }

    /** irdma_puda_post_recvbuf (gen2): valid set on a zero header, cleared on a repost over a valid one. */
    @Test
    void pudaReceiveKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(32);
        assertTrue(rq.wrap(s, 0, 32).writePuda(0x9000, 2048, true));
        assertEquals(0x9000L, Mem.qword(s, 0));
        assertEquals(0x8000_0800_0000_0000L, Mem.qword(s, 8));
        assertEquals(0L, Mem.qword(s, 16));
        assertEquals(0x8000_0000_0000_0000L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, rq.validate(true, 32));
        assertFalse(rq.writePuda(0x9000, 2048, false));
        assertEquals(0x0000_0800_0000_0000L, Mem.qword(s, 8));
        assertEquals(0L, Mem.qword(s, 24));
        assertEquals(WqeCheck.ACCEPTED, rq.validate(false, 32));
        assertTrue(rq.writePuda(0x9000, 2048, false));
    }

    // ---------------------------------------------------------------- hostile WQEs

    private WqeCheck sqWith(long header, long qw8) {
        BytesStore<?, ?> s = Mem.heap(256);
        Mem.putQword(s, 8, qw8);
        Mem.putQword(s, 24, header);
        return sq.wrap(s, 0, 256).validate(true);
    }

    @Test
    void hostileSendQueueEntries() {
        long v = 1L << 63;
        assertEquals(WqeCheck.UNKNOWN_OPCODE, sqWith(v | 0x02L << 32, v));
        assertEquals(28, sq.failedAt());
        assertEquals(WqeCheck.UNKNOWN_OPCODE, sqWith(v | 0x3fL << 32, v));
        // INLINEDATALEN without INLINEDATAFLAG
        assertEquals(WqeCheck.RESERVED_BITS, sqWith(v | 0x03L << 32 | 5L << 48, v));
        assertEquals(30, sq.failedAt());
        // STREAMMODE on an RDMA Write
        assertEquals(WqeCheck.RESERVED_BITS, sqWith(v | 1L << 58, v));
        // IMMDATAFLAG on a Read
        assertEquals(WqeCheck.RESERVED_BITS, sqWith(v | 0x01L << 32 | 1L << 47, v));
        // a remote STag on a NOP
        assertEquals(WqeCheck.RESERVED_BITS, sqWith(v | 0x0cL << 32 | 0x1234, 0));
        // ADDFRAGCNT 15: 16 slots
        assertEquals(WqeCheck.TOO_MANY_FRAGMENTS, sqWith(v | 0x03L << 32 | 15L << 38, v));
        // 14 slots of SGEs without immediate: 13 + pad is the most
        assertEquals(WqeCheck.TOO_MANY_FRAGMENTS, sqWith(v | 0x03L << 32 | 14L << 38, v));
        // fragment 0's valid bit disagrees with the header's
        assertEquals(WqeCheck.FRAGMENT_POLARITY, sqWith(v | 0x03L << 32, 0));
        assertEquals(15, sq.failedAt());
        // inline on a Read
        assertEquals(WqeCheck.INLINE_NOT_ALLOWED, sqWith(v | 0x01L << 32 | 1L << 57 | 4L << 48, v));
        // inline longer than 101
        assertEquals(WqeCheck.INLINE_TOO_LONG, sqWith(v | 0x03L << 32 | 1L << 57 | 102L << 48, v));
        // two fragments of 2^31 - 1 bytes
        BytesStore<?, ?> s = Mem.heap(256);
        sges.clear().add(0, Integer.MAX_VALUE, 1).add(0, Integer.MAX_VALUE, 1).add(0, 0, 1);
        sq.wrap(s, 0, 256).writeSend(true, SqOpcode.RDMA_SEND, sges, 0, 0, 0);
        assertEquals(WqeCheck.INVALID_LENGTH, sq.validate(true));
        // a two-quantum WQE in a one-quantum window
        sges.clear().add(1, 1, 1).add(2, 2, 2);
        sq.writeSend(true, SqOpcode.RDMA_SEND, sges, 0, 0, 0);
        assertEquals(WqeCheck.TRUNCATED, sq.wrap(s, 0, 32).validate(true));
        assertEquals(WqeCheck.TRUNCATED, sq.wrap(s, 0, 31).validate(true));
    }

    @Test
    void hostileReceiveQueueEntries() {
        BytesStore<?, ?> s = Mem.heap(256);
        Mem.putQword(s, 8, 1L << 63);
        Mem.putQword(s, 24, 1L << 63 | 1L << 57);
        assertEquals(WqeCheck.RESERVED_BITS, rq.wrap(s, 0, 256).validate(true, 256));
        assertEquals(31, rq.failedAt());
        Mem.putQword(s, 24, 1L << 63);
        Mem.putQword(s, 16, 0x10);
        assertEquals(WqeCheck.RESERVED_BITS, rq.validate(true, 256));
        Mem.putQword(s, 16, 0);
        Mem.putQword(s, 24, 1L << 63 | 15L << 38);
        assertEquals(WqeCheck.TOO_MANY_FRAGMENTS, rq.validate(true, 256));
        Mem.putQword(s, 24, 1L << 63 | 2L << 38);
        assertEquals(WqeCheck.FRAGMENT_POLARITY, rq.validate(true, 256));
        assertEquals(WqeCheck.NOT_POSTED, rq.validate(false, 256));
        assertEquals(WqeCheck.UNKNOWN_OPCODE.suggestedAe(), AeCode.WQE_UNEXPECTED_OPCODE);
    }

    @Test
    void writersRefuseWhatTheDriverRefuses() {
        BytesStore<?, ?> s = Mem.heap(256);
        sges.clear();
        for (int i = 0; i < 14; i++) {
            sges.add(i, 1, 1);
        }
        assertThrows(IllegalArgumentException.class,
            () -> sq.wrap(s, 0, 256).writeSend(true, SqOpcode.RDMA_SEND, sges, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> rq.wrap(s, 0, 256).write(true, sges));
        assertThrows(IllegalArgumentException.class,
            () -> sq.wrap(s, 0, 256).writeInlineSend(true, SqOpcode.RDMA_SEND, s, 0, 102, 0, 0, 0));
        sges.clear().add(1, 1, 1).add(2, 2, 2);
        assertThrows(IllegalArgumentException.class,
            () -> sq.wrap(s, 0, 32).writeSend(true, SqOpcode.RDMA_SEND, sges, 0, 0, 0));
    }

    /** irdma_fragcnt_to_quanta_sq, irdma_inline_data_size_to_quanta, irdma_fragcnt_to_wqesize_rq tables. */
    @Test
    void sizeTables() {
        int[] quanta = {1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8};
        for (int i = 0; i < quanta.length; i++) {
            assertEquals(quanta[i], SqWqe.fragmentQuanta(i), "frag_cnt " + i);
        }
        assertEquals(-1, SqWqe.fragmentQuanta(16));
        int[][] inline = {{0, 1}, {8, 1}, {9, 2}, {39, 2}, {40, 3}, {70, 3}, {71, 4}, {101, 4}, {102, 5}, {132, 5},
            {133, 6}, {163, 6}, {164, 7}, {194, 7}, {195, 8}, {255, 8}};
        for (int[] p : inline) {
            assertEquals(p[1], SqWqe.inlineQuanta(p[0]), "inline " + p[0]);
        }
        int[] rqSize = {32, 32, 64, 64, 128, 128, 128, 128, 256, 256, 256, 256, 256, 256, 256};
        for (int i = 0; i < rqSize.length; i++) {
            assertEquals(OptionalInt.of(rqSize[i]), RqWqe.wqeSizeFor(i), "rq frag_cnt " + i);
        }
        assertEquals(OptionalInt.empty(), RqWqe.wqeSizeFor(15));
    }
}
