package dev.irdmaemu.bridge.vhost;

import dev.irdmaemu.fw.pcap.FrameTap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The model's Ethernet port as a virtio-net device served over vhost-user: the object the rest of the system
 * holds. Frames go to the guest with {@link #transmitToGuest} and come from the guest through
 * {@link #pollFromGuest}; both are called on the model's thread.
 *
 * <p>Threading: the vhost-user connection thread and the kick threads never call the model. A guest kick only runs
 * the {@linkplain #setWakeup wakeup} callback (the hand-off: post a "poll the port" task to the model thread); the
 * model thread then drains the transmit ring itself with {@link #pollFromGuest}. Ring state is guarded by the
 * connection's lock, so a front-end reconfiguring or disconnecting meanwhile is safe.
 *
 * <p>When no front-end is connected, or the guest has not started its rings, frames to the guest are dropped (a
 * NIC with no receive buffers does the same) and counted.
 */
public final class VhostNetPort {
    /** The largest frame either way: Ethernet header, one VLAN tag and virtio-net's largest MTU (65535). */
    public static final int MAX_FRAME = 14 + 4 + 65535;

    /** The IP MTU of the wire (Ethernet's 1500): the largest segment cut from the guest's TCP super-frames. */
    public static final int DEFAULT_MTU = 1500;

    private final String name;
    private final long startNanos = System.nanoTime();
    private volatile VhostUserConnection connection;
    private volatile FrameTap tap = FrameTap.NONE;
    private volatile LongSupplier clock = () -> System.nanoTime() - startNanos;
    private volatile Runnable wakeup = () -> { };

    final AtomicLong toGuestFrames = new AtomicLong();
    final AtomicLong toGuestDropped = new AtomicLong();
    final AtomicLong fromGuestFrames = new AtomicLong();
    final AtomicLong fromGuestDropped = new AtomicLong();
    final AtomicLongArray refusedFromGuest = new AtomicLongArray(TxOffload.Refusal.values().length);
    private volatile int mtu = DEFAULT_MTU;
    private final HandOffTrace handOffs = HandOffTrace.fromSystemProperty();

    public VhostNetPort(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** A copy of every frame both ways, stamped with {@link #setClock the clock}. */
    public void setTap(FrameTap tap) {
        this.tap = tap == null ? FrameTap.NONE : tap;
    }

    /** The time source for the tap, in nanoseconds (default: wall time since the port was made). */
    public void setClock(LongSupplier clock) {
        this.clock = clock;
    }

    /**
     * Called from a back-end thread whenever the guest kicks a ring (it posted frames or receive buffers). It must
     * not block or call into the port: post a task to the model thread and return.
     */
    public void setWakeup(Runnable wakeup) {
        this.wakeup = wakeup == null ? () -> { } : wakeup;
    }

    /** True while a front-end is connected and both rings are started. */
    public boolean linkUp() {
        VhostUserConnection c = connection;
        return c != null && c.ringsReady();
    }

    /**
     * Puts one frame (destination MAC on, no FCS) in the guest's receive ring, behind a virtio-net header with
     * num_buffers set and, when the guest took GUEST_CSUM and the frame's TCP checksum verifies, DATA_VALID. When
     * the guest took GUEST_TSO4/6, a TCP data segment may be held instead (true: taken) and go to the guest with the
     * segments after it as one super-frame, at the latest on {@link #flushToGuest}. The guest is interrupted (when it
     * asked to be) on {@link #flushToGuest}, once for all the frames of the model's round. False when it was
     * dropped: no front-end, rings not started, no receive buffer that fits. A guest that broke its ring closes the
     * connection (logged) and drops the frame.
     */
    public boolean transmitToGuest(BytesStore<?, ?> store, long offset, int length) {
        if (length < 0 || length > MAX_FRAME || offset < store.start() || offset > store.readLimit() - length) {
            throw new IllegalArgumentException("frame " + offset + "+" + length + " outside its store or over "
                    + MAX_FRAME + " bytes");
        }
        VhostUserConnection c = connection;
        boolean delivered = c != null && c.receive(store, offset, length);
        if (delivered) {
            toGuestFrames.incrementAndGet();
            tap.frame(clock.getAsLong(), store, offset, length);
        } else {
            toGuestDropped.incrementAndGet();
        }
        return delivered;
    }

    /**
     * The model's round is over: hands the guest what {@link #transmitToGuest} held back to coalesce (GUEST_TSO4/6:
     * in-order TCP segments of one flow go to the guest as one super-frame), then interrupts the guest where it asked
     * for it, once per ring for all the round's frames and buffers given back: the receive ring first. Called on
     * the model's thread at the end of each of its rounds; until then the guest is not interrupted.
     */
    public void flushToGuest() {
        VhostUserConnection c = connection;
        if (c != null) {
            c.flush();
        }
    }

    /**
     * Takes up to {@code budget} frames the guest transmitted and hands each (virtio-net header stripped) to
     * {@code receiver}, returning their buffers to the guest (the interrupt for them, if asked for, on
     * {@link #flushToGuest}). A frame the guest asked to have its checksum completed
     * is handed on completed; a TCP super-frame (TSO) is handed on as its MTU-sized segments, one call each. Answers how many were taken; when that equals the
     * budget, more may be waiting.
     */
    public int pollFromGuest(FrameReceiver receiver, int budget) {
        VhostUserConnection c = connection;
        return c == null ? 0 : c.transmit(receiver, budget);
    }

    /** The IP MTU segments of the guest's super-frames are held to. */
    public int mtu() {
        return mtu;
    }

    /** Sets the IP MTU (68..65535, RFC 791 and virtio-net's largest). */
    public void setMtu(int mtu) {
        if (mtu < 68 || mtu > 65535) {
            throw new IllegalArgumentException("MTU " + mtu + " outside 68..65535");
        }
        this.mtu = mtu;
    }

    /**
     * Frames from the guest dropped for what their virtio-net header said (offloads not negotiated, fields out of
     * bounds, a segment over the MTU...), by reason; each is also in {@link #framesFromGuestDropped}.
     */
    long framesFromGuestRefused(TxOffload.Refusal reason) {
        return refusedFromGuest.get(reason.ordinal());
    }

    /** Every frame dropped for its virtio-net header, whatever the reason. */
    public long framesFromGuestRefused() {
        long n = 0;
        for (int i = 0; i < refusedFromGuest.length(); i++) {
            n += refusedFromGuest.get(i);
        }
        return n;
    }

    public long framesToGuest() {
        return toGuestFrames.get();
    }

    public long framesToGuestDropped() {
        return toGuestDropped.get();
    }

    public long framesFromGuest() {
        return fromGuestFrames.get();
    }

    public long framesFromGuestDropped() {
        return fromGuestDropped.get();
    }

    /** Frames taken by {@link #transmitToGuest} and held for coalescing that found no receive buffer after all. */
    void heldDropped(int frames) {
        toGuestFrames.addAndGet(-frames);
        toGuestDropped.addAndGet(frames);
    }

    void tapFromGuest(BytesStore<?, ?> store, long offset, int length) {
        tap.frame(clock.getAsLong(), store, offset, length);
    }

    /** The wall-clock stamps of the port's hand-offs (off unless {@value HandOffTrace#PROPERTY} is set). */
    public HandOffTrace handOffs() {
        return handOffs;
    }

    void kicked() {
        wakeup.run();
    }

    void attach(VhostUserConnection c) {
        connection = c;
    }

    void detach(VhostUserConnection c) {
        if (connection == c) {
            connection = null;
        }
    }
}
