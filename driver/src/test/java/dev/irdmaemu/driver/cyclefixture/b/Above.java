package dev.irdmaemu.driver.cyclefixture.b;

import dev.irdmaemu.driver.cyclefixture.a.Layer;

/** Uses the package below it, as verbs use the driver. */
public final class Above {
    public int depth() {
        return new Layer().depth() + 1;
    }
}
