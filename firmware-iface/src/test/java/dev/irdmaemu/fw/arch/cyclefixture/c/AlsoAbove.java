package dev.irdmaemu.fw.arch.cyclefixture.c;

import dev.irdmaemu.fw.arch.cyclefixture.a.Layer;

/** Uses the package below it and nothing uses it back. */
public final class AlsoAbove {
    public int depth() {
        return new Layer().depth() + 1;
    }
}
