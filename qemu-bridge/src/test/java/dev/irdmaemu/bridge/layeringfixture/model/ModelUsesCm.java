package dev.irdmaemu.bridge.layeringfixture.model;

import dev.irdmaemu.bridge.layeringfixture.cm.CmThing;

/** Violation: the device model calling the connection manager directly. */
public final class ModelUsesCm {
    public int peek() {
        return new CmThing().state();
    }
}
