package dev.irdmaemu.bridge.kit;

/** No usable guest kit: absent, half-made or naming files that are not there. The message ends with the cure. */
public final class MissingGuestKitException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The one-line hint every message ends with. */
    public static final String HINT = "run ./irdma-emu kit";

    MissingGuestKitException(String why) {
        super(why + ": " + HINT);
    }
}
