package dev.irdmaemu.fw;

import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.RandomDistribution;

/**
 * A property's random choices as a jqwik-generated sequence of longs, read in order with {@link java.util.Random}'s
 * vocabulary, for properties that build a structure of many dependent fields. Unlike a {@code @ForAll long seed}
 * fed to {@code new Random(seed)}, jqwik shrinks the sequence itself, each draw towards 0: a failure is reported as
 * the smallest choices that still fail ({@code nextInt(bound)} towards 0, {@code nextBoolean()} towards false,
 * {@code nextLong()} towards 0), and {@link #toString} lists the draws in the order the property reads them.
 * <p>
 * Draws are uniform over all longs (so {@code nextInt(bound)} and {@code nextBoolean()} are as even as Random's),
 * jqwik adding its edge cases. A property that reads more than it was given fails loudly rather than reading
 * zeros.
 */
public final class Draws {
    private final long[] values;
    private int next;

    private Draws(long[] values) {
        this.values = values;
    }

    /** {@code n} draws: size it for the most a property can read. */
    public static Arbitrary<Draws> of(int n) {
        return Arbitraries.longs().withDistribution(RandomDistribution.uniform()).array(long[].class).ofSize(n)
                .map(Draws::new);
    }

    public long nextLong() {
        if (next == values.length) {
            throw new IllegalStateException("the property read more than its " + values.length + " draws");
        }
        return values[next++];
    }

    public int nextInt() {
        return (int) nextLong();
    }

    /** In [0, bound). */
    public int nextInt(int bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound " + bound);
        }
        return (int) Math.floorMod(nextLong(), (long) bound);
    }

    public boolean nextBoolean() {
        return (nextLong() & 1) != 0;
    }

    @Override
    public String toString() {
        return "Draws" + Arrays.toString(values);
    }
}
