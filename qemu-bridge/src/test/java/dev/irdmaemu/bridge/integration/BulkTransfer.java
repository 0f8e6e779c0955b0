package dev.irdmaemu.bridge.integration;

import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpEventType;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WcStatus;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.driver.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A bulk transfer between the two nodes of a {@link TwoNodes} through the verbs and the CM: one RC connection (A
 * connects to B, IRD = ORD = 16), a window buffer on each node registered for local write, remote read and remote
 * write, and the stream moved window by window with many work requests in flight, RDMA Writes from A into B or RDMA
 * Reads by A of B. The source window is filled with each round's bytes (a seeded xorshift stream) and checksummed
 * (CRC32C) as it is filled; the sink window is checksummed once the round's work requests completed, before the
 * next round reuses it. The two running checksums, and each round's, must agree.
 */
final class BulkTransfer {
    static final int PORT = 9999;
    static final int DEPTH = 64;
    private static final int CHUNK = 1 << 20;

    final TwoNodes nodes;
    final Side a;
    final Side b;
    final int window;
    final List<CmEvent> aEvents = new ArrayList<>();
    final List<CmEvent> bEvents = new ArrayList<>();
    final List<QpEventType> aQpEvents = new ArrayList<>();
    final List<QpEventType> bQpEvents = new ArrayList<>();
    CmNode connection;
    long sourceChecksum;
    long sinkChecksum;
    long bytesMoved;
    int roundMismatches;
    String failure = "";
    private final CRC32C sourceCrc = new CRC32C();
    private final CRC32C sinkCrc = new CRC32C();
    private final byte[] chunk = new byte[CHUNK];
    private final ByteBuffer chunkView = ByteBuffer.wrap(chunk);
    private final SendWorkRequest wr = new SendWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();
    private long xorshift = 0x9e37_79b9_7f4a_7c15L;

    /** One node's side: a PD, a CQ, an RC QP in INIT, the window and its region. */
    static final class Side {
        final ModelNode node;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final long buffer;
        final MemoryRegion mr;
        final BytesStore<?, ?> store;
        final long offset;

        Side(ModelNode node, int window, List<QpEventType> events) {
            this.node = node;
            pd = node.verbs.allocatePd();
            cq = node.verbs.createCq(4 * DEPTH);
            qp = node.verbs.createQp(new QpInit(pd, cq, cq, DEPTH, 4, 1, 1, 0, false));
            qp.onEvent((q, e) -> events.add(e));
            qp.modify(IbQpState.INIT);
            buffer = node.verbs.allocateBuffer(window);
            mr = node.verbs.registerBuffer(pd, buffer, window, Access.LOCAL_WRITE | Access.REMOTE_READ
                    | Access.REMOTE_WRITE);
            store = mr.store();
            offset = mr.storeOffset(mr.address());
        }
    }

    BulkTransfer(TwoNodes nodes, int window) {
        this.nodes = nodes;
        this.window = window;
        a = new Side(nodes.a, window, aQpEvents);
        b = new Side(nodes.b, window, bQpEvents);
    }

    /** Connects A to B onto the two QPs; true when both sides are up. */
    boolean connect(long limitNanos) {
        nodes.b.cm.listen(CmPair.B_V4.withPort(PORT), 4, e -> {
            bEvents.add(e);
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                nodes.b.cm.accept(e.node(), new byte[0], bEvents::add, b.qp.id());
            }
        });
        connection = nodes.a.cm.connect(CmPair.A_V4.withPort(50000), CmPair.B_V4.withPort(PORT),
                ConnectParams.of(new byte[0], 16, 16).withQp(a.qp.id()), aEvents::add);
        return nodes.runUntil(() -> has(aEvents, CmEventType.CONNECT_REPLY) && has(bEvents, CmEventType.ESTABLISHED),
                limitNanos) && aEvents.get(0).status() == CmStatus.OK;
    }

    static boolean has(List<CmEvent> events, CmEventType type) {
        for (CmEvent e : events) {
            if (e.type() == type) {
                return true;
            }
        }
        return false;
    }

    /** Fills {@code side}'s window with the next {@code length} bytes of the stream, into the source checksum. */
    void fillSource(Side side, int length) {
        for (int done = 0; done < length; done += CHUNK) {
            int n = Math.min(CHUNK, length - done);
            chunkView.clear();
            for (int i = 0; i < n; i += 8) {
                long x = xorshift;
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                xorshift = x;
                chunkView.putLong(x);
            }
            sourceCrc.update(chunk, 0, n);
            side.store.write(side.offset + done, chunk, 0, n);
        }
    }

    /** The checksum of {@code length} bytes of {@code side}'s window, into the sink checksum; answers the round's. */
    long checksumSink(Side side, int length) {
        CRC32C round = new CRC32C();
        for (int done = 0; done < length; done += CHUNK) {
            int n = Math.min(CHUNK, length - done);
            side.store.read(side.offset + done, chunk, 0, n);
            sinkCrc.update(chunk, 0, n);
            round.update(chunk, 0, n);
        }
        return round.getValue();
    }

    /** The checksum of {@code length} bytes of {@code side}'s window as it is now. */
    long checksumOf(Side side, int length) {
        CRC32C c = new CRC32C();
        for (int done = 0; done < length; done += CHUNK) {
            int n = Math.min(CHUNK, length - done);
            side.store.read(side.offset + done, chunk, 0, n);
            c.update(chunk, 0, n);
        }
        return c.getValue();
    }

    /**
     * Moves {@code total} bytes in messages of {@code message} bytes: RDMA Writes from A's window into B's ({@code
     * write}), or RDMA Reads by A of B's window into A's. False (with {@link #failure}) when a work request fails
     * or the transfer stalls for {@code stallNanos} of simulated time.
     */
    boolean transfer(boolean write, long total, int message, long stallNanos) {
        Side source = write ? a : b;
        Side sink = write ? b : a;
        while (bytesMoved < total) {
            int round = (int) Math.min(window, total - bytesMoved);
            fillSource(source, round);
            long sourceRound = checksumOf(source, round);
            if (!move(write, round, message, stallNanos)) {
                return false;
            }
            long sinkRound = checksumSink(sink, round);
            if (sinkRound != sourceRound) {
                roundMismatches++;
            }
            bytesMoved += round;
        }
        sourceChecksum = sourceCrc.getValue();
        sinkChecksum = sinkCrc.getValue();
        return true;
    }

    private boolean move(boolean write, int round, int message, long stallNanos) {
        int posted = 0;
        int completed = 0;
        int messages = (round + message - 1) / message;
        while (completed < messages) {
            while (posted < messages && posted - completed < DEPTH) {
                int at = posted * message;
                int len = Math.min(message, round - at);
                wr.clear().wrId(posted).opcode(write ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_READ)
                        .flags(SendWorkRequest.SIGNALED).sge(a.mr.address() + at, len, a.mr.lkey())
                        .remote(b.mr.address() + at, b.mr.rkey());
                PostStatus s = a.qp.postSend(wr);
                if (s != PostStatus.OK) {
                    failure = "post " + posted + ": " + s;
                    return false;
                }
                posted++;
            }
            int before = completed;
            completed += poll();
            if (!failure.isEmpty()) {
                return false;
            }
            if (completed == before) {
                // nothing yet: run the model, an event at a time, until something completes
                long deadline = nodes.scheduler.now() + stallNanos;
                int got = 0;
                while (got == 0 && failure.isEmpty()) {
                    if (nodes.scheduler.nextDeadline() > deadline || !nodes.scheduler.runNext()) {
                        failure = "stalled after " + completed + " of " + messages + " messages of the round, "
                                + bytesMoved + " bytes moved before it";
                        return false;
                    }
                    got = poll();
                }
                completed += got;
                if (!failure.isEmpty()) {
                    return false;
                }
            }
        }
        return true;
    }

    private int poll() {
        int n = 0;
        while (a.cq.poll(wc)) {
            if (wc.status() != WcStatus.SUCCESS) {
                failure = "completion " + wc;
                return n;
            }
            n++;
        }
        return n;
    }
}
