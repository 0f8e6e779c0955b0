package dev.irdmaemu.bench;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;

/**
 * 1,000 connections, one after the other, between two model nodes (SYN, MPA v2 request / reply, offload to a QP,
 * RTR, graceful close, QP destroyed): prints the simulated time they took against the wall-clock time.
 */
public final class SimVsWall1000 {
    private SimVsWall1000() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        try (ModelBenchPair pair = new ModelBenchPair((t, s, o, l) -> { })) {
            int[] established = {0};
            pair.b.cm.listen(CmPair.B_V4.withPort(4791), 64, e -> {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    pair.b.cm.accept(e.node(), new byte[0]);
                } else if (e.type() == CmEventType.ESTABLISHED) {
                    established[0]++;
                }
            });
            long sim0 = pair.scheduler.now();
            long wall0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                CmNode c = pair.a.cm.connect(CmPair.A_V4.withPort(10000 + i), CmPair.B_V4.withPort(4791),
                        ConnectParams.of(new byte[0], 8, 8), e -> { });
                pair.runUntilIdle(60_000_000_000L);
                pair.a.cm.disconnect(c, false);
                pair.runUntilIdle(60_000_000_000L);
            }
            long wall = System.nanoTime() - wall0;
            long sim = pair.scheduler.now() - sim0;
            System.out.printf("%d connections: %d established, simulated %.3f ms, wall %.3f ms (%.1f x real time),"
                            + " %.1f us wall per connection; nodes left %d / %d, CQP ops A %d B %d%n",
                    n, established[0], sim / 1e6, wall / 1e6, (double) sim / wall, wall / 1e3 / n,
                    pair.a.cm.nodeCount(), pair.b.cm.nodeCount(), pair.a.driver.cqp().opsPosted(),
                    pair.b.driver.cqp().opsPosted());
        }
    }
}
