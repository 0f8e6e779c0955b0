package dev.irdmaemu.bench;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.SqOpcode;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The verbs' hot paths on a model node: post_send (the WQE as uk.c writes it and the PFPE_WQEALLOC write, which
 * the model's register file dispatches) and post_recv, each followed by the CQE the device would write (written
 * here, so that only the driver side is measured) and its poll (uk.c irdma_uk_cq_poll_cmpl + irdma_process_cqe).
 * {@code gc.alloc.rate.norm} is expected to be 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class VerbsPostPollBench {
    private ModelBenchPair pair;
    private CompletionQueue cq;
    private QueuePair qp;
    private long buf;
    private MemoryRegion mr;
    private BytesStore<?, ?> store;
    private long ring;
    private int produced;
    private final SendWorkRequest wr = new SendWorkRequest();
    private final ReceiveWorkRequest rr = new ReceiveWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();
    private final Cqe cqe = new Cqe();

    @Setup(Level.Trial)
    public void setUp() {
        pair = new ModelBenchPair((t, s, o, l) -> { });
        IrdmaVerbs verbs = pair.a.port.verbs();
        ProtectionDomain pd = verbs.allocatePd();
        cq = verbs.createCq(1024);
        qp = verbs.createQp(new QpInit(pd, cq, cq, 256, 256, 2, 1, 64, false));
        buf = verbs.allocateBuffer(8192);
        mr = verbs.registerBuffer(pd, buf, 8192, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        store = verbs.driver().store();
        ring = verbs.driver().offsetOf(cq.ringAddress());
        // the loop must really post and complete: a full SQ or a lost completion would measure refusals
        for (int i = 0; i < 2 * qp.sqDepth(); i++) {
            long id = postSendAndPoll();
            if (id != produced - 1 || postRecvAndPoll() != 64) {
                throw new IllegalStateException("round " + i + ": the posted work did not complete");
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    /** The CQE the device writes for WQE index {@code wqe} of the SQ ({@code sq}) or RQ. */
    private void complete(boolean sq, int wqe, int op) {
        int slot = produced % cq.ringEntries();
        boolean polarity = (produced / cq.ringEntries() & 1) == 0;
        cqe.wrap(store, ring + (long) slot * Cqe.SIZE, Cqe.SIZE).clear()
                .completionContext(0x4952_444d_0000_0000L | qp.id()).qpId(qp.id()).sq(sq).wqeIndex(wqe)
                .opType(op).payloadLength(64).valid(polarity);
        produced++;
    }

    @Benchmark
    public long postSendAndPoll() {
        qp.postSend(wr.clear().wrId(produced).opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(buf, 64, mr.lkey()).remote(0x1000, 0x22));
        complete(true, sqIndexOfLast(), SqOpcode.RDMA_WRITE.code());
        cq.poll(wc);
        return wc.wrId();
    }

    /** The SQ starts behind the three connection WQEs; every WQE here is one quantum. */
    private int lastSq = 2;

    private int sqIndexOfLast() {
        lastSq = (lastSq + 1) % qp.sqDepth();
        return lastSq;
    }

    /** One SGE per receive: 32-byte RQ WQEs, so the CQE's WQE index is the RQ index. */
    private int lastRq = -1;

    @Benchmark
    public long postRecvAndPoll() {
        qp.postRecv(rr.clear().wrId(produced).sge(buf, 4096, mr.lkey()));
        lastRq = (lastRq + 1) % qp.rqSize();
        complete(false, lastRq, Cqe.OP_RECEIVE);
        cq.poll(wc);
        return wc.byteLen();
    }
}
