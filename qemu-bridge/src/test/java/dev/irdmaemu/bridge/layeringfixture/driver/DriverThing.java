package dev.irdmaemu.bridge.layeringfixture.driver;

import dev.irdmaemu.bridge.layeringfixture.fw.FwClean;

/** A driver class that uses only the firmware interface. */
public final class DriverThing {
    public int register() {
        return new FwClean().value();
    }
}
