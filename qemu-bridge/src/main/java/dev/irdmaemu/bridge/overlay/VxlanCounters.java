package dev.irdmaemu.bridge.overlay;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a {@link VxlanCable} carried and what it refused, by reason: written by the cable's thread, readable from
 * any. A datagram is counted once, under the first rule it broke (the order of {@link VxlanCable}'s checks).
 */
public final class VxlanCounters {
    /** Datagrams delivered into the adapter. */
    final LongAdder received = new LongAdder();
    /** Datagrams sent (one per endpoint a frame went to). */
    final LongAdder sent = new LongAdder();
    /** From an address that is not one of the cable's endpoints. */
    final LongAdder spoofed = new LongAdder();
    /** Shorter than the VXLAN header and an Ethernet header. */
    final LongAdder truncated = new LongAdder();
    /** Without the I flag (RFC 7348 section 5). */
    final LongAdder badHeader = new LongAdder();
    /** For another VXLAN segment. */
    final LongAdder wrongVni = new LongAdder();
    /** An inner frame longer than the E810's largest. */
    final LongAdder oversized = new LongAdder();
    /** Accepted, but the adapter's inbound mailbox was full. */
    final LongAdder adapterFull = new LongAdder();
    /** Frames of the adapter's not sent: out of size, or the socket refused them. */
    final LongAdder notSent = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    void failed(Throwable t) {
        failure.compareAndSet(null, t);
    }

    public long received() {
        return received.sum();
    }

    public long sent() {
        return sent.sum();
    }

    public long spoofed() {
        return spoofed.sum();
    }

    public long truncated() {
        return truncated.sum();
    }

    public long badHeader() {
        return badHeader.sum();
    }

    public long wrongVni() {
        return wrongVni.sum();
    }

    public long oversized() {
        return oversized.sum();
    }

    public long adapterFull() {
        return adapterFull.sum();
    }

    public long notSent() {
        return notSent.sum();
    }

    /** Every datagram refused, whatever the reason. */
    public long dropped() {
        return spoofed() + truncated() + badHeader() + wrongVni() + oversized() + adapterFull();
    }

    /** Why the cable's thread stopped, or null while it runs (or after a normal close). */
    public Throwable failure() {
        return failure.get();
    }

    @Override
    public String toString() {
        return String.format("received %d, sent %d; dropped: spoofed %d, truncated %d, no I flag %d, wrong VNI %d, "
                        + "oversized %d, adapter full %d; not sent %d", received(), sent(), spoofed(), truncated(),
                badHeader(), wrongVni(), oversized(), adapterFull(), notSent());
    }
}
