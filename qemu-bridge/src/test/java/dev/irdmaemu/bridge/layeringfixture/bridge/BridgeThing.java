package dev.irdmaemu.bridge.layeringfixture.bridge;

import dev.irdmaemu.bridge.layeringfixture.fw.FwClean;

/** The bridge may use everything below it. */
public final class BridgeThing {
    public FwClean fw = new FwClean();
}
