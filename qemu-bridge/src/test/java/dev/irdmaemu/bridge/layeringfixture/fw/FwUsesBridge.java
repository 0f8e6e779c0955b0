package dev.irdmaemu.bridge.layeringfixture.fw;

import dev.irdmaemu.bridge.layeringfixture.bridge.BridgeThing;

/** Violation: the firmware interface reaching up into the bridge. */
public final class FwUsesBridge {
    public BridgeThing thing = new BridgeThing();
}
