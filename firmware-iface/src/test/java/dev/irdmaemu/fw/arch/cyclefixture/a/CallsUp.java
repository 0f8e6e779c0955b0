package dev.irdmaemu.fw.arch.cyclefixture.a;

import dev.irdmaemu.fw.arch.cyclefixture.b.Above;

/** The lower package reaching up into the one above it: closes the cycle a -> b -> a. */
public final class CallsUp {
    public int depth() {
        return new Above().depth();
    }
}
