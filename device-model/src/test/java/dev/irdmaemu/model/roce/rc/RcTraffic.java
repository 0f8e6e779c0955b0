package dev.irdmaemu.model.roce.rc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.model.roce.rc.RcPair.Side;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A round of mixed work from one side of an {@link RcPair} to the other: WRITEs (with and without immediate),
 * SENDs (with and without immediate) and READs of random lengths, each into its own area of the target regions so
 * that every byte can be checked afterwards, and the bookkeeping to check that every work request completed exactly
 * once.
 */
final class RcTraffic {
    private record Expect(int key, int offset, byte[] bytes) {
    }

    private final Side from;
    private final Side to;
    private final SplittableRandom random;
    private final int maxMessage;
    private final List<Expect> expected = new ArrayList<>();
    private final Map<Long, SendOpcode> posted = new HashMap<>();
    private final Map<Long, Integer> expectedReceives = new HashMap<>();
    private final SendRequest request = new SendRequest();
    private long nextId;
    private int receivesBefore;
    private int sendsBefore;
    long bytes;

    RcTraffic(Side from, Side to, long seed, int maxMessage, long firstId) {
        this.from = from;
        this.to = to;
        this.random = new SplittableRandom(seed);
        this.maxMessage = maxMessage;
        this.nextId = firstId;
    }

    /** Posts messages until {@code budget} bytes of each target area would be passed; answers how many. */
    int round(int budget) {
        expected.clear();
        posted.clear();
        expectedReceives.clear();
        sendsBefore = from.done.sends.size();
        receivesBefore = to.done.receives.size();
        fill(from.store(RcPair.SOURCE));
        fill(to.store(RcPair.EXPOSED));
        int write = 0;
        int recv = 0;
        int sink = 0;
        int src = 0;
        int n = 0;
        while (true) {
            int len = random.nextInt(4) == 0 ? random.nextInt(64) : random.nextInt(maxMessage + 1);
            SendOpcode op = SendOpcode.values()[random.nextInt(SendOpcode.values().length)];
            if (op == SendOpcode.SEND_WITH_INVALIDATE) {
                op = SendOpcode.SEND;
            }
            int area = op.isRead() ? sink : op == SendOpcode.RDMA_WRITE || op == SendOpcode.RDMA_WRITE_WITH_IMMEDIATE
                    ? write : recv;
            if (area + len > budget || src + len > RcPair.REGION || from.engine.outstanding() >= 200) {
                return n;
            }
            long id = nextId++;
            int imm = random.nextInt();
            request.reset(op, id, true);
            request.immediate(imm);
            switch (op) {
                case RDMA_READ -> {
                    request.buffers().add(RcPair.va(RcPair.SINK) + sink, len, RcPair.SINK);
                    request.remote(RcPair.va(RcPair.EXPOSED) + src, RcPair.EXPOSED);
                    expected.add(new Expect(RcPair.SINK, sink, copy(to, RcPair.EXPOSED, src, len)));
                    sink += len;
                    from.engine.post(request);
                }
                case RDMA_WRITE, RDMA_WRITE_WITH_IMMEDIATE -> {
                    request.buffers().add(RcPair.va(RcPair.SOURCE) + src, len, RcPair.SOURCE);
                    request.remote(RcPair.va(RcPair.TARGET) + write, RcPair.TARGET);
                    expected.add(new Expect(-RcPair.TARGET, write, copy(from, RcPair.SOURCE, src, len)));
                    if (op == SendOpcode.RDMA_WRITE_WITH_IMMEDIATE) {
                        to.rq.post(id, RcPair.va(RcPair.RECEIVE), 0, RcPair.RECEIVE);
                        expectedReceives.put(id, len);
                    }
                    write += len;
                }
                default -> {
                    request.buffers().add(RcPair.va(RcPair.SOURCE) + src, len, RcPair.SOURCE);
                    expected.add(new Expect(-RcPair.RECEIVE, recv, copy(from, RcPair.SOURCE, src, len)));
                    to.rq.post(id, RcPair.va(RcPair.RECEIVE) + recv, len + random.nextInt(16), RcPair.RECEIVE);
                    expectedReceives.put(id, len);
                    recv += len;
                }
            }
            if (!op.isRead()) {
                from.engine.post(request);
            }
            posted.put(id, op);
            src += len;
            bytes += len;
            n++;
        }
    }

    boolean complete() {
        return from.done.sends.size() - sendsBefore == posted.size()
                && to.done.receives.size() - receivesBefore == expectedReceives.size();
    }

    /** Every work request of the round completed once, successfully, and every byte is where it belongs. */
    void verify() {
        List<RecordedCompletions.Send> sends = from.done.sends.subList(sendsBefore, from.done.sends.size());
        assertEquals(posted.size(), sends.size(), "SQ completions");
        long prev = Long.MIN_VALUE;
        for (RecordedCompletions.Send s : sends) {
            assertEquals(RcStatus.SUCCESS, s.status(), "work request " + s.wrId());
            assertEquals(posted.get(s.wrId()), s.opcode());
            if (s.wrId() <= prev) {
                throw new AssertionError("completions out of order: " + s.wrId() + " after " + prev);
            }
            prev = s.wrId();
        }
        List<RecordedCompletions.Receive> recvs = to.done.receives.subList(receivesBefore, to.done.receives.size());
        assertEquals(expectedReceives.size(), recvs.size(), "RQ completions");
        for (RecordedCompletions.Receive r : recvs) {
            assertEquals(RcStatus.SUCCESS, r.status());
            assertEquals((long) expectedReceives.get(r.wrId()), r.bytes(), "received length of " + r.wrId());
        }
        for (Expect e : expected) {
            Side side = e.key() < 0 ? to : from;
            byte[] got = copy(side, Math.abs(e.key()), e.offset(), e.bytes().length);
            assertArrayEquals(e.bytes(), got, "bytes at " + Integer.toHexString(Math.abs(e.key())) + "+" + e.offset());
        }
    }

    private void fill(net.openhft.chronicle.bytes.BytesStore<?, Void> store) {
        byte[] chunk = new byte[RcPair.REGION];
        random.nextBytes(chunk);
        store.write(0, chunk, 0, chunk.length);
    }

    private static byte[] copy(Side side, int key, int offset, int len) {
        byte[] b = new byte[len];
        side.store(key).read(offset, b, 0, len);
        return b;
    }
}
