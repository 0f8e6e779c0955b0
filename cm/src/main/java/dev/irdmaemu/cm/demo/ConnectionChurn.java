package dev.irdmaemu.cm.demo;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.IpEndpoint;

/**
 * Connection setup and teardown between two in-process nodes on a perfect wire, one call per connection, for
 * benchmarks and soak runs: {@link #cycle()} connects (SYN, SYN-ACK, ACK, MPA v2 request, reply, RTR), waits for
 * both sides to be offloaded, closes gracefully and runs until both nodes are empty again.
 */
public final class ConnectionChurn {
    private static final long LIMIT_NANOS = 60_000_000_000L;
    private final CmPair pair;
    private final IpEndpoint server;
    private final ConnectParams params;
    private final byte[] replyData;
    private int established;
    private int closed;
    private int nextPort = 1024;

    public ConnectionChurn(int privateDataLength) {
        this.pair = new CmPair();
        pair.deviceA.quiet();
        pair.deviceB.quiet();
        this.server = CmPair.B_V4.withPort(4791);
        this.params = ConnectParams.of(new byte[privateDataLength], 16, 16);
        this.replyData = new byte[privateDataLength];
        pair.b.listen(server, 1024, e -> {
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                pair.b.accept(e.node(), replyData);
            }
        });
    }

    public ConnectionChurn() {
        this(0);
    }

    public CmPair pair() {
        return pair;
    }

    /** One full connection lifetime; true when it was established and closed cleanly. */
    public boolean cycle() {
        int port = nextPort;
        nextPort = nextPort == 65535 ? 1024 : nextPort + 1;
        int before = established;
        CmNode n = pair.a.connect(CmPair.A_V4.withPort(port), server, params, e -> {
            if (e.type() == CmEventType.CONNECT_REPLY && e.status() == CmStatus.OK) {
                established++;
            } else if (e.type() == CmEventType.CLOSE) {
                closed++;
            }
        });
        pair.scheduler.runUntilIdle(pair.scheduler.now() + LIMIT_NANOS);
        pair.a.disconnect(n, false);
        pair.scheduler.runUntilIdle(pair.scheduler.now() + LIMIT_NANOS);
        return established == before + 1 && n.isDestroyed() && pair.a.nodeCount() == 0 && pair.b.nodeCount() == 0;
    }

    public int established() {
        return established;
    }

    public int closed() {
        return closed;
    }
}
