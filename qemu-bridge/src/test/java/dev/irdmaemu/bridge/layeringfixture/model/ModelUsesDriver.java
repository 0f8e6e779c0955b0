package dev.irdmaemu.bridge.layeringfixture.model;

import dev.irdmaemu.bridge.layeringfixture.driver.DriverThing;

/** Violation: the device model calling the driver directly (its tests may; its main classes may not). */
public final class ModelUsesDriver {
    public int peek() {
        return new DriverThing().register();
    }
}
