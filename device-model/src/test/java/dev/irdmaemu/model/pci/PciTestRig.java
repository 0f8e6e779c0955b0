package dev.irdmaemu.model.pci;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** An E810 PF over a fresh RDMA block and a stand-in ice block that backs a few offsets and records what it saw. */
final class PciTestRig {
    /** Offsets the stand-in ice block backs (ice_hw_autogen.h: PFGEN_CTRL, GLGEN_RSTAT, PF_FUNC_RID). */
    static final long PFGEN_CTRL = 0x0009_1000L;
    static final long GLGEN_RSTAT = 0x000B_8188L;
    static final long PF_FUNC_RID = 0x0009_E880L;

    final SimScheduler scheduler = new SimScheduler(3);
    final RecordingTraceSink sink = new RecordingTraceSink();
    final Trace trace = new Trace(scheduler).enableAll(sink);
    final E810RdmaFunction rdma = new E810RdmaFunction(scheduler, new HostMemory(), null, trace, new LatencyTable());
    final FakeIce ice = new FakeIce();
    final List<Integer> msix = new ArrayList<>();
    final E810PciFunction pci;

    PciTestRig() {
        this(0x0011_22ff_ff33_4455L);
    }

    PciTestRig(long dsn) {
        pci = new E810PciFunction(rdma, ice, dsn, msix::add);
    }

    static final class FakeIce implements FunctionBlock {
        final Map<Long, Integer> regs = new HashMap<>();
        final List<String> accesses = new ArrayList<>();
        int resets;

        FakeIce() {
            regs.put(PFGEN_CTRL, 0);
            regs.put(GLGEN_RSTAT, 0);
            regs.put(PF_FUNC_RID, 0);
        }

        @Override
        public int read32(long offset) {
            accesses.add("r" + Long.toHexString(offset));
            return regs.getOrDefault(offset, 0);
        }

        @Override
        public void write32(long offset, int value) {
            accesses.add("w" + Long.toHexString(offset));
            regs.put(offset, value);
        }

        @Override
        public void reset() {
            resets++;
            regs.replaceAll((k, v) -> 0);
        }

        @Override
        public boolean defines(long offset) {
            return regs.containsKey(offset);
        }
    }
}
