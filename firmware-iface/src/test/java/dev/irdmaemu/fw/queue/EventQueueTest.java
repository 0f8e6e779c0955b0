package dev.irdmaemu.fw.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** CEQE and AEQE known bytes (defs.h IRDMA_CEQE_* / IRDMA_AEQE_*), and the AE tables (user.h, ctrl.c). */
class EventQueueTest {
    private final Ceqe ceqe = new Ceqe();
    private final Aeqe aeqe = new Aeqe();

    @Test
    void ceqeKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(16);
        ceqe.wrap(s, 8, 8).write(7, true);
        // IRDMA_CEQE_VALID 63 | IRDMA_CEQE_CQCTX = 7
        assertEquals(0x8000_0000_0000_0007L, Mem.qword(s, 8));
        assertEquals(CqeCheck.ACCEPTED, ceqe.validate(true));
        assertEquals(7, ceqe.cqIndex());
        Mem.putQword(s, 0, 0x0000_0000_ffff_ffffL);
        ceqe.wrap(s, 0, 8);
        assertEquals(CqeCheck.NOT_POSTED, ceqe.validate(true));
        assertEquals(Ceqe.INVALID_CQ_IDX, ceqe.cqIndex());
    }

    @Test
    void aeqeKnownBytes() {
        BytesStore<?, ?> s = Mem.heap(16);
        aeqe.wrap(s, 0, 16).write(0xffff_8880_0000_1000L, 0x40005, AeCode.LLP_CONNECTION_RESET.code(),
            AeSource.RSVD, 6, 1, 0, 0, false, true);
        assertEquals(0xffff_8880_0000_1000L, Mem.qword(s, 0));
        // IRDMA_AEQE_VALID 63 | TCPSTATE [60:57] = 1 (CLOSED) | IWSTATE [56:54] = 6 (ERROR) | QPCQID_HI 46 = 1 |
        // AECODE [45:34] = 0x502 | QPCQID_LOW [17:0] = 5
        assertEquals(0x8380_5408_0000_0005L, Mem.qword(s, 8));
        assertEquals(CqeCheck.ACCEPTED, aeqe.validate(true));
        assertEquals(0x40005, aeqe.qpCqId());
        assertEquals(AeCode.LLP_CONNECTION_RESET, aeqe.ae());
        assertEquals(AeTarget.QP, aeqe.target());
        assertEquals(6, aeqe.iwarpState());
        assertEquals(1, aeqe.tcpState());
    }

    @Test
    void aeqeWqeIndexSourceOverflow() {
        BytesStore<?, ?> s = Mem.heap(16);
        // WQDESCIDX [32:18] = 0x7fff, OVERFLOW 33, AESRC [53:50] = 5 (SQ), Q2DATA [62:61] = 3, AECODE 0x20a
        long info = 0x7fffL << 18 | 1L << 33 | 0x20aL << 34 | 5L << 50 | 3L << 61;
        Mem.putQword(s, 8, info);
        aeqe.wrap(s, 0, 16);
        assertEquals(CqeCheck.ACCEPTED, aeqe.validate(false));
        assertEquals(0x7fff, aeqe.wqeIndex());
        assertTrue(aeqe.overflow());
        assertEquals(AeSource.SQ, aeqe.source());
        assertEquals(3, aeqe.q2DataWritten());
        assertEquals(AeCode.WQE_UNEXPECTED_OPCODE, aeqe.ae());
        assertEquals(AeTarget.QP_SQ, aeqe.target());
        assertEquals(info, Aeqe.infoWord(0, 0x20a, 5, 0, 0, 0x7fff, 3, true, false));
    }

    /** irdma_sc_get_next_aeqe's two switches (ctrl.c) and the qp-before-cq test of irdma_process_aeq (hw.c). */
    @Test
    void targets() {
        assertEquals(AeTarget.CQ, AeTarget.of(AeCode.LCE_CQ_CATASTROPHIC.code(), AeSource.SQ));
        assertEquals(AeTarget.SRQ, AeTarget.of(AeCode.SRQ_LIMIT.code(), AeSource.RQ));
        assertEquals(AeTarget.CQP_DEFERRED, AeTarget.of(AeCode.CQP_DEFERRED_COMPLETE.code(), 0));
        assertEquals(AeTarget.QP_RQ, AeTarget.of(AeCode.AMP_BOUNDS_VIOLATION.code(), AeSource.RQ_0011));
        assertEquals(AeTarget.CQ, AeTarget.of(AeCode.CQ_OPERATION_ERROR.code(), AeSource.CQ_1110));
        assertEquals(AeTarget.QP, AeTarget.of(AeCode.LLP_TOO_MANY_RETRIES.code(), AeSource.CQ));
        assertEquals(AeTarget.QP_IN_RDRSP_WR, AeTarget.of(AeCode.AMP_INVALID_STAG.code(), AeSource.IN_RR_WR));
        assertEquals(AeTarget.QP_OUT_RDRSP, AeTarget.of(AeCode.AMP_INVALID_STAG.code(), AeSource.OUT_RR_1111));
        assertEquals(AeTarget.QP, AeTarget.of(AeCode.LLP_FIN_RECEIVED.code(), AeSource.SQ));
        assertEquals(AeTarget.NONE, AeTarget.of(0x0fff, AeSource.RSVD));
    }

    @Test
    void aeCodeTable() {
        // user.h defines 99 IRDMA_AE_* codes
        assertEquals(99, AeCode.values().length);
        Set<Integer> codes = new HashSet<>();
        for (AeCode c : AeCode.values()) {
            assertTrue(codes.add(c.code()), c.name());
            assertEquals(c, AeCode.of(c.code()));
        }
        assertEquals(0x0502, AeCode.LLP_CONNECTION_RESET.code());
        assertEquals(0x050a, AeCode.LLP_TOO_MANY_RETRIES.code());
        assertEquals(0x0505, AeCode.LLP_RECEIVED_MPA_CRC_ERROR.code());
        assertEquals(0x0b0b, AeCode.ADAPTER_CATASTROPHIC.code());
        assertEquals("IRDMA_AE_LLP_FIN_RECEIVED", AeCode.LLP_FIN_RECEIVED.kernelName());
        assertEquals(AeCode.Kind.QP_IGNORE_SOURCE, AeCode.LLP_CONNECTION_RESET.kind());
        assertEquals(AeCode.Kind.BY_SOURCE, AeCode.AMP_BAD_PD.kind());
        assertNull(AeCode.of(0));
        assertNull(AeCode.of(-1));
        assertNull(AeCode.of(1 << 12));
        assertFalse(AeSource.name(AeSource.CQ_0110).isEmpty());
        assertEquals("SQ", AeSource.name(AeSource.SQ_0111));
    }
}
