package dev.irdmaemu.bridge.layeringfixture.fw;

/** A firmware-interface class that depends on nothing of the upper layers. */
public final class FwClean {
    public int value() {
        return 1;
    }
}
