package dev.irdmaemu.fw.wire;

/**
 * What one direction of a {@link Link} does to the frames put on it. Probabilities are per frame, drawn from the
 * link's seeded random stream, so a run is reproducible for a scheduler seed.
 *
 * @param loss           probability a frame is dropped
 * @param duplication    probability a frame is delivered twice (the copy a little later)
 * @param reordering     probability a frame is held back by {@code reorderNanos}, letting later frames overtake it
 * @param corruption     probability one bit of the frame's IP packet (the bytes after the Ethernet header) is
 *                       flipped; one bit, so an IPv4 header or TCP checksum always shows it (RFC 1071 §2)
 * @param delayNanos     propagation delay of every frame
 * @param jitterNanos    extra delay drawn uniformly from [0, jitter); order is kept unless reordering says not
 * @param reorderNanos   how long a reordered frame is held back
 */
public record FaultProfile(double loss, double duplication, double reordering, double corruption,
                           long delayNanos, long jitterNanos, long reorderNanos) {
    /** A perfect wire with a 10 µs delay. */
    public static final FaultProfile NONE = new FaultProfile(0, 0, 0, 0, 10_000, 0, 0);

    public FaultProfile {
        check(loss, "loss");
        check(duplication, "duplication");
        check(reordering, "reordering");
        check(corruption, "corruption");
        if (delayNanos < 0 || jitterNanos < 0 || reorderNanos < 0) {
            throw new IllegalArgumentException("negative delay");
        }
    }

    private static void check(double p, String what) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(what + " probability " + p);
        }
    }

    public static FaultProfile delay(long delayNanos) {
        return new FaultProfile(0, 0, 0, 0, delayNanos, 0, 0);
    }

    public FaultProfile withLoss(double p) {
        return new FaultProfile(p, duplication, reordering, corruption, delayNanos, jitterNanos, reorderNanos);
    }

    public FaultProfile withDuplication(double p) {
        return new FaultProfile(loss, p, reordering, corruption, delayNanos, jitterNanos, reorderNanos);
    }

    public FaultProfile withReordering(double p, long holdNanos) {
        return new FaultProfile(loss, duplication, p, corruption, delayNanos, jitterNanos, holdNanos);
    }

    public FaultProfile withCorruption(double p) {
        return new FaultProfile(loss, duplication, reordering, p, delayNanos, jitterNanos, reorderNanos);
    }

    public FaultProfile withJitter(long nanos) {
        return new FaultProfile(loss, duplication, reordering, corruption, delayNanos, nanos, reorderNanos);
    }
}
