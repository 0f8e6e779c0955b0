package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.trace.RecordingTraceSink.Recorded;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CqpOpcode#modelled()} says which ops the model executes, and nothing else: every opcode of defs.h is posted
 * with a benign WQE (the opcode, the valid bit, every other field 0, so no reserved bit is set) on a CQP without a
 * CCQ, and the device answers UNSUPPORTED_OPCODE exactly for the ones not modelled. A modelled op may well fail (a
 * zero WQE names objects that do not exist), but with its own error, from its own handler: an opcode that
 * {@link CqpWqe} decodes and the engine does not dispatch would answer UNSUPPORTED_OPCODE here and fail the test.
 */
class CqpOpcodeModelledTest {
    private static Recorded postZeroWqe(BareFunction d, CqpOpcode op) {
        d.sink.clear();
        d.post((o, valid) -> {
            d.store().zeroOut(o, o + CqpWqe.SIZE);
            d.store().writeLong(o + CqpWqe.OFF_HEADER,
                    Bits.prep(CqpWqe.OPCODE, op.code()) | Bits.prep(CqpWqe.WQEVALID, valid));
        });
        List<Recorded> done = new ArrayList<>(d.sink.of(TraceKind.CQP_OP));
        done.addAll(d.sink.of(TraceKind.CQP_ERROR));
        assertEquals(1, done.size(), op + " completed once: " + done);
        return done.get(0);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(CqpOpcode.class)
    void theDeviceAnswersUnsupportedOpcodeExactlyForTheOpsNotModelled(CqpOpcode op) {
        try (BareFunction d = new BareFunction()) {
            assertTrue(Gen2Registers.ccqpDone(d.createCqp(16)));
            Recorded e = postZeroWqe(d, op);
            assertEquals(op.name(), e.get("op"));
            boolean unsupported = CqpFault.UNSUPPORTED_OPCODE.name().equals(e.get("result"));
            assertEquals(!op.modelled(), unsupported, op + (op.modelled() ? " is flagged modelled but " : " ")
                    + "answered " + e.get("result") + " (" + e.get("why") + ")");
            if (unsupported) {
                // the register path says the same: CQP_OP_ERR and the fault's codes in PFPE_CQPERRCODES
                assertTrue(d.cqpOpError());
                int codes = d.reg(Gen2Register.CQPERRCODES);
                assertEquals(CqpFault.UNSUPPORTED_OPCODE.major(), Gen2Registers.cqpErrMajor(codes));
                assertEquals(CqpFault.UNSUPPORTED_OPCODE.minor(), Gen2Registers.cqpErrMinor(codes));
            }
        }
    }

    @Test
    void theModelledOpsAreTheOnesTheGen2DriverSends() {
        // the list a reviewer checks against model.cqp.CqpOperations.execute and the kernel's gen2 writers
        List<String> modelled = new ArrayList<>();
        for (CqpOpcode op : CqpOpcode.values()) {
            if (op.modelled()) {
                modelled.add(op.name());
            }
        }
        assertEquals(List.of("CREATE_QP", "MODIFY_QP", "DESTROY_QP", "CREATE_CQ", "MODIFY_CQ", "DESTROY_CQ",
                "ALLOC_STAG", "REG_MR", "DEALLOC_STAG", "MANAGE_ARP", "QUERY_RDMA_FEATURES", "CREATE_CEQ",
                "DESTROY_CEQ", "CREATE_AEQ", "DESTROY_AEQ", "CREATE_ADDR_HANDLE", "MODIFY_ADDR_HANDLE",
                "DESTROY_ADDR_HANDLE", "UPDATE_PE_SDS", "QUERY_FPM_VAL", "COMMIT_FPM_VAL", "FLUSH_WQES",
                "MANAGE_APBVT", "NOP", "MANAGE_QUAD_HASH_TABLE_ENTRY", "SHMC_PAGES_ALLOCATED", "WORK_SCHED_NODE",
                "GATHER_STATS"), modelled);
        assertNotEquals(0, modelled.size());
    }
}
