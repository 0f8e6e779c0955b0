package dev.irdmaemu.bridge.layeringfixture.model;

import dev.irdmaemu.bridge.layeringfixture.fw.FwClean;

/** A device-model class that uses only the firmware interface. */
public final class ModelThing {
    public FwClean fw = new FwClean();
}
