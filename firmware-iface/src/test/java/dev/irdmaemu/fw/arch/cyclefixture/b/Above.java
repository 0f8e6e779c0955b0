package dev.irdmaemu.fw.arch.cyclefixture.b;

import dev.irdmaemu.fw.arch.cyclefixture.a.Layer;

/** Uses the package below it, as verbs use the driver. */
public final class Above {
    public int depth() {
        return new Layer().depth() + 1;
    }
}
