package dev.irdmaemu.bridge.layeringfixture.cm;

import dev.irdmaemu.bridge.layeringfixture.model.ModelThing;

/** Violation: the connection manager reaching into the device model. */
public final class CmUsesModel {
    public ModelThing model;
}
