package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.model.mr.MemoryRegions;
import java.util.function.BooleanSupplier;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Two RC engines joined by two {@link FaultyWire}s, on a deterministic clock: each step services both engines,
 * delivers what is on the wires, and when nothing moved jumps the clock to the nearest timer. Each side has the
 * same regions: a source (local read), a target (remote write), an exposed region (remote read), a sink (local
 * write, READ responses land there) and receive buffers (local write, SENDs land there).
 */
final class RcPair {
    static final int PD = 7;
    static final int REGION = 1 << 20;
    static final int SOURCE = 0x100;
    static final int TARGET = 0x200;
    static final int EXPOSED = 0x300;
    static final int SINK = 0x400;
    static final int RECEIVE = 0x500;
    static final long VA = 0x7f00_0000_0000L;

    static final class Side {
        final TestRegions regions = new TestRegions();
        final TestReceiveQueue rq = new TestReceiveQueue();
        final RecordedCompletions done = new RecordedCompletions();
        final RcPath path = new RcPath();
        final FaultyWire out;
        RcEngine engine;

        Side(long seed) {
            out = new FaultyWire(seed);
            regions.register(SOURCE, REGION, va(SOURCE), MemoryRegions.LOCAL_READ, PD);
            regions.register(TARGET, REGION, va(TARGET), MemoryRegions.REMOTE_WRITE | MemoryRegions.LOCAL_READ, PD);
            regions.register(EXPOSED, REGION, va(EXPOSED), MemoryRegions.REMOTE_READ | MemoryRegions.LOCAL_WRITE,
                    PD);
            regions.register(SINK, REGION, va(SINK), MemoryRegions.LOCAL_WRITE, PD);
            regions.register(RECEIVE, REGION, va(RECEIVE), MemoryRegions.LOCAL_WRITE, PD);
        }

        BytesStore<?, Void> store(int key) {
            return regions.region(key).store;
        }
    }

    static long va(int key) {
        return VA + ((long) key << 24);
    }

    final Side a;
    final Side b;
    long now;
    private final BytesStore<?, Void> rx = BytesStore.nativeStoreWithFixedCapacity(RcFrameTransmitter.CAPACITY);

    RcPair(long seed, PathMtu mtu, int psnA, int psnB) {
        a = new Side(seed * 31 + 1);
        b = new Side(seed * 31 + 2);
        a.path.ipv4(0x02_00_00_00_00_0aL, 0x02_00_00_00_00_0bL, 0x0a00_0001, 0x0a00_0002)
                .queuePairs(0x11, 0x22, 0xffff).mtu(mtu).psns(psnA, psnB).retries(7, 7, 1, 1_000_000)
                .protectionDomain(PD);
        b.path.ipv4(0x02_00_00_00_00_0bL, 0x02_00_00_00_00_0aL, 0x0a00_0002, 0x0a00_0001)
                .queuePairs(0x22, 0x11, 0xffff).mtu(mtu).psns(psnB, psnA).retries(7, 7, 1, 1_000_000)
                .protectionDomain(PD);
        a.engine = new RcEngine(a.path, a.regions, a.rq, a.done, a.done, a.out, 256);
        b.engine = new RcEngine(b.path, b.regions, b.rq, b.done, b.done, b.out, 256);
    }

    /** Both QPs through RTR to RTS. */
    RcPair up() {
        for (Side s : new Side[] {a, b}) {
            s.engine.modify(RcState.READY_TO_RECEIVE, now);
            s.engine.modify(RcState.READY_TO_SEND, now);
        }
        return this;
    }

    /** Runs until {@code done} or {@code maxSteps}; answers {@code done}'s last value. */
    boolean run(BooleanSupplier done, int maxSteps) {
        for (int step = 0; step < maxSteps; step++) {
            if (done.getAsBoolean()) {
                return true;
            }
            int moved = a.engine.service(now, 64) + b.engine.service(now, 64);
            moved += deliver(a.out, b.engine) + deliver(b.out, a.engine);
            if (moved == 0) {
                long next = Long.MAX_VALUE;
                for (Side s : new Side[] {a, b}) {
                    if (s.engine.hasDeadline()) {
                        next = Math.min(next, s.engine.deadline());
                    }
                }
                now = next == Long.MAX_VALUE ? now + 1_000_000 : Math.max(now + 1, next);
            } else {
                now += 1_000;
            }
        }
        return done.getAsBoolean();
    }

    private int deliver(FaultyWire wire, RcEngine to) {
        int n = 0;
        for (byte[] f : wire.drain()) {
            rx.write(0, f, 0, f.length);
            to.receive(rx, 0, f.length, now);
            n++;
        }
        return n;
    }
}
