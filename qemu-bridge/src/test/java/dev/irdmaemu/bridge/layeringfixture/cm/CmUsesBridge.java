package dev.irdmaemu.bridge.layeringfixture.cm;

import dev.irdmaemu.bridge.layeringfixture.bridge.BridgeThing;

/** Violation: the connection manager reaching up into the bridge. */
public final class CmUsesBridge {
    public Object bridge() {
        return new BridgeThing();
    }
}
