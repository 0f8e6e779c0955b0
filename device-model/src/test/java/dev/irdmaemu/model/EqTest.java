package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.cqp.CqpFault;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** CEQ / AEQ creation and destruction, AEQ credit through PFPE_AEQALLOC, the AEQ valid bit over a wrap, MSI-X routing. */
class EqTest {
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
    void ceqIdsRingsAndDuplicatesAreChecked() {
        assertFalse(d.createCeq(0, 16).error());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), d.createCeq(0, 16).minor());
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), d.createCeq(256, 16).minor());
        d.eqf.clear();
        d.eqf.ceqId = 3;
        d.eqf.elementCount = 16;
        d.eqf.address = TestDriver.UNMAPPED;
        d.post((o, v) -> CqpWqeWriter.createCeq(d.store(), o, d.eqf, v));
        assertEquals(CqpFault.DMA_FAULT.minor(), d.completion().minor());
        d.eqf.ceqId = 0;
        d.post((o, v) -> CqpWqeWriter.destroyCeq(d.store(), o, d.eqf, v));
        assertFalse(d.completion().error());
        assertFalse(d.dev.ceq(0).live());
        d.post((o, v) -> CqpWqeWriter.destroyCeq(d.store(), o, d.eqf, v));
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.completion().minor());
    }

    @Test
    void aeqCreditComesBackThroughAeqAlloc() {
        d.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(true, 0));
        d.write(Gen2Register.GLINT_DYN_CTL, 0, Gen2Registers.dynCtlEnable(0));
        assertFalse(d.createAeq(4).error());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), d.createAeq(4).minor());
        for (int i = 0; i < 6; i++) {
            d.dev.aeq().post(0x1000 + i, i, AeCode.LLP_CONNECTION_RESET.code(), 0, 2, 1, 0);
        }
        assertEquals(4, d.dev.aeq().posted());
        assertEquals(2, d.dev.aeq().lost());
        // The driver consumed 4 (ctrl.c irdma_sc_repost_aeq_entries): the next AE lands in slot 0 with valid 0
        // and the overflow bit set.
        d.write(Gen2Register.AEQALLOC, 4);
        d.dev.aeq().post(0x2000, 9, AeCode.LLP_FIN_RECEIVED.code(), 0, 2, 6, 0);
        Aeqe ae = new Aeqe().wrap(d.store(), d.off(d.dev.aeq().ringAddress()), Aeqe.SIZE);
        assertFalse(ae.valid());
        assertTrue(ae.overflow());
        assertEquals(AeCode.LLP_FIN_RECEIVED.code(), ae.aeCode());
        assertEquals(0x2000, ae.completionContext());
        d.run();
        assertEquals(List.of(0), d.interrupts);
        d.post((o, v) -> CqpWqeWriter.destroyAeq(d.store(), o, d.eqf.clear(), v));
        assertFalse(d.completion().error());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), destroyAgain());
    }

    private int destroyAgain() {
        d.post((o, v) -> CqpWqeWriter.destroyAeq(d.store(), o, d.eqf.clear(), v));
        return d.completion().minor();
    }

    @Test
    void aCauseWithoutCauseEnableRaisesNothing() {
        d.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(false, 0));
        d.write(Gen2Register.GLINT_DYN_CTL, 0, Gen2Registers.dynCtlEnable(0));
        d.createAeq(8);
        d.dev.aeq().post(1, 1, AeCode.LLP_CONNECTION_RESET.code(), 0, 2, 1, 0);
        d.run();
        assertTrue(d.interrupts.isEmpty());
        // icrdma_disable_irq writes 0: a routed cause stays pending.
        d.write(Gen2Register.PFINT_AEQCTL, Gen2Registers.aeqCtl(true, 2));
        d.write(Gen2Register.GLINT_DYN_CTL, 2, 0);
        d.dev.aeq().post(1, 1, AeCode.LLP_CONNECTION_RESET.code(), 0, 2, 1, 0);
        d.run();
        assertTrue(d.interrupts.isEmpty());
        assertTrue(d.dev.interrupts().pending(2));
        d.write(Gen2Register.GLINT_DYN_CTL, 2, Gen2Registers.dynCtlEnable(0));
        d.run();
        assertEquals(List.of(2), d.interrupts);
        assertEquals(Gen2Registers.aeqCtl(true, 2), d.reg(Gen2Register.PFINT_AEQCTL));
    }
}
