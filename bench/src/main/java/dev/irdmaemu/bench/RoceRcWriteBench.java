package dev.irdmaemu.bench;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.roce.rc.RcCompletions;
import dev.irdmaemu.model.roce.rc.RcEngine;
import dev.irdmaemu.model.roce.rc.RcEvents;
import dev.irdmaemu.model.roce.rc.RcPath;
import dev.irdmaemu.model.roce.rc.RcReceiveQueue;
import dev.irdmaemu.model.roce.rc.RcState;
import dev.irdmaemu.model.roce.rc.RcWire;
import dev.irdmaemu.model.roce.rc.ReceiveCompletion;
import dev.irdmaemu.model.roce.rc.ReceiveWqe;
import dev.irdmaemu.model.roce.rc.SendCompletion;
import dev.irdmaemu.model.roce.rc.SendOpcode;
import dev.irdmaemu.model.roce.rc.SendRequest;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * RDMA Write throughput of the RoCEv2 RC transport alone: two {@code model.roce.rc} engines, each over the
 * memory regions of its own E810 model (a 64 KiB region registered with Register MR over 16 PBLE pages, as
 * {@link MemoryRegionBench} does), joined by a preallocated loopback cable. Each invocation posts {@value #BATCH}
 * 4 KiB Writes at a 4096-byte path MTU and runs both engines until all completed: gather through the source
 * region, frames built with their ICRC, the frame check (ICRC included) at the responder, PSN and R_Key checks,
 * placement through the target region, coalesced ACKs. Not the whole device (no SQ WQE fetch, doorbell, CQE or
 * scheduler, which {@link IwarpWriteBench} includes for iWARP): ops/s are 4 KiB messages per second, payload
 * Gbit/s = ops/s x 4096 x 8 / 10^9.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RoceRcWriteBench {
    static final int BATCH = 256;
    static final int MESSAGE = 4096;
    private static final int PD = 3;
    private static final long VA = 0x7f00_1234_0000L;
    private static final int PAGES = 16;

    /** A lossless in-memory cable: a preallocated ring of frame slots per direction. */
    private static final class Cable implements RcWire {
        private static final int SLOTS = 1024;
        private final BytesStore<?, Void> ring =
                BytesStore.nativeStoreWithFixedCapacity((long) SLOTS * RcEngine.MAX_FRAME);
        private final int[] length = new int[SLOTS];
        private int head;
        private int tail;

        @Override
        public void transmit(BytesStore<?, ?> frame, long offset, int len) {
            if (tail - head == SLOTS) {
                throw new IllegalStateException("cable full");
            }
            int i = tail++ % SLOTS;
            ring.write((long) i * RcEngine.MAX_FRAME, frame, offset, len);
            length[i] = len;
        }

        int deliver(RcEngine to, long now) {
            int n = 0;
            for (; head != tail; n++) {
                int i = head++ % SLOTS;
                to.receive(ring, (long) i * RcEngine.MAX_FRAME, length[i], now);
            }
            return n;
        }
    }

    /** Completions counted; no RQ (Writes without immediate take none); an AE stops the bench. */
    private static final class Counter implements RcCompletions, RcEvents, RcReceiveQueue {
        long completed;

        @Override
        public void sendCompleted(SendCompletion c) {
            completed++;
        }

        @Override
        public void receiveCompleted(ReceiveCompletion c) {
        }

        @Override
        public void queuePairError(AeCode event) {
            throw new IllegalStateException("QP error " + event);
        }

        @Override
        public boolean peek(ReceiveWqe into) {
            return false;
        }

        @Override
        public void consume() {
        }
    }

    private BenchNode nodeA;
    private BenchNode nodeB;
    private RcEngine a;
    private RcEngine b;
    private final Cable ab = new Cable();
    private final Cable ba = new Cable();
    private final Counter doneA = new Counter();
    private final Counter doneB = new Counter();
    private final SendRequest write = new SendRequest();
    private int stagA;
    private int stagB;
    private long now;

    @Setup(Level.Trial)
    public void setUp() {
        nodeA = BenchNode.bringUp(new SimScheduler(1), null, 0);
        nodeB = BenchNode.bringUp(new SimScheduler(1), null, 0);
        stagA = register(nodeA);
        stagB = register(nodeB);
        RcPath pathA = new RcPath().ipv4(0x02_0000_0000_0aL, 0x02_0000_0000_0bL, 0x0a00_0001, 0x0a00_0002)
                .queuePairs(0x11, 0x22, 0xffff).mtu(PathMtu.MTU_4096).psns(100, 200).protectionDomain(PD);
        RcPath pathB = new RcPath().ipv4(0x02_0000_0000_0bL, 0x02_0000_0000_0aL, 0x0a00_0002, 0x0a00_0001)
                .queuePairs(0x22, 0x11, 0xffff).mtu(PathMtu.MTU_4096).psns(200, 100).protectionDomain(PD);
        a = new RcEngine(pathA, nodeA.device().memoryRegions(), doneA, doneA, doneA, ab, BATCH);
        b = new RcEngine(pathB, nodeB.device().memoryRegions(), doneB, doneB, doneB, ba, BATCH);
        for (RcEngine e : new RcEngine[] {a, b}) {
            e.modify(RcState.READY_TO_RECEIVE, 0);
            e.modify(RcState.READY_TO_SEND, 0);
        }
        write4KiB();
    }

    /** A 64 KiB region over 16 scattered pages as PBLEs 0..15, all rights (verbs.c irdma_hwreg_mr's fields). */
    private static int register(BenchNode node) {
        for (int i = 0; i < PAGES; i++) {
            long page = node.ram().allocate(2 * 4096) + 4096;
            node.memory().writeLong(node.device().hmc().resolve(HmcObjectType.PBLE, i), page);
        }
        int stag = 0x155 << 22 | 5 << 8 | 0x9c;
        StagFields f = new StagFields();
        f.stagIndex = stag >>> 8;
        f.stagKey = stag & 0xff;
        f.pdId = PD;
        f.length = PAGES * 4096L;
        f.accessRights = MemoryRegions.LOCAL_READ | MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_READ
                | MemoryRegions.REMOTE_WRITE;
        f.remoteAccess = true;
        f.vaBased = true;
        f.vaOrFbo = VA;
        f.pblChunkSize = 1;
        f.firstPmPblIndex = 0;
        f.mr = true;
        node.driver().cqp().op("reg_mr", (o, v) -> CqpWqeWriter.registerMr(node.driver().store(), o, f, v));
        return stag;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        nodeA.ram().close();
        nodeB.ram().close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long write4KiB() {
        long target = doneA.completed + BATCH;
        for (int i = 0; i < BATCH; i++) {
            long at = (i & (PAGES - 1)) * (long) MESSAGE;
            write.reset(SendOpcode.RDMA_WRITE, i, i == BATCH - 1).add(VA + at, MESSAGE, stagA);
            write.remote(VA + at, stagB);
            a.post(write);
        }
        for (int step = 0; doneA.completed < target; step++) {
            if (step > 100_000) {
                throw new IllegalStateException("the Writes did not complete: " + a.describe());
            }
            now += 1_000;
            a.service(now, 64);
            ab.deliver(b, now);
            b.service(now, 64);
            ba.deliver(a, now);
        }
        return doneA.completed;
    }
}
