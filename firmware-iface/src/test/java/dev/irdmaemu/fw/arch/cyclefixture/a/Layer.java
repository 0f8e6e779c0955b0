package dev.irdmaemu.fw.arch.cyclefixture.a;

/** The lower package of the fixture. */
public final class Layer {
    public int depth() {
        return 1;
    }
}
