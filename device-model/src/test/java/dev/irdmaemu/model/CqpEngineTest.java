package dev.irdmaemu.model;

import dev.irdmaemu.model.timing.LatencyTable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.trace.TraceKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The CQP engine against a hostile driver: bad host contexts, wrong valid bits, bad doorbells, ring wrap. */
class CqpEngineTest {
    private final BareFunction d = new BareFunction();

    @AfterEach
    void close() {
        d.close();
    }

    @Test
    void createAnswersDoneAndDestroyClearsIt() {
        int st = d.createCqp(64);
        assertTrue(Gen2Registers.ccqpDone(st));
        assertTrue(d.dev.cqp().created());
        assertEquals(64, d.dev.cqp().sqSize());
        d.write(Gen2Register.CCQPHIGH, 0);
        d.write(Gen2Register.CCQPLOW, 0);
        d.run();
        assertEquals(0, d.reg(Gen2Register.CCQPSTATUS));
        assertFalse(d.dev.cqp().created());
    }

    @Test
    void badHostContextAnswersErrAndTheErrorCodes() {
        int st = d.createCqp(64, f -> f.hwMajorVersion = 0);
        assertTrue(Gen2Registers.ccqpError(st));
        assertFalse(Gen2Registers.ccqpDone(st));
        assertEquals(CqpFault.BAD_HOST_CONTEXT.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        assertFalse(d.dev.cqp().created());
    }

    @Test
    void hostContextOrSqOutsideMemoryIsADmaFault() {
        d.write(Gen2Register.CCQPHIGH, (int) (BareFunction.UNMAPPED >>> 32));
        d.write(Gen2Register.CCQPLOW, (int) BareFunction.UNMAPPED);
        d.run();
        assertTrue(Gen2Registers.ccqpError(d.reg(Gen2Register.CCQPSTATUS)));
        assertEquals(CqpFault.DMA_FAULT.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        int st = d.createCqp(64, f -> f.sqBase = BareFunction.UNMAPPED);
        assertTrue(Gen2Registers.ccqpError(st));
        assertEquals(CqpFault.DMA_FAULT.errCodes(), d.reg(Gen2Register.CQPERRCODES));
    }

    @Test
    void nopBeforeTheCcqAdvancesTheTailAndCostsItsLatency() {
        d.createCqp(64);
        long t0 = d.scheduler.now();
        assertFalse(d.nop().error());
        assertEquals(1, d.cqpTail());
        // doorbell write + WQE fetch + NOP execution (LatencyTable defaults)
        assertEquals(100 + 500 + 500, d.scheduler.now() - t0);
        assertEquals(1, d.dev.cqp().stats().count(0x24));
    }

    @Test
    void wrongValidBitCompletesWithAnErrorAndTheRingStaysInStep() {
        d.createCqp(64);
        d.post((o, v) -> CqpWqeWriter.nop(d.store(), o, !v));
        assertTrue(d.cqpOpError());
        assertEquals(CqpFault.WQE_NOT_VALID.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        assertEquals(1, d.cqpTail());
        // The next good WQE succeeds and clears CQP_OP_ERR.
        assertFalse(d.nop().error());
        assertEquals(2, d.cqpTail());
        assertFalse(d.cqpOpError());
    }

    @Test
    void doorbellPastTheRingIsRefusedWithoutRunningAnything() {
        d.createCqp(64);
        d.write(Gen2Register.CQPDB, 64);
        d.run();
        assertTrue(d.cqpOpError());
        assertEquals(CqpFault.BAD_DOORBELL.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        assertEquals(0, d.cqpTail());
        d.write(Gen2Register.CQPDB, -1);
        d.run();
        assertEquals(0, d.cqpTail());
        assertFalse(d.nop().error());
        assertEquals(1, d.cqpTail());
    }

    @Test
    void unknownUnsupportedAndReservedBitsGetTheirCodes() {
        d.createCqp(64);
        d.post((o, v) -> d.store().writeLong(o + CqpWqe.OFF_HEADER, 0x17L << 32 | (v ? 1L << 63 : 0)));
        assertEquals(CqpFault.UNKNOWN_OPCODE.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        // 0x29 Suspend QP: an IRDMA_CQP_OP_* the model does not execute.
        d.post((o, v) -> d.store().writeLong(o + CqpWqe.OFF_HEADER, 0x29L << 32 | (v ? 1L << 63 : 0)));
        assertEquals(CqpFault.UNSUPPORTED_OPCODE.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        d.post((o, v) -> {
            CqpWqeWriter.nop(d.store(), o, v);
            d.store().writeLong(o, 1);
        });
        assertEquals(CqpFault.INVALID_FIELD.errCodes(), d.reg(Gen2Register.CQPERRCODES));
        assertEquals(3, d.cqpTail());
        assertEquals(3, d.sink.of(TraceKind.CQP_ERROR).size());
    }

    @Test
    void queryIntoUnmappedMemoryIsADmaFault() {
        d.createCqp(64);
        BareFunction.Completion c = d.queryFpm(BareFunction.UNMAPPED);
        assertTrue(c.error());
        assertEquals(CqpFault.DMA_FAULT.minor(), c.minor());
        // The query buffer straddling the end of RAM is refused too.
        c = d.queryFpm((BareFunction.RAM_BASE + BareFunction.RAM_SIZE) - FpmQueryBuffer.SIZE + 8);
        assertTrue(c.error());
    }

    @Test
    void ringWrapsWithPolarityFlipsOnBothRings() {
        d.createCqp(4);
        d.bringUpHmcAndCcq(8);
        // 4-entry SQ and 8-entry CCQ: 21 NOPs wrap the SQ five times and the CCQ twice.
        for (int i = 0; i < 21; i++) {
            BareFunction.Completion c = d.nop();
            assertFalse(c.error(), "NOP " + i);
            assertEquals(d.lastIndex, c.wqeIndex());
        }
        assertNull(d.pollCcq());
        assertEquals(0, d.dev.cqp().failedOps());
    }

    @Test
    void batchedWqesCompleteInOrderFromOneDoorbell() {
        d.createCqp(64);
        d.bringUpHmcAndCcq(16);
        int first = d.head;
        for (int i = 0; i < 5; i++) {
            long o = d.nextWqe();
            CqpWqeWriter.nop(d.store(), o, d.polarity);
        }
        d.ring();
        d.run();
        for (int i = 0; i < 5; i++) {
            BareFunction.Completion c = d.pollCcq();
            assertEquals(first + i, c.wqeIndex());
        }
        assertNull(d.pollCcq());
    }

    @Test
    void aCcqThatIsFullDropsTheCompletionAndRaisesAnAe() {
        d.createCqp(64);
        d.bringUpHmcAndCcq(4);
        d.createAeq(16);
        // The driver never consumes: with one slot kept free, the 4th completion does not fit.
        for (int i = 0; i < 4; i++) {
            long o = d.nextWqe();
            CqpWqeWriter.nop(d.store(), o, d.polarity);
        }
        d.ring();
        d.run();
        assertEquals(1, d.dev.aeq().posted());
    }

    @Test
    void aWithheldCompletionRunsTheOpButWritesNoCcqEntryExactlyOnce() {
        d.createCqp(64);
        d.bringUpHmcAndCcq(16);
        d.dev.cqp().withholdNextCompletion(CqpOpcode.MANAGE_APBVT);
        // another op first: the knob waits for the op it names
        assertFalse(d.nop().error());
        assertTrue(d.dev.cqp().withholdArmed());
        long completedBefore = d.dev.cqp().completedOps();
        int tailBefore = d.cqpTail();
        d.post((o, v) -> CqpWqeWriter.manageApbvt(d.store(), o, 7174, true, v));
        assertNull(d.pollCcq(), "no CCQ entry for the withheld op");
        assertEquals(tailBefore + 1, d.cqpTail(), "the op was retired: the tail moved past it");
        assertFalse(d.cqpOpError());
        assertEquals(1, d.dev.apbvt().size(), "the op itself ran");
        assertEquals(completedBefore, d.dev.cqp().completedOps(), "not a completion the driver can see");
        assertEquals(1, d.dev.cqp().withheldCompletions());
        assertFalse(d.dev.cqp().withholdArmed(), "once only");
        var faults = d.sink.of(TraceKind.FAULT_INJECTED);
        assertEquals(1, faults.size());
        assertEquals("withheld_completion", faults.get(0).get("fault"));
        assertEquals("MANAGE_APBVT", faults.get(0).get("op"));
        // the ring stays in step: the next op of the same kind completes at its own index
        d.post((o, v) -> CqpWqeWriter.manageApbvt(d.store(), o, 7175, true, v));
        BareFunction.Completion c = d.completion();
        assertFalse(c.error());
        assertEquals(tailBefore + 1, c.wqeIndex());
        assertEquals(1, d.dev.cqp().withheldCompletions());
    }

    @Test
    void anUnfilteredWithholdTakesTheNextOpAfterTheCcqExistsAndAResetDisarmsIt() {
        d.createCqp(64);
        d.dev.cqp().withholdNextCompletion(null);
        // before the CCQ the driver polls PFPE_CQPTAIL: nothing to withhold, the tail answers as always
        assertFalse(d.nop().error());
        assertEquals(1, d.cqpTail());
        d.bringUpHmcAndCcq(16);
        assertEquals(1, d.dev.cqp().withheldCompletions(), "the CCQ's create was the first op with a CCQ entry");
        d.dev.cqp().withholdNextCompletion(null);
        d.dev.reset();
        assertFalse(d.dev.cqp().withholdArmed(), "a function reset makes the engine anew, disarmed");
        assertEquals(0, d.dev.cqp().withheldCompletions());
    }
}
