package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.driver.FpmSizing;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.hmc.HmcLimits;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The model's HMC limits against irdma's own sizing: the port of ctrl.c irdma_cfg_fpm_val ({@link FpmSizing}) fed
 * the model's Query FPM answer chooses counts the model's Commit FPM accepts, and the QPs that commit gives are
 * usable through the driver layer by the thousand.
 */
class HmcSizingIntegrationTest {
    private static final long MAC = 0x02_00_00_00_00_0cL;

    private static ModelNode node(RecordingTraceSink sink) {
        SimScheduler s = new SimScheduler(21);
        return new ModelNode(s, new Link(s), new Trace(s).enableAll(sink), MAC,
                List.of(LocalAddress.untagged("192.0.2.1")), FaultProfile.NONE, d -> { });
    }

    private static List<Integer> held(ModelNode n) {
        var d = n.device;
        return List.of(d.qps().liveCount(), d.cqs().liveCount(), d.stags().liveCount(),
                d.quadHash().establishedCount(), d.quadHash().listenCount(), d.apbvt().size(),
                d.workScheduler().liveCount(), d.workScheduler().qsHandlesInUse(), d.addressHandles().liveCount(),
                d.scheduler().pendingTimers());
    }

    @Test
    void theModelCommitsWhatIrdmasArithmeticAsksForItsOwnAnswer() {
        try (ModelNode n = node(new RecordingTraceSink())) {
            HmcFunction hmc = n.device.hmc();
            long q = n.ram.allocate(FpmQueryBuffer.SIZE);
            assertTrue(hmc.writeQueryBuffer(q));
            FpmSizing f = FpmSizing.gen2(new FpmQueryBuffer().wrap(n.ram.store(), n.ram.offsetOf(q)));
            assertTrue(f.ok(), f.toString());
            assertTrue(f.count(HmcObjectType.QP) > 128, "more than 128 QPs: " + f);
            assertTrue(f.sdNeeded() <= HmcLimits.MAX_PE_SDS);
            long b = n.ram.allocate(FpmCommitBuffer.SIZE);
            for (HmcObjectType t : HmcObjectType.values()) {
                FpmCommitBuffer.writeRequest(n.ram.store(), n.ram.offsetOf(b), t, f.commitCount(t));
            }
            assertEquals(HmcFunction.CommitResult.OK, hmc.commit(b));
            FpmCommitBuffer cb = new FpmCommitBuffer().wrap(n.ram.store(), n.ram.offsetOf(b));
            for (HmcObjectType t : HmcObjectType.values()) {
                if (t != HmcObjectType.APBVT_ENTRY) {
                    assertEquals(f.commitCount(t), cb.committedCount(t), t.name());
                    assertEquals(f.commitCount(t), hmc.count(t), t.name());
                }
            }
            // what the model lays out needs no more SDs than the estimate irdma made room for
            long end = 0;
            for (HmcObjectType t : HmcObjectType.values()) {
                end = Math.max(end, cb.base(t) + cb.committedCount(t) * f.objectSize(t));
            }
            assertTrue(FpmCommitBuffer.sdCount(end) <= f.sdNeeded() + 1, FpmCommitBuffer.sdCount(end) + " SDs");
        }
    }

    @Test
    void aThousandQpsAndCqsAreMadeAndDestroyedThroughTheDriverLayer() {
        RecordingTraceSink sink = new RecordingTraceSink();
        try (ModelNode n = node(sink)) {
            // what model.LeakCheck compares (its test-jar class is not on this module's reactor test path)
            List<Integer> before = held(n);
            int pages = n.ram.pagesInUse();
            ProtectionDomain pd = n.verbs.allocatePd();
            List<CompletionQueue> cqs = new ArrayList<>();
            List<QueuePair> qps = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                CompletionQueue cq = n.verbs.createCq(8);
                cqs.add(cq);
                qps.add(n.verbs.createQp(QpInit.of(pd, cq, 4, 1)));
            }
            assertEquals(before.get(0) + 1000, n.device.qps().liveCount());
            assertEquals(before.get(1) + 1000, n.device.cqs().liveCount());
            int maxQp = qps.stream().mapToInt(QueuePair::id).max().orElseThrow();
            int maxCq = cqs.stream().mapToInt(CompletionQueue::id).max().orElseThrow();
            assertTrue(maxQp >= 1000 && maxQp < 4096, "QP ids beyond the old 128: " + maxQp);
            assertTrue(maxCq >= 1000, "CQ ids: " + maxCq);
            assertNotNull(n.device.qps().get(maxQp));
            assertTrue(n.device.hmc().resolve(HmcObjectType.QP, maxQp) > 0, "its context resolves through a direct SD");
            for (QueuePair qp : qps) {
                qp.destroy();
            }
            for (CompletionQueue cq : cqs) {
                cq.destroy();
            }
            n.verbs.deallocatePd(pd);
            assertNull(n.device.qps().get(maxQp));
            assertEquals(0, sink.of(TraceKind.CQP_ERROR).size(), "every op accepted");
            assertEquals(before, held(n), "QPs, CQs, STags, qhash, APBVT, WS nodes, qs_handles, AHs, timers");
            assertEquals(pages, n.ram.pagesInUse(), "every ring and context back");
        }
    }
}
