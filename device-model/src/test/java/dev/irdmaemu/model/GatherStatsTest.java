package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer.Stat;
import dev.irdmaemu.fw.cqp.CqpFault;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Gather Stats (CQP 0x2E, ctrl.c irdma_sc_gather_stats): the function's counters land in the driver's buffer in the
 * icrdma_hw_stat_map layout, truncated to each counter's width; what irdma never sends on a gen2 PF (another
 * function's index, a statistics instance) and a buffer outside host memory get an error completion and leave the
 * buffer untouched.
 */
class GatherStatsTest {
    /** The model as the driver brought it up (no link: no frame has moved, every counter is 0). */
    private final DriverNode d = new DriverNode();
    private long buf;

    @BeforeEach
    void up() {
        buf = d.alloc(GatherStatsBuffer.DRIVER_BUFFER_SIZE);
    }

    @AfterEach
    void close() {
        d.close();
    }

    /** Gather Stats as the test writes it: what irdma sends, or a field irdma never sets on a gen2 PF. */
    private DriverNode.Completion gather(long pa, int fn, boolean useFn, boolean useInst) {
        return d.op("GATHER_STATS", (o, v) -> CqpWqeWriter.gatherStats(d.store(), o, pa, fn, useFn, useInst, 0, v));
    }

    private long value(Stat s) {
        return new GatherStatsBuffer().wrap(d.store(), d.off(buf)).value(s);
    }

    @Test
    void theCountersLandInTheKernelsLayout() {
        var c = d.dev.iwarp().counters();
        c.add(Stat.IP4RXPKTS, 7);
        c.add(Stat.IP4RXOCTS, 700);
        c.add(Stat.RDMATXWRS, 3);
        c.add(Stat.RXVLANERR, (1L << 24) + 2); // a 24-bit counter: what the buffer carries has wrapped
        assertFalse(gather(buf, 0, false, false).error());
        assertEquals(7, value(Stat.IP4RXPKTS));
        assertEquals(700, value(Stat.IP4RXOCTS));
        assertEquals(3, value(Stat.RDMATXWRS));
        assertEquals(2, value(Stat.RXVLANERR));
        assertEquals(0, value(Stat.TCPRTXSEG), "no connection retransmitted");
        assertEquals(7, d.store().readLong(d.off(buf) + Stat.IP4RXPKTS.byteOffset()), "byte 16, bits 47:0");
        // again, after more traffic: the counters only grow
        c.increment(Stat.IP4RXPKTS);
        assertFalse(gather(buf, 0, true, false).error(), "the PF's own index is fine");
        assertEquals(8, value(Stat.IP4RXPKTS));
    }

    @Test
    void whatTheModelCannotGatherIsAnErrorCompletion() {
        d.dev.iwarp().counters().add(Stat.IP4TXPKTS, 9);
        d.store().writeLong(d.off(buf) + Stat.IP4TXPKTS.byteOffset(), 0x5a5aL);
        var outside = gather(DriverNode.UNMAPPED, 0, false, false);
        assertTrue(outside.error());
        assertEquals(CqpFault.DMA_FAULT.minor(), outside.minor());
        var otherFunction = gather(buf, 3, true, false);
        assertTrue(otherFunction.error());
        assertEquals(CqpFault.INVALID_FIELD.minor(), otherFunction.minor());
        var instance = gather(buf, 0, false, true);
        assertTrue(instance.error());
        assertEquals(CqpFault.INVALID_FIELD.minor(), instance.minor());
        assertEquals(0x5a5aL, d.store().readLong(d.off(buf) + Stat.IP4TXPKTS.byteOffset()), "buffer untouched");
        // a buffer ending past host memory is outside it too
        long end = DriverNode.RAM_BASE + DriverNode.RAM_SIZE;
        assertTrue(gather(end - GatherStatsBuffer.SIZE + 8, 0, false, false).error());
        assertFalse(gather(buf, 0, false, false).error(), "the CQP goes on");
        assertEquals(9, value(Stat.IP4TXPKTS));
    }
}
