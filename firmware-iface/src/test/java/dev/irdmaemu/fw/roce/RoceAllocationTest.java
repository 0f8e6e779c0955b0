package dev.irdmaemu.fw.roce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Parsing (with the ICRC) and building RoCEv2 frames allocate nothing per packet, measured as fw.frame's
 * FrameAllocationTest does: HotSpot's per-thread allocation counter over 10,000 calls after a warm-up, less the
 * counter's own cost.
 */
class RoceAllocationTest {
    private static final int CALLS = 10_000;

    private final RoceFrame frame = new RoceFrame();
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private BytesStore<?, Void> out;
    private BytesStore<?, Void> payload;
    private long sink;

    @BeforeEach
    void stores() {
        out = BytesStore.nativeStoreWithFixedCapacity(4096);
        payload = BytesStore.nativeStoreWithFixedCapacity(1024);
        builder.ethernet(RoceSamples.MAC_A, RoceSamples.MAC_B).ipv4(RoceSamples.IP_A, RoceSamples.IP_B);
    }

    @AfterEach
    void release() {
        out.releaseLast();
        payload.releaseLast();
    }

    private long allocated() {
        return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private void roundTrip() {
        int n = builder.bth(BthOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 7, (int) sink).reth(sink, 1, 1000)
                .build(out, 0, payload, 0, 1000);
        if (!frame.wrap(out, 0, n).validate(PathMtu.MTU_1024).accepted()) {
            throw new AssertionError("frame rejected");
        }
        sink += frame.headers().reth().dmaLength() + frame.headers().immDt().immediate() + frame.bth().psn();
        n = builder.bth(BthOpcode.RC_ACKNOWLEDGE, 7, (int) sink).aeth(Aeth.nakSyndrome(NakCode.INVALID_REQUEST), 3)
                .build(out, 2048);
        if (!frame.wrap(out, 2048, n).validate(PathMtu.MTU_1024).accepted()) {
            throw new AssertionError("ACK rejected");
        }
        sink += frame.headers().aeth().nakCode().ordinal() + frame.headers().aeth().kind().ordinal();
        // and a rejected one: the failure path must not allocate either
        sink += frame.wrap(out, 2048, n - 1).validate(PathMtu.MTU_256).ordinal() + frame.failedAt();
        sink += frame.wrap(out, 0, n).validate(PathMtu.MTU_256).ordinal();
    }

    private long measure(Runnable body) {
        for (int i = 0; i < 3 * CALLS; i++) {
            body.run();
        }
        long overhead = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long a = allocated();
            long b = allocated();
            overhead = Math.min(overhead, b - a);
        }
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) {
            long before = allocated();
            for (int i = 0; i < CALLS; i++) {
                body.run();
            }
            best = Math.min(best, allocated() - before - overhead);
        }
        return best;
    }

    @Test
    void buildingAndValidatingAllocatesNothing() {
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        long bytes = measure(this::roundTrip);
        assertEquals(0, bytes / CALLS, "bytes allocated per round trip: " + bytes + " in " + CALLS + " calls");
        assertTrue(bytes < 1024, "bytes allocated in " + CALLS + " calls: " + bytes);
    }
}
