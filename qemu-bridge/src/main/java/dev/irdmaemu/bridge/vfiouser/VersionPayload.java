package dev.irdmaemu.bridge.vfiouser;

import java.util.OptionalInt;

/**
 * VERSION's payload (vfio-user.rst "VFIO_USER_VERSION"): major u16, minor u16, then an optional NUL-terminated
 * JSON string of capabilities. A flyweight over the message buffer at {@link VfioUserHeader#SIZE}.
 */
public final class VersionPayload extends VfioUserPayload<VersionPayload> {
    public static final int FIXED = 4;

    public int major() {
        return buf.getShort(AT) & 0xffff;
    }

    public int minor() {
        return buf.getShort(AT + 2) & 0xffff;
    }

    /** The length of the JSON text before its NUL; empty when the payload has no NUL. */
    public OptionalInt jsonLength() {
        for (int i = FIXED; i < length; i++) {
            if (buf.get(AT + i) == 0) {
                return OptionalInt.of(i - FIXED);
            }
        }
        return OptionalInt.empty();
    }

    /**
     * Major 0 only (the only version QEMU 11.1.3 speaks, proxy.c vfio_user_validate_version); the JSON, when there
     * is any, must end in a NUL inside the payload.
     */
    public VfioUserStatus validate() {
        if (length < FIXED) {
            return VfioUserStatus.BAD_SIZE;
        }
        if (major() != 0) {
            return VfioUserStatus.BAD_VERSION;
        }
        if (length > FIXED && jsonLength().isEmpty()) {
            return VfioUserStatus.BAD_VERSION;
        }
        return VfioUserStatus.OK;
    }

    /** Writes major 0, minor 0 and {@code json} (ASCII, with its NUL); answers the payload length. */
    public int write(byte[] json) {
        buf.putShort(AT, (short) 0).putShort(AT + 2, (short) 0);
        for (int i = 0; i < json.length; i++) {
            buf.put(AT + FIXED + i, json[i]);
        }
        buf.put(AT + FIXED + json.length, (byte) 0);
        return FIXED + json.length + 1;
    }
}
