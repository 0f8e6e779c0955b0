package dev.irdmaemu.bench;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.concurrent.TimeUnit;
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
 * The driver layer's control paths on the device model: a node's whole bring-up (irdma's probe: CQP, feature
 * query, HMC, CCQ, CEQ, PBLE, AEQ, WS tree, ILQ and IEQ), one kernel QP created and destroyed through the verbs
 * (CREATE_QP + DESTROY_QP round trips), and one connection set up and closed between two model nodes through the
 * CM (address handles, quad hash, APBVT, MPA, offload, FIN, teardown).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DriverPathBench {
    private static final long LIMIT_NANOS = 60_000_000_000L;
    private ModelBenchPair pair;
    private IrdmaVerbs verbs;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private IpEndpoint server;
    private ConnectParams params;
    private int nextPort = 1024;
    private int established;

    @Setup(Level.Trial)
    public void setUp() {
        pair = new ModelBenchPair((t, s, o, l) -> { });
        verbs = pair.a.port.verbs();
        pd = verbs.allocatePd();
        cq = verbs.createCq(64);
        server = CmPair.B_V4.withPort(4791);
        params = ConnectParams.of(new byte[0], 16, 16);
        pair.b.cm.listen(server, 1024, e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                pair.b.cm.accept(e.node(), new byte[0]);
            }
        });
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
    }

    /** One node brought up from power-on (its 64 MiB of host RAM included), then its RAM released. */
    @Benchmark
    public boolean bringUp() {
        BenchNode n = BenchNode.bringUp(new SimScheduler(7), null, CmPair.MAC_A);
        boolean up = n.driver().isUp();
        n.ram().close();
        return up;
    }

    /** CREATE_QP then DESTROY_QP of a small kernel QP (rings and shadow area from the verbs' allocator). */
    @Benchmark
    public int qpCreateDestroy() {
        QueuePair qp = verbs.createQp(QpInit.of(pd, cq, 16, 1));
        int id = qp.id();
        qp.destroy();
        return id;
    }

    /** One connection between the two model nodes set up, offloaded, closed gracefully and both CMs empty. */
    @Benchmark
    public boolean connectAndClose() {
        int port = nextPort;
        nextPort = nextPort == 65535 ? 1024 : nextPort + 1;
        int before = established;
        CmNode n = pair.a.cm.connect(CmPair.A_V4.withPort(port), server, params, e -> {
            if (e.type() == CmEventType.CONNECT_REPLY && e.status() == CmStatus.OK) {
                established++;
            }
        });
        pair.runUntilIdle(LIMIT_NANOS);
        pair.a.cm.disconnect(n, false);
        pair.runUntilIdle(LIMIT_NANOS);
        if (established != before + 1 || pair.a.cm.nodeCount() != 0 || pair.b.cm.nodeCount() != 0) {
            throw new IllegalStateException("connection " + port + " did not complete cleanly");
        }
        return true;
    }
}
