package dev.irdmaemu.bench;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.WcStatus;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.iwarp.IwarpCounters;
import java.util.ArrayList;
import java.util.List;

/**
 * Two model nodes ({@link ModelBenchPair}: device, driver layer, CM) with one connection between consumers of the
 * verbs, as an application has it: on each node a PD, a CQ, an RC QP and a buffer registered for local write,
 * remote read and remote write; A connects to B through the CM (MPA v2 with CRC, the RTR) onto the two QPs. The
 * benchmarks post and poll through {@code driver.verbs} ({@link QueuePair#postSend}, {@link CompletionQueue#poll})
 * and drive the simulation on the benchmark thread until the completions they wait for arrive.
 */
final class VerbsBenchPair implements AutoCloseable {
    static final int PORT = 7000;

    final ModelBenchPair pair = new ModelBenchPair(FrameTap.NONE);
    final SimScheduler scheduler = pair.scheduler;
    final Side a;
    final Side b;

    /** One node's consumer. */
    static final class Side {
        final ModelBenchPair.Node node;
        final IrdmaVerbs verbs;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final long buffer;
        final MemoryRegion mr;

        Side(ModelBenchPair.Node node, int sqDepth, int rqDepth, int bytes) {
            this.node = node;
            verbs = node.port.verbs();
            pd = verbs.allocatePd();
            cq = verbs.createCq(2 * (sqDepth + rqDepth));
            qp = verbs.createQp(new QpInit(pd, cq, cq, sqDepth, rqDepth, 1, 1, 64, false));
            qp.modify(IbQpState.INIT);
            buffer = verbs.allocateBuffer(bytes);
            mr = verbs.registerBuffer(pd, buffer, bytes, Access.LOCAL_WRITE | Access.REMOTE_READ
                    | Access.REMOTE_WRITE);
        }

        /** The device's counters of this side's QP (FPDUs sent, bytes placed, ...). */
        IwarpCounters counters() {
            return node.device.iwarp().engine(qp.id()).stats();
        }
    }

    VerbsBenchPair(int sqDepth, int rqDepth, int bytes) {
        a = new Side(pair.a, sqDepth, rqDepth, bytes);
        b = new Side(pair.b, sqDepth, rqDepth, bytes);
        List<CmEvent> events = new ArrayList<>();
        pair.b.cm.listen(CmPair.B_V4.withPort(PORT), 4, e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                pair.b.cm.accept(e.node(), new byte[0], events::add, b.qp.id());
            }
        });
        pair.a.cm.connect(CmPair.A_V4.withPort(50000), CmPair.B_V4.withPort(PORT),
                ConnectParams.of(new byte[0], 16, 16).withQp(a.qp.id()), events::add);
        long end = scheduler.now() + 10_000_000_000L;
        while (count(events, CmEventType.CONNECT_REPLY) + count(events, CmEventType.ESTABLISHED) < 2) {
            if (scheduler.nextDeadline() > end || !scheduler.runNext()) {
                throw new IllegalStateException("no connection: " + events);
            }
        }
        for (CmEvent e : events) {
            if (e.status() != CmStatus.OK) {
                throw new IllegalStateException("the connection failed: " + events);
            }
        }
    }

    private static int count(List<CmEvent> events, CmEventType type) {
        int n = 0;
        for (CmEvent e : events) {
            n += e.type() == type ? 1 : 0;
        }
        return n;
    }

    /**
     * Runs the simulation until {@code cq} gives a completion (into {@code wc}); a failed completion or a stall (no
     * event left, or a second of simulated time without one) throws: a benchmark must not measure refusals.
     */
    void awaitCompletion(CompletionQueue cq, WorkCompletion wc) {
        long end = scheduler.now() + 1_000_000_000L;
        while (!cq.poll(wc)) {
            if (scheduler.nextDeadline() > end || !scheduler.runNext()) {
                throw new IllegalStateException("stalled waiting on " + cq);
            }
        }
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("failed: " + wc);
        }
    }

    @Override
    public void close() {
        pair.close();
    }
}
