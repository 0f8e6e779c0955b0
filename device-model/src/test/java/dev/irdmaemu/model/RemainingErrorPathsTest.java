package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.model.cqp.CqpFault;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The error paths of the ops the other tests do not reach, one per op. */
class RemainingErrorPathsTest {
    private final TestDriver d = new TestDriver();

    @BeforeEach
    void up() {
        d.createCqp(64);
        d.bringUpHmcAndCcq(64);
    }

    @AfterEach
    void close() {
        d.close();
    }

    @Test
    void updateSdsWithItsBufferOutsideMemory() {
        long[] cmds = new long[4];
        long[] data = new long[4];
        for (int i = 0; i < 4; i++) {
            cmds[i] = SegmentDescriptor.command(10 + i);
            data[i] = SegmentDescriptor.setData(d.alloc(4096), false);
        }
        long scratch = d.alloc(4096);
        d.post((o, v) -> CqpWqeWriter.updatePeSds(d.store(), o, 0, cmds, data, 4, TestDriver.UNMAPPED, d.store(),
                d.off(scratch), v));
        assertEquals(CqpFault.DMA_FAULT.minor(), d.completion().minor());
    }

    @Test
    void aeqRingOutsideMemory() {
        d.eqf.clear();
        d.eqf.elementCount = 16;
        d.eqf.address = TestDriver.UNMAPPED;
        d.post((o, v) -> CqpWqeWriter.createAeq(d.store(), o, d.eqf, v));
        assertEquals(CqpFault.DMA_FAULT.minor(), d.completion().minor());
        d.eqf.elementCount = 0;
        d.eqf.address = d.alloc(4096);
        d.post((o, v) -> CqpWqeWriter.createAeq(d.store(), o, d.eqf, v));
        assertEquals(CqpFault.INVALID_FIELD.minor(), d.completion().minor());
    }

    @Test
    void modifyCqOfNothingOrIntoUnmappedMemory() {
        d.cqf.clear();
        d.cqf.cqId = 9;
        d.cqf.resize = true;
        d.cqf.cqSize = 32;
        d.cqf.cqAddress = d.alloc(4096);
        d.post((o, v) -> CqpWqeWriter.modifyCq(d.store(), o, d.cqf, v));
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.completion().minor());
        assertFalse(d.createCq(9, 16, 0, true).error());
        d.cqf.clear();
        d.cqf.cqId = 9;
        d.cqf.resize = true;
        d.cqf.cqSize = 32;
        d.cqf.cqAddress = TestDriver.UNMAPPED;
        d.post((o, v) -> CqpWqeWriter.modifyCq(d.store(), o, d.cqf, v));
        assertEquals(CqpFault.DMA_FAULT.minor(), d.completion().minor());
        assertEquals(16, d.dev.cqs().get(9).size());
    }

    @Test
    void qhashAddTwiceModifyOfNothingAndApbvtRemove() {
        int local = BringUpTest.LOCAL;
        int remote = BringUpTest.REMOTE;
        assertFalse(d.qhashV4(CqpWqe.QHASH_MANAGE_ADD, local, 5000, remote, 6000, -1, 1).error());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(),
                d.qhashV4(CqpWqe.QHASH_MANAGE_ADD, local, 5000, remote, 6000, -1, 1).minor());
        assertFalse(d.qhashV4(CqpWqe.QHASH_MANAGE_MODIFY, local, 5000, remote, 6000, -1, 2).error());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(),
                d.qhashV4(CqpWqe.QHASH_MANAGE_MODIFY, local, 5001, remote, 6000, -1, 2).minor());
        assertFalse(d.apbvt(5000, true).error());
        assertFalse(d.apbvt(5000, false).error());
        assertFalse(d.dev.apbvt().contains(5000));
        // Removing a port not marked is harmless (the op returns 0: nothing changed).
        assertFalse(d.apbvt(5000, false).error());
    }
}
