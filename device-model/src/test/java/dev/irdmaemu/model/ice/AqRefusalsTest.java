package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import org.junit.jupiter.api.Test;

/** A refused command tells the function's trace why, whichever of the firmware's tables refused it. */
class AqRefusalsTest {
    @Test
    void eachTableReportsItsRefusalThroughTheSharedTrace() {
        SimScheduler scheduler = new SimScheduler(1);
        RecordingTraceSink sink = new RecordingTraceSink();
        IceSwitchAndScheduler fw = new IceSwitchAndScheduler(0, 0);
        fw.refusals().traceTo(new Trace(scheduler).enableAll(sink));
        AqBench bench = new AqBench(fw);
        // a VSI context too short (VsiTable), a rule removal of nothing (SwitchRules), a queue on no VSI (TxQueues)
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.ADD_VSI, AqBench.buffer(10)));
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.REMOVE_SW_RULES, null));
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.UPDATE_PKG, AqBench.buffer(0)));
        var refused = sink.of(TraceKind.AQ);
        assertEquals(3, refused.size(), refused::toString);
        assertEquals("add_vsi", refused.get(0).get("refused"));
        assertTrue(refused.get(0).get("why").contains("shorter than 128 bytes"), refused.get(0)::toString);
        assertEquals("EINVAL", refused.get(0).get("retval"));
        assertEquals("remove_sw_rules", refused.get(1).get("refused"));
        assertEquals("update_pkg", refused.get(2).get("refused"));
        assertEquals(3, fw.refusals().count());
    }
}
