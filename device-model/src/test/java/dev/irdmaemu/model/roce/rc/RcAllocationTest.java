package dev.irdmaemu.model.roce.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.roce.PathMtu;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The RC transport's per-WQE and per-frame paths allocate nothing once warm: RDMA WRITEs, SENDs (into a receive
 * queue that reposts itself) and READs of 8 KiB between two engines over a {@link LoopbackCable}, with coalesced
 * ACKs and READ responses, measured with HotSpot's per-thread allocation counter as HotPathAllocationTest does
 * (10,000 iterations under one byte per iteration).
 */
class RcAllocationTest {
    private static final int ITERATIONS = 10_000;
    private static final int WARM_UP = 10_000;
    private static final int MESSAGE = 8192;

    /** An RQ that always has the same WQE: consumed, it is there again. */
    private static final class EndlessReceiveQueue implements RcReceiveQueue {
        long consumed;

        @Override
        public boolean peek(ReceiveWqe into) {
            into.reset(consumed).add(RcPair.va(RcPair.RECEIVE), MESSAGE, RcPair.RECEIVE);
            return true;
        }

        @Override
        public void consume() {
            consumed++;
        }
    }

    private static final class Counting implements RcCompletions, RcEvents {
        long sends;
        long receives;
        long failures;
        int events;

        @Override
        public void sendCompleted(SendCompletion c) {
            sends++;
            if (c.status() != RcStatus.SUCCESS) {
                failures++;
            }
        }

        @Override
        public void receiveCompleted(ReceiveCompletion c) {
            receives++;
        }

        @Override
        public void queuePairError(AeCode event) {
            events++;
        }
    }

    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void writesSendsAndReadsAllocateNothingPerWorkRequestOrFrame() {
        LoopbackCable cable = new LoopbackCable();
        RcPair regionsOnly = new RcPair(1, PathMtu.MTU_4096, 0, 0);
        Counting doneA = new Counting();
        Counting doneB = new Counting();
        RcEngine a = new RcEngine(regionsOnly.a.path, regionsOnly.a.regions, new EndlessReceiveQueue(), doneA, doneA,
                cable.ab, 64);
        RcEngine b = new RcEngine(regionsOnly.b.path, regionsOnly.b.regions, new EndlessReceiveQueue(), doneB, doneB,
                cable.ba, 64);
        for (RcEngine e : new RcEngine[] {a, b}) {
            e.modify(RcState.READY_TO_RECEIVE, 0);
            e.modify(RcState.READY_TO_SEND, 0);
        }
        SendRequest write = new SendRequest();
        write.reset(SendOpcode.RDMA_WRITE, 1, true).add(RcPair.va(RcPair.SOURCE), MESSAGE, RcPair.SOURCE);
        write.remote(RcPair.va(RcPair.TARGET), RcPair.TARGET);
        SendRequest send = new SendRequest();
        send.reset(SendOpcode.SEND_WITH_IMMEDIATE, 2, false).add(RcPair.va(RcPair.SOURCE), MESSAGE, RcPair.SOURCE);
        SendRequest read = new SendRequest();
        read.reset(SendOpcode.RDMA_READ, 3, true).add(RcPair.va(RcPair.SINK), MESSAGE, RcPair.SINK);
        read.remote(RcPair.va(RcPair.EXPOSED), RcPair.EXPOSED);
        long[] now = {0};
        Runnable one = () -> {
            a.post(write);
            a.post(send);
            a.post(read);
            for (int step = 0; step < 20 && a.outstanding() > 0; step++) {
                now[0] += 1_000;
                a.service(now[0], 64);
                cable.ab.deliver(b, now[0]);
                b.service(now[0], 64);
                cable.ba.deliver(a, now[0]);
            }
        };
        for (int i = 0; i < WARM_UP; i++) {
            one.run();
        }
        long t = Thread.currentThread().getId();
        long base = threads.getThreadAllocatedBytes(t);
        base = threads.getThreadAllocatedBytes(t) - base;
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < ITERATIONS; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        assertEquals(0, a.outstanding(), "every work request completed");
        assertEquals(3L * (WARM_UP + ITERATIONS), doneA.sends);
        assertEquals((long) WARM_UP + ITERATIONS, doneB.receives);
        assertEquals(0, doneA.failures + doneA.events + doneB.events);
        assertEquals(0, a.counters().packetsRetransmitted());
        assertTrue(used < ITERATIONS, "allocated " + used + " bytes in " + ITERATIONS + " iterations");
    }
}
