package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The Flush WQEs WQE byte for byte against ctrl.c irdma_sc_qp_flush_wqes (gen2) and back. */
class QpFlushWqeTest {
    private final BytesStore<?, ?> mem = BytesStore.nativeStoreWithFixedCapacity(128);

    @Test
    void userFlushCodesOfBothQueuesAndTheHeader() {
        mem.zeroOut(0, 128);
        mem.writeLong(40, -1L);
        QpFlushWqe.Fields f = new QpFlushWqe.Fields();
        f.qpId = 0x1234;
        f.flushSq = true;
        f.flushRq = true;
        f.userFlushCode = true;
        f.sqMajor = 1;
        f.sqMinor = 3;
        f.rqMajor = 1;
        f.rqMinor = 6;
        QpFlushWqe.write(mem, 0, f, true);
        // IRDMA_CQPSQ_FWQE_RQMNERR 15:0, RQMJERR 31:16, SQMNERR 47:32, SQMJERR 63:48
        assertEquals(6L | 1L << 16 | 3L << 32 | 1L << 48, mem.readLong(16));
        assertEquals(0, mem.readLong(8), "no AE asked for");
        assertEquals(0, mem.readLong(40), "the WQE is zeroed first (IRDMA_CQP_INIT_WQE)");
        long h = mem.readLong(24);
        assertEquals(0x1234, h & 0xffffff);
        assertEquals(0x22, h >>> 32 & 0x3f, "IRDMA_CQP_OP_FLUSH_WQES");
        assertTrue((h & 1L << 60) != 0, "USERFLCODE");
        assertTrue((h & 1L << 61) != 0, "FLUSHSQ");
        assertTrue((h & 1L << 62) != 0, "FLUSHRQ");
        assertTrue((h & 1L << 63) != 0, "valid");
        assertFalse((h & 1L << 59) != 0, "GENERATE_AE");
        QpFlushWqe.Fields back = new QpFlushWqe.Fields().readFrom(mem, 0);
        assertEquals(0x1234, back.qpId);
        assertEquals(3, back.sqMinor);
        assertEquals(6, back.rqMinor);
        assertTrue(back.flushSq && back.flushRq && back.userFlushCode);
    }

    @Test
    void aQueueNotFlushedGetsNoCodesAndAnAeIsOnlyWrittenWhenAskedFor() {
        mem.zeroOut(0, 128);
        QpFlushWqe.Fields f = new QpFlushWqe.Fields();
        f.qpId = 7;
        f.flushRq = true;
        f.userFlushCode = true;
        f.sqMajor = 1;
        f.sqMinor = 2;
        f.rqMajor = 1;
        f.rqMinor = 1;
        f.aeCode = 0x0505;
        f.aeSource = 1;
        QpFlushWqe.write(mem, 0, f, false);
        assertEquals(1L | 1L << 16, mem.readLong(16), "only the RQ's codes");
        assertEquals(0, mem.readLong(8), "GENERATE_AE clear: no AE code");
        assertEquals(0, mem.readLong(24) >>> 63, "valid bit 0");
        f.generateAe = true;
        QpFlushWqe.write(mem, 0, f, true);
        assertEquals(0x0505L | 1L << 16, mem.readLong(8));
        assertTrue((mem.readLong(24) & 1L << 59) != 0);
    }
}
