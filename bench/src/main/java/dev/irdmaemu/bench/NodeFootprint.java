package dev.irdmaemu.bench;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Memory held per established-but-not-offloaded connection: N connections are brought to the point where the
 * server has the MPA request (CONNECT_REQUEST delivered, not yet accepted) and the client waits in MPAREQ_SENT,
 * so each connection holds two CM nodes; the retained heap is measured after full GCs. Not a JMH benchmark (it
 * measures space, not time): {@code ./irdma-emu bench footprint [N]}.
 */
public final class NodeFootprint {
    private NodeFootprint() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
        CmPair pair = new CmPair();
        pair.deviceA.quiet();
        pair.deviceB.quiet();
        int[] requests = new int[1];
        pair.b.listen(CmPair.B_V4.withPort(4791), n, e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                requests[0]++;
            }
        });
        ConnectParams params = ConnectParams.of(new byte[0], 16, 16);
        long before = settledHeap(mx);
        for (int i = 0; i < n; i++) {
            int port = 1024 + i % 64000;
            pair.a.connect(CmPair.A_V4.withPort(port), CmPair.B_V4.withPort(4791), params, e -> { });
            if (i % 1000 == 999) {
                pair.runFor(1_000_000);
            }
        }
        pair.runFor(1_000_000);
        long after = settledHeap(mx);
        int nodes = pair.a.nodeCount() + pair.b.nodeCount();
        System.out.printf("%d connections, %d CM nodes, %d connect requests delivered%n", n, nodes, requests[0]);
        System.out.printf("retained heap: %.1f MiB, %.0f bytes per node (%.0f per connection)%n",
                (after - before) / 1048576.0, (after - before) / (double) nodes, (after - before) / (double) n);
        if (requests[0] != n || nodes != 2 * n) {
            System.err.println("not every connection reached the measured state");
            System.exit(1);
        }
    }

    private static long settledHeap(MemoryMXBean mx) {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, mx.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
