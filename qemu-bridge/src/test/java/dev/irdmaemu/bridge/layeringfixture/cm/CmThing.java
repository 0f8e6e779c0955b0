package dev.irdmaemu.bridge.layeringfixture.cm;

import dev.irdmaemu.bridge.layeringfixture.fw.FwClean;

/** A connection-manager class that uses only the firmware interface. */
public final class CmThing {
    public int state() {
        return new FwClean().value();
    }
}
