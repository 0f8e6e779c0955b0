package dev.irdmaemu.model.qp;

/**
 * What the port's classifier steered to one QP and what it dropped for it: an offloaded iWARP QP's TCP segments
 * (their payload bytes), a PUDA QP's frames (ILQ / IEQ, puda.c), as the E810's Rx path hands a frame to the QP its
 * quad hash names. Counted by {@link QueuePair#steered} and {@link QueuePair#dropped}, zeroed when the QP id is
 * created again. Plain fields, no allocation.
 */
public final class SteeredFrames {
    private long frames;
    private long bytes;
    private long dropped;

    SteeredFrames() {
    }

    void countSteered(long tcpPayload) {
        frames++;
        bytes += tcpPayload;
    }

    void countDropped() {
        dropped++;
    }

    void clear() {
        frames = 0;
        bytes = 0;
        dropped = 0;
    }

    /** Frames steered to the QP. */
    public long frames() {
        return frames;
    }

    /** TCP payload bytes of the frames steered to the QP. */
    public long bytes() {
        return bytes;
    }

    /** Frames the QP could not take. */
    public long dropped() {
        return dropped;
    }
}
