package dev.irdmaemu.fw.wire;

import dev.irdmaemu.fw.sim.SimEventFifo;
import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.BytesStore;

/** One device's connection to a {@link Link}. */
public final class LinkPort {
    final Link link;
    final long mac;
    final FaultProfile outbound;
    final SplittableRandom random;
    final FrameReceiver receiver;
    /** This port's index on its link. */
    final int index;
    /** This port's frames in their order, each delivered at its time. */
    final SimEventFifo deliveries;
    int deliveringCorruptedAt = -1;

    LinkPort(Link link, long mac, FaultProfile outbound, SplittableRandom random, FrameReceiver receiver, int index,
             SimEventFifo deliveries) {
        this.link = link;
        this.index = index;
        this.deliveries = deliveries;
        this.mac = mac;
        this.outbound = outbound;
        this.random = random;
        this.receiver = receiver;
    }

    /** Puts a frame on the link; the bytes are copied before this returns. */
    public void transmit(BytesStore<?, ?> store, long offset, int length) {
        link.transmit(this, store, offset, length);
    }

    public long mac() {
        return mac;
    }

    public FaultProfile outbound() {
        return outbound;
    }

    public Link link() {
        return link;
    }

    /**
     * True while the frame being delivered to this port's receiver was corrupted by the link: lets a test check
     * that the receiver refused it. Meaningful only inside {@link FrameReceiver#receive}.
     */
    public boolean deliveringCorrupted() {
        return deliveringCorruptedAt >= 0;
    }

    /** Offset in the frame of the byte the link corrupted, -1 when it is intact (inside a receive only). */
    public int deliveringCorruptedAt() {
        return deliveringCorruptedAt;
    }
}
