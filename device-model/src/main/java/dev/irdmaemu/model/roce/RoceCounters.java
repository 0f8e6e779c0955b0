package dev.irdmaemu.model.roce;

/**
 * The RoCEv2 engine's packet counters: UD packets sent and placed, sends refused with an AE, and each receive drop
 * by its reason ({@link RoceDrop}). Plain longs, bumped on the data path without allocation; read for the model's
 * summaries and tests.
 */
public final class RoceCounters {
    private final long[] drops = new long[RoceDrop.values().length];
    private long sent;
    private long sentBytes;
    private long received;
    private long receivedBytes;
    private long sendErrors;
    private long loopedBack;

    void sent(int payload, boolean loopback) {
        sent++;
        sentBytes += payload;
        if (loopback) {
            loopedBack++;
        }
    }

    void received(int payload) {
        received++;
        receivedBytes += payload;
    }

    void sendError() {
        sendErrors++;
    }

    void drop(RoceDrop why) {
        drops[why.ordinal()]++;
    }

    public long sent() {
        return sent;
    }

    public long sentBytes() {
        return sentBytes;
    }

    public long received() {
        return received;
    }

    public long receivedBytes() {
        return receivedBytes;
    }

    /** UD sends refused with an AE (malformed WQE, bad AH, too long, unreadable buffer). */
    public long sendErrors() {
        return sendErrors;
    }

    /** UD sends through a loopback AH, handed to the own receive path. */
    public long loopedBack() {
        return loopedBack;
    }

    public long dropped(RoceDrop why) {
        return drops[why.ordinal()];
    }

    public long totalDropped() {
        long t = 0;
        for (long d : drops) {
            t += d;
        }
        return t;
    }
}
