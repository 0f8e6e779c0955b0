package dev.irdmaemu.fw.wire;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimEventFifo;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A simulated Ethernet segment joining two or more {@link LinkPort}s, driven by a {@link SimScheduler}. A frame
 * put on the link is copied into a link-owned buffer, passed to the tap (for pcap), put through the sending port's
 * {@link FaultProfile} and delivered, after the delay, to every port whose MAC is the destination (the sender
 * included, which is how loopback traffic comes back) or to every other port for a group address.
 *
 * <p>Buffers are pooled and named by index: once the pool has grown to the number of frames in flight,
 * transmitting allocates nothing. A port's frames that keep their order (no reordering, no duplicate) are due at
 * non-decreasing times, so they wait in the port's {@link SimEventFifo}, one scheduler entry for all of them; a
 * reordered frame or a duplicate has its buffer's own timer. Either way each delivery is keyed as one timer armed
 * at the transmit, so the order of events is the same.
 */
public final class Link {
    /** Largest frame carried: a tagged 1500-byte MTU frame, with room to spare. */
    public static final int MAX_FRAME = 2048;
    private static final int ETHERNET_HEADER = 14;
    private static final int TAGGED_HEADER = 18;

    private final SimScheduler scheduler;
    private final FrameTap tap;
    private final List<LinkPort> ports = new ArrayList<>();
    private InFlight[] pool = new InFlight[16];
    private int[] free = new int[16];
    private int freeCount;
    private int pooled;
    private long framesCarried;
    private long framesLost;
    private long framesDuplicated;
    private long framesReordered;
    private long framesCorrupted;
    private int inFlight;

    public Link(SimScheduler scheduler, FrameTap tap) {
        this.scheduler = scheduler;
        this.tap = tap == null ? FrameTap.NONE : tap;
    }

    public Link(SimScheduler scheduler) {
        this(scheduler, FrameTap.NONE);
    }

    /** Plugs a port with this MAC (48-bit) into the link; {@code outbound} applies to the frames it sends. */
    public LinkPort attach(long mac, FaultProfile outbound, FrameReceiver receiver) {
        LinkPort p = new LinkPort(this, mac & 0xffff_ffff_ffffL, outbound,
                scheduler.random(0x11CCL * 31 + ports.size() + 1), receiver, ports.size(),
                new SimEventFifo(scheduler, "link-delivery", this::deliver));
        ports.add(p);
        return p;
    }

    public SimScheduler scheduler() {
        return scheduler;
    }

    public long framesCarried() {
        return framesCarried;
    }

    public long framesLost() {
        return framesLost;
    }

    public long framesDuplicated() {
        return framesDuplicated;
    }

    public long framesReordered() {
        return framesReordered;
    }

    public long framesCorrupted() {
        return framesCorrupted;
    }

    /** Frames scheduled for delivery and not delivered yet. */
    public int framesInFlight() {
        return inFlight;
    }

    void transmit(LinkPort from, BytesStore<?, ?> store, long offset, int length) {
        if (length <= 0 || length > MAX_FRAME) {
            throw new IllegalArgumentException("frame of " + length + " bytes");
        }
        framesCarried++;
        InFlight f = take();
        f.store.write(0, store, offset, length);
        f.length = length;
        f.corruptedAt = -1;
        // The destination, read now while the frame is in the cache (the fault injection below never touches the
        // Ethernet header); the buffer holds MAX_FRAME bytes whatever the frame's length.
        f.destination = NetworkOrder.u48(f.store, 0);
        tap.frame(scheduler.now(), f.store, 0, length);
        FaultProfile faults = from.outbound;
        SplittableRandom rnd = from.random;
        if (faults.loss() > 0 && rnd.nextDouble() < faults.loss()) {
            framesLost++;
            free[freeCount++] = f.index;
            return;
        }
        if (faults.corruption() > 0 && rnd.nextDouble() < faults.corruption()) {
            int header = headerLength(f);
            if (length > header) {
                int bit = rnd.nextInt((length - header) * 8);
                int at = header + bit / 8;
                f.store.writeByte(at, (byte) (f.store.readByte(at) ^ (1 << (bit % 8))));
                f.corruptedAt = header + bit / 8;
                framesCorrupted++;
            }
        }
        long delay = faults.delayNanos() + (faults.jitterNanos() > 0 ? rnd.nextLong(faults.jitterNanos()) : 0);
        long at = scheduler.now() + delay;
        boolean reordered = faults.reordering() > 0 && rnd.nextDouble() < faults.reordering();
        if (reordered) {
            framesReordered++;
            at += faults.reorderNanos();
        } else {
            // keep the direction in order: never deliver before the frame sent ahead of it (once the port's queue
            // is empty, that frame's time has passed)
            if (from.deliveries.size() > 0) {
                at = Math.max(at, from.deliveries.lastDeadline());
            }
        }
        boolean duplicate = faults.duplication() > 0 && rnd.nextDouble() < faults.duplication();
        f.from = from.index;
        inFlight++;
        if (reordered) {
            f.timer.scheduleAt(at);
        } else {
            from.deliveries.add(f.index, at);
        }
        if (duplicate) {
            framesDuplicated++;
            InFlight copy = take();
            copy.store.write(0, f.store, 0, length);
            copy.length = length;
            copy.corruptedAt = f.corruptedAt;
            copy.destination = f.destination;
            copy.from = from.index;
            inFlight++;
            copy.timer.scheduleAt(at + Math.max(1, faults.delayNanos() / 2));
        }
    }

    private static int headerLength(InFlight f) {
        boolean tagged = f.length >= TAGGED_HEADER && f.store.readUnsignedByte(12) == 0x81
                && f.store.readByte(13) == 0;
        return tagged ? TAGGED_HEADER : ETHERNET_HEADER;
    }

    private InFlight take() {
        if (freeCount > 0) {
            return pool[free[--freeCount]];
        }
        if (pooled == pool.length) {
            pool = Arrays.copyOf(pool, 2 * pooled);
            free = Arrays.copyOf(free, 2 * pooled);
        }
        InFlight f = new InFlight(pooled);
        pool[pooled++] = f;
        return f;
    }

    private void deliver(int index) {
        deliver(pool[index]);
    }

    private void deliver(InFlight f) {
        inFlight--;
        long dst = f.destination;
        boolean group = (dst & 0x0100_0000_0000L) != 0; // the I/G bit: the first octet's least significant bit
        try {
            for (int i = 0; i < ports.size(); i++) {
                LinkPort p = ports.get(i);
                if (group ? p.index != f.from : p.mac == dst) {
                    p.deliveringCorruptedAt = f.corruptedAt;
                    try {
                        p.receiver.receive(f.store, 0, f.length);
                    } finally {
                        p.deliveringCorruptedAt = -1;
                    }
                }
            }
        } finally {
            f.from = -1;
            free[freeCount++] = f.index;
        }
    }

    private final class InFlight {
        final int index;
        /**
         * Native, like the ports' own buffers: a copy between two native stores is one memory copy, while Chronicle
         * copies a heap array into native memory eight bytes at a time in Java (a tenth of the Write bench went
         * there, in the port's copy of each delivered frame). A direct buffer, so that the memory goes with the
         * link when it is collected (a link has no close).
         */
        final BytesStore<?, ?> store = BytesStore.wrap(ByteBuffer.allocateDirect(MAX_FRAME));
        /** For a delivery out of its port's order (reordered, duplicate). */
        final SimTimer timer = scheduler.newTimer("link-delivery", () -> deliver(this));
        int length;
        int corruptedAt = -1;
        /** The destination MAC (48 bits, first octet in bits 47..40). */
        long destination;
        /** The sending port's index in {@link #ports}: an int, not a reference stored per frame. */
        int from = -1;

        InFlight(int index) {
            this.index = index;
        }
    }
}
