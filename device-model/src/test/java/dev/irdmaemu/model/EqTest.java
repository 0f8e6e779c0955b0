package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.cqp.CqpFault;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * CEQ / AEQ creation and destruction, AEQ credit through PFPE_AEQALLOC, the AEQ valid bit over a wrap, MSI-X routing,
 * on a model the real driver brought up (its CEQ 0 and AEQ in place). The AEQ tests replace the driver's AEQ with a
 * small one of their own, after the driver's remove path, so that the vectors reach the test unanswered.
 */
class EqTest {
    private final DriverNode d = new DriverNode();
    private final CqpOps ops = new CqpOps(d);

    @AfterEach
    void close() {
        d.close();
    }

    @Test
    void ceqIdsRingsAndDuplicatesAreChecked() {
        // the driver's CEQ 0 (hw.c irdma_setup_ceq_0) is taken; a second CEQ is a fresh id
        assertTrue(d.dev.ceq(0).live());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), ops.createCeq(0, 16).minor());
        assertFalse(ops.createCeq(1, 16).error());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), ops.createCeq(1, 16).minor());
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), ops.createCeq(256, 16).minor());
        ops.eqf.clear();
        ops.eqf.ceqId = 3;
        ops.eqf.elementCount = 16;
        ops.eqf.address = DriverNode.UNMAPPED;
        assertEquals(CqpFault.DMA_FAULT.minor(), d.op("CREATE_CEQ",
                (o, v) -> CqpWqeWriter.createCeq(d.store(), o, ops.eqf, v)).minor());
        assertFalse(ops.destroyCeq(1).error());
        assertFalse(d.dev.ceq(1).live());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), ops.destroyCeq(1).minor());
        assertTrue(d.dev.ceq(0).live(), "the driver's CEQ 0 is untouched");
        d.driver.cqp().nop();
    }

    /** The driver stops answering vectors (irdma_remove's path), its AEQ goes, AEQ causes route to vector 0. */
    private void withoutTheDriversAeq() {
        d.run();
        d.driver.stopAnsweringInterrupts();
        assertTrue(d.dev.aeq().live());
        assertFalse(ops.destroyAeq().error());
        assertFalse(d.dev.aeq().live());
        d.recordInterrupts();
    }

    /**
     * The vectors raised, CEQ 0's left aside: the CCQ the driver armed raises it for the test's own ops (a device
     * with only a CCQ, as these tests had before the real driver, raised none).
     */
    private List<Integer> raised() {
        return d.interrupts.stream().filter(v -> v != IrdmaDriver.CEQ0_VECTOR).toList();
    }

    @Test
    void aeqCreditComesBackThroughAeqAlloc() {
        withoutTheDriversAeq();
        d.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(true, 0));
        d.write(Gen2Register.GLINT_DYN_CTL, 0, Gen2Registers.dynCtlEnable(0));
        assertFalse(ops.createAeq(4).error());
        long ring = ops.eqf.address;
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), ops.createAeq(4).minor());
        long posted = d.dev.aeq().posted();
        long lost = d.dev.aeq().lost();
        for (int i = 0; i < 6; i++) {
            d.dev.aeq().post(0x1000 + i, i, AeCode.LLP_CONNECTION_RESET.code(), 0, 2, 1, 0);
        }
        assertEquals(posted + 4, d.dev.aeq().posted());
        assertEquals(lost + 2, d.dev.aeq().lost());
        // The driver consumed 4 (ctrl.c irdma_sc_repost_aeq_entries): the next AE lands in slot 0 with valid 0
        // and the overflow bit set.
        d.write(Gen2Register.AEQALLOC, 4);
        d.dev.aeq().post(0x2000, 9, AeCode.LLP_FIN_RECEIVED.code(), 0, 2, 6, 0);
        assertEquals(ring, d.dev.aeq().ringAddress());
        Aeqe ae = new Aeqe().wrap(d.store(), d.off(d.dev.aeq().ringAddress()), Aeqe.SIZE);
        assertFalse(ae.valid());
        assertTrue(ae.overflow());
        assertEquals(AeCode.LLP_FIN_RECEIVED.code(), ae.aeCode());
        assertEquals(0x2000, ae.completionContext());
        d.run();
        assertEquals(List.of(IrdmaDriver.AEQ_VECTOR), raised());
        assertFalse(ops.destroyAeq().error());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), ops.destroyAeq().minor());
    }

    @Test
    void aCauseWithoutCauseEnableRaisesNothing() {
        withoutTheDriversAeq();
        d.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(false, 0));
        d.write(Gen2Register.GLINT_DYN_CTL, 0, Gen2Registers.dynCtlEnable(0));
        assertFalse(ops.createAeq(8).error());
        d.dev.aeq().post(1, 1, AeCode.LLP_CONNECTION_RESET.code(), 0, 2, 1, 0);
        d.run();
        assertTrue(raised().isEmpty());
        // icrdma_disable_irq writes 0: a routed cause stays pending.
        d.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(true, 2));
        d.write(Gen2Register.GLINT_DYN_CTL, 2, 0);
        d.dev.aeq().post(1, 1, AeCode.LLP_CONNECTION_RESET.code(), 0, 2, 1, 0);
        d.run();
        assertTrue(raised().isEmpty());
        assertTrue(d.dev.interrupts().pending(2));
        d.write(Gen2Register.GLINT_DYN_CTL, 2, Gen2Registers.dynCtlEnable(0));
        d.run();
        assertEquals(List.of(2), raised());
        assertEquals(Gen2Registers.aeqCtl(true, 2), d.reg(Gen2Register.PFINT_AEQCTL));
    }
}
