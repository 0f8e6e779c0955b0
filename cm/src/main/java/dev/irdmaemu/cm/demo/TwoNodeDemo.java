package dev.irdmaemu.cm.demo;

import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.function.LongSupplier;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.fw.pcap.FrameTap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The demo scenario: two in-process nodes, A (client, 192.0.2.1) and B (server, 192.0.2.2), connect with MPA v2,
 * exchange private data, and A disconnects gracefully. Every frame goes through {@code tap} (give it a
 * {@code PcapWriter} to get demo.pcap). Returns what happened as data.
 */
public final class TwoNodeDemo {
    /** The server's port. */
    public static final int PORT = 4791;
    private static final long LIMIT_NANOS = 60_000_000_000L;

    /** One line of the event sequence: simulated time, which node, the upcall. */
    public record Step(long timeNanos, String node, CmEventType type, String detail) {
        @Override
        public String toString() {
            return String.format("%9.3f ms  %-6s %-15s %s", timeNanos / 1e6, node, type, detail);
        }
    }

    /**
     * What the run produced: the upcalls in order, the IRD/ORD each side ended with, the private data each side
     * received, whether both sides are clean afterwards (no node, no timer).
     */
    public record Result(List<Step> steps, int clientIrd, int clientOrd, int serverIrd, int serverOrd,
                         int mpaRevision, String clientReceived, String serverReceived, boolean clean,
                         long framesOnWire) {
        public Result {
            steps = Collections.unmodifiableList(new ArrayList<>(steps));
        }
    }

    private TwoNodeDemo() {
    }

    /** Runs with a client asking IRD 16 / ORD 16 and device limits of 128 on both sides. */
    public static Result run(FrameTap tap) {
        return run(tap, 16, 16);
    }

    public static Result run(FrameTap tap, int clientIrd, int clientOrd) {
        CmPair pair = new CmPair(CmPair.Config.perfect().withTap(tap));
        return run(pair.a, pair.b, pair.scheduler, pair.link::framesCarried, clientIrd, clientOrd);
    }

    /**
     * The scenario on any two connection managers sharing {@code scheduler} (A holds CmPair's A addresses, B the
     * B ones), whatever hardware port they run on: the in-memory stand-in or the device model.
     */
    public static Result run(ConnectionManager a, ConnectionManager b, SimScheduler scheduler,
                             LongSupplier framesOnWire, int clientIrd, int clientOrd) {
        List<Step> steps = new ArrayList<>();
        String[] serverGot = {""};
        String[] clientGot = {""};
        int[] serverIrdOrd = new int[2];
        b.listen(CmPair.B_V4.withPort(PORT), 16, e -> {
            steps.add(step(scheduler, "server", e));
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                serverGot[0] = new String(e.privateData(), StandardCharsets.UTF_8);
                b.accept(e.node(), "hello from B".getBytes(StandardCharsets.UTF_8));
            } else if (e.type() == CmEventType.ESTABLISHED) {
                serverIrdOrd[0] = e.ird();
                serverIrdOrd[1] = e.ord();
            }
        });
        IpEndpoint local = CmPair.A_V4.withPort(50000);
        IpEndpoint remote = CmPair.B_V4.withPort(PORT);
        CmNode client = a.connect(local, remote,
                ConnectParams.of("hello from A".getBytes(StandardCharsets.UTF_8), clientIrd, clientOrd), e -> {
                    steps.add(step(scheduler, "client", e));
                    if (e.type() == CmEventType.CONNECT_REPLY) {
                        clientGot[0] = new String(e.privateData(), StandardCharsets.UTF_8);
                    }
                });
        scheduler.runUntilIdle(scheduler.now() + LIMIT_NANOS);
        a.disconnect(client, false);
        scheduler.runUntilIdle(scheduler.now() + LIMIT_NANOS);
        // background timers (a driver's 60 s statistics timer on a model node) run for the node's life
        boolean clean = a.nodeCount() == 0 && b.nodeCount() == 0
                && scheduler.pendingTimers() == scheduler.pendingBackgroundTimers();
        return new Result(steps, client.ird(), client.ord(), serverIrdOrd[0], serverIrdOrd[1], client.mpaRevision(),
                clientGot[0], serverGot[0], clean, framesOnWire.getAsLong());
    }

    private static Step step(SimScheduler scheduler, String who, CmEvent e) {
        String detail = e.status() + (e.privateData().length > 0
                ? " private data \"" + new String(e.privateData(), StandardCharsets.UTF_8) + "\"" : "")
                + (e.type() == CmEventType.CONNECT_REPLY || e.type() == CmEventType.CONNECT_REQUEST
                        || e.type() == CmEventType.ESTABLISHED ? " ird " + e.ird() + " ord " + e.ord() : "");
        return new Step(scheduler.now(), who, e.type(), detail);
    }

    /** Prints the demo's event sequence (no capture). */
    public static void main(String[] args) {
        Result r = run(FrameTap.NONE);
        r.steps().forEach(System.out::println);
        System.out.println("negotiated: client IRD " + r.clientIrd() + " ORD " + r.clientOrd() + ", server IRD "
                + r.serverIrd() + " ORD " + r.serverOrd() + ", MPA revision " + r.mpaRevision());
    }
}
