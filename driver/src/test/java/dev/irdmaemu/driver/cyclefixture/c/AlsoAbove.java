package dev.irdmaemu.driver.cyclefixture.c;

import dev.irdmaemu.driver.cyclefixture.a.Layer;

/** Uses the package below it and nothing uses it back. */
public final class AlsoAbove {
    public int depth() {
        return new Layer().depth() + 1;
    }
}
