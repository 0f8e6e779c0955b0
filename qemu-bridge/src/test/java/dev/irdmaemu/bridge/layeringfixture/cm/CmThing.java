package dev.irdmaemu.bridge.layeringfixture.cm;

import dev.irdmaemu.bridge.layeringfixture.driver.DriverThing;
import dev.irdmaemu.bridge.layeringfixture.fw.FwClean;

/** A connection-manager class that uses the driver and the firmware interface, as cm may. */
public final class CmThing {
    public int state() {
        return new FwClean().value() + new DriverThing().register();
    }
}
