package dev.irdmaemu.driver.cyclefixture.a;

/** The lower package of the fixture. */
public final class Layer {
    public int depth() {
        return 1;
    }
}
