package dev.irdmaemu.bridge.vhost;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wall-clock stamps ({@link System#nanoTime}) of the hand-offs a frame's round trip through the port passes: the
 * guest's kick seen by its ring's kick thread, the model thread's poll of the transmit ring, each frame handed to
 * the model, each frame put in the receive ring, each call descriptor signalled, and the end of each model round.
 * For diagnosis (issue 17: where a small message's round trip spends its time), off unless the system property
 * {@value #PROPERTY} gives a capacity; then the last {@code capacity} stamps are kept in a preallocated ring and
 * {@link #writeTo} writes them as text. Recording allocates nothing and takes no lock: the kick threads and the
 * model thread record concurrently, and a stamp read while being overwritten is a diagnostic's risk, not a
 * correctness one.
 */
public final class HandOffTrace {
    /** The system property: how many stamps to keep (a power of two is not required; 0 or unset: off). */
    public static final String PROPERTY = "irdmaemu.vhost.handoffs";

    /** The transmit ring's kick thread woke with a kick. */
    public static final int TX_KICK = 0;
    /** The receive ring's kick thread woke with a kick (the guest posted receive buffers). */
    public static final int RX_KICK = 1;
    /** The model thread starts taking frames out of the transmit ring. */
    public static final int POLL = 2;
    /** A frame from the guest goes to the model. */
    public static final int FROM_GUEST = 3;
    /** A frame from the model is in the receive ring (used idx published). */
    public static final int TO_GUEST = 4;
    /** The receive ring's call descriptor was signalled. */
    public static final int RX_CALL = 5;
    /** The transmit ring's call descriptor was signalled (buffers given back). */
    public static final int TX_CALL = 6;
    /** The model's round is over (what was held to coalesce is handed on). */
    public static final int ROUND_END = 7;

    private static final String[] NAMES = {"tx_kick", "rx_kick", "poll", "from_guest", "to_guest", "rx_call",
        "tx_call", "round_end"};

    private final long[] at;
    private final byte[] point;
    private final AtomicLong next = new AtomicLong();

    /** A trace keeping the last {@code capacity} stamps; 0: off (nothing is kept). */
    public HandOffTrace(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        at = new long[capacity];
        point = new byte[capacity];
    }

    /** The trace the system property {@value #PROPERTY} asks for (off when unset or not a number). */
    public static HandOffTrace fromSystemProperty() {
        int n;
        try {
            n = Integer.getInteger(PROPERTY, 0);
        } catch (SecurityException e) {
            n = 0;
        }
        return new HandOffTrace(Math.max(0, Math.min(n, 1 << 24)));
    }

    public boolean enabled() {
        return at.length > 0;
    }

    /** Stamps {@code what} (one of the constants) with the wall clock now; nothing when off. */
    public void record(int what) {
        if (at.length == 0) {
            return;
        }
        long now = System.nanoTime();
        int i = (int) (next.getAndIncrement() % at.length);
        point[i] = (byte) what;
        at[i] = now;
    }

    /** How many stamps were recorded in all (more than are kept once the ring has wrapped). */
    public long recorded() {
        return next.get();
    }

    /** The name of a point, as {@link #writeTo} writes it. */
    public static String name(int what) {
        return what >= 0 && what < NAMES.length ? NAMES[what] : "?" + what;
    }

    /**
     * Writes the stamps kept, oldest first, one a line: nanoseconds since the first kept, then the point's name.
     * Call when recording has stopped.
     */
    public void writeTo(Writer out) throws IOException {
        long n = next.get();
        int kept = (int) Math.min(n, at.length);
        if (kept == 0) {
            return;
        }
        long first = n - kept;
        long zero = at[(int) (first % at.length)];
        out.write("# ns\tpoint (irdma-emu vhost hand-offs, System.nanoTime since the first kept)\n");
        for (long s = first; s < n; s++) {
            int i = (int) (s % at.length);
            out.write(Long.toString(at[i] - zero));
            out.write('\t');
            out.write(name(point[i]));
            out.write('\n');
        }
    }
}
