package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.GatherStatsBuffer.Stat;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The gen2 Gather Stats buffer against icrdma_hw.c icrdma_hw_stat_map and ctrl.c irdma_stat_val / irdma_stat_delta. */
class GatherStatsBufferTest {
    @Test
    void theMapIsTheKernelsGen2Map() {
        assertEquals(46, Stat.values().length, "IRDMA_HW_STAT_INDEX_MAX_GEN_2");
        for (Stat s : Stat.values()) {
            assertEquals(s.ordinal(), s.kernelIndex(), s.name());
            assertEquals(0, s.byteOffset() % 8, s.name());
            assertTrue(s.byteOffset() + 8 <= GatherStatsBuffer.SIZE);
            // TCPRXSEGS is mapped 48 bits wide at bit 32: what the kernel reads of it is the quadword's top 32 bits
            assertTrue(s.bitOffset() + s.width() <= 64 || s == Stat.TCPRXSEGS, s.name());
        }
        // a few entries read straight off icrdma_hw_stat_map
        assertEquals(8, Stat.IP4RXOCTS.byteOffset());
        assertEquals(48, Stat.IP4RXOCTS.width());
        assertEquals(0, Stat.RXVLANERR.byteOffset());
        assertEquals(32, Stat.RXVLANERR.bitOffset());
        assertEquals(24, Stat.RXVLANERR.width());
        assertEquals(216, Stat.TCPRTXSEG.byteOffset());
        assertEquals(32, Stat.TCPRTXSEG.bitOffset());
        assertEquals(192, Stat.TCPRXSEGS.byteOffset());
        assertEquals(32, Stat.TCPRXSEGS.bitOffset());
        assertEquals(264, Stat.RDMATXWRS.byteOffset());
        assertEquals(56, Stat.RXNPECNMARKEDPKTS.width());
        assertEquals(320, Stat.TXNPCNPSENT.byteOffset());
    }

    @Test
    void noTwoCountersShareABit() {
        long[] used = new long[GatherStatsBuffer.SIZE / 8];
        for (Stat s : Stat.values()) {
            long bits = s.mask() << s.bitOffset();
            assertEquals(0, used[s.byteOffset() / 8] & bits, s.name());
            used[s.byteOffset() / 8] |= bits;
        }
    }

    @Test
    void writtenCountersReadBackAtTheirWidth() {
        BytesStore<?, ?> b = BytesStore.wrap(new byte[GatherStatsBuffer.SIZE + 16]);
        long[] c = new long[Stat.values().length];
        for (Stat s : Stat.values()) {
            c[s.ordinal()] = 1000L + s.ordinal();
        }
        c[Stat.RXVLANERR.ordinal()] = 0x1_00_0005L; // beyond 24 bits: the counter wrapped
        GatherStatsBuffer.write(b, 8, c);
        GatherStatsBuffer v = new GatherStatsBuffer().wrap(b, 8);
        for (Stat s : Stat.values()) {
            long expect = s == Stat.RXVLANERR ? 5 : 1000L + s.ordinal();
            assertEquals(expect, v.value(s), s.name());
        }
        // known bytes: IP4RXPKTS is the whole quadword at 16; RXVLANERR sits in 55:32 of quadword 0
        assertEquals(1000L + Stat.IP4RXPKTS.ordinal(), b.readLong(8 + 16));
        assertEquals(5L << 32, b.readLong(8));
        // IP4RXDISCARD (63:32) and IP4RXTRUNC (31:0) share quadword 24
        assertEquals((1000L + Stat.IP4RXDISCARD.ordinal()) << 32 | (1000L + Stat.IP4RXTRUNC.ordinal()),
                b.readLong(8 + 24));
        assertEquals(0, b.readLong(0), "nothing before the buffer");
        assertEquals(0, b.readLong(8 + GatherStatsBuffer.SIZE), "nothing after it");
    }

    @Test
    void theDeltaCrossesOneWrapAsTheDriverComputesIt() {
        assertEquals(7, GatherStatsBuffer.delta(Stat.IP4RXPKTS, 10, 3));
        assertEquals(4, GatherStatsBuffer.delta(Stat.RXVLANERR, 1, 0xff_fffdL));
        assertEquals(0, GatherStatsBuffer.delta(Stat.TCPRTXSEG, 9, 9));
    }

    @Test
    void aShortBufferReadsZeroAndIsNotWritten() {
        BytesStore<?, ?> b = BytesStore.wrap(new byte[100]);
        assertEquals(0, new GatherStatsBuffer().wrap(b, 0, 100).value(Stat.IP4RXPKTS));
        assertThrows(IllegalArgumentException.class, () -> GatherStatsBuffer.write(b, 0, new long[46]));
    }
}
