package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tables of a released engine go to the next engine of the same sizes: a second connection on the same
 * nodes works in the first one's SQ, ORD and IRD tables, record ends and FPDU codecs, and what the first left in
 * them changes nothing about what the second sends, places and completes.
 */
class SpareEngineMemoryTest {
    private final DriverPair pair = new DriverPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    @Test
    void aSparesTablesGoOnlyToAnEngineOfTheirSizesAndAtMostCapacityAreKept() {
        SpareEngineMemory spares = new SpareEngineMemory();
        QpEngineMemory m = spares.take(64, 16, 32);
        assertTrue(m.fits(64, 16, 32));
        assertFalse(m.fits(64, 17, 32));
        assertTrue(QpEngineMemory.of(64, 256, 32).fits(64, 300, 32), "an ORD past 256 needs no more than 256 slots");
        assertFalse(m.fits(128, 16, 32));
        spares.give(m);
        assertEquals(1, spares.count());
        assertNotSame(m, spares.take(64, 16, 64), "other IRD: new tables");
        assertEquals(1, spares.count());
        assertSame(m, spares.take(64, 16, 32));
        assertEquals(0, spares.count());
        for (int i = 0; i < SpareEngineMemory.CAPACITY + 3; i++) {
            spares.give(QpEngineMemory.of(64, 16, 32));
        }
        assertEquals(SpareEngineMemory.CAPACITY, spares.count());
        spares.clear();
        assertEquals(0, spares.count());
    }

    @Test
    void aSecondConnectionWorksInTheTablesTheFirstLeftAsInNewOnes() {
        DriverPair.Conn first = pair.connect(false);
        QpEngineMemory activeTables = pair.a.engine(first.active).tables();
        QpEngineMemory passiveTables = pair.b.engine(first.passive).tables();
        writeThenReadBack(first, 31);
        first.active.modify(IbQpState.ERR);
        pair.run(1_000_000L);
        first.passive.modify(IbQpState.ERR);
        first.active.destroy();
        first.passive.destroy();
        pair.run(1_000_000L);

        DriverPair.Conn second = pair.connect(false);
        assertSame(activeTables, pair.a.engine(second.active).tables());
        assertSame(passiveTables, pair.b.engine(second.passive).tables());
        writeThenReadBack(second, 97);
        assertEquals(0, pair.a.engine(second.active).tcp().counters().retransmittedSegments());
    }

    /** An RDMA Write of 50,000 bytes and an RDMA Read of them back (ORD on the active side, IRD on the other). */
    private void writeThenReadBack(DriverPair.Conn c, int seed) {
        Buffer src = pair.a.buffer(50_000, Access.LOCAL_WRITE);
        pair.a.fill(src.gpa(), 50_000, seed);
        Buffer dst = pair.b.buffer(50_000, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        Buffer back = pair.a.buffer(50_000, Access.LOCAL_WRITE);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa(), 50_000, src.stag()).remote(dst.gpa(), dst.stag()));
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .sge(back.gpa(), 50_000, back.stag()).remote(dst.gpa(), dst.stag()));
        List<Completion> got = new ArrayList<>();
        pair.runUntil(() -> {
            got.addAll(pair.a.pollAll(c.aCq));
            return got.size() >= 2;
        }, 2_000_000_000L);
        assertEquals(2, got.size());
        assertFalse(got.get(0).error());
        assertFalse(got.get(1).error());
        assertArrayEquals(pair.a.read(src.gpa(), 50_000), pair.b.read(dst.gpa(), 50_000));
        assertArrayEquals(pair.a.read(src.gpa(), 50_000), pair.a.read(back.gpa(), 50_000));
    }
}
