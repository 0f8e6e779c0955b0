package dev.irdmaemu.bridge.layeringfixture.driver;

import dev.irdmaemu.bridge.layeringfixture.cm.CmThing;

/** Violation: the driver calling up into the connection manager. */
public final class DriverUsesCm {
    public int peek() {
        return new CmThing().state();
    }
}
