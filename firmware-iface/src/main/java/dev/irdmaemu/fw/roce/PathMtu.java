package dev.irdmaemu.fw.roce;

import java.util.Optional;

/**
 * The InfiniBand path MTUs (IBA Vol. 1 §7.7.8; include/rdma/ib_verbs.h enum ib_mtu, whose codes 1..5 are also what
 * irdma and the RDMA core pass around): the payload bytes one packet of a message may carry.
 */
public enum PathMtu {
    MTU_256(1, 256),
    MTU_512(2, 512),
    MTU_1024(3, 1024),
    MTU_2048(4, 2048),
    MTU_4096(5, 4096);

    private static final PathMtu[] VALUES = values();
    @SuppressWarnings("unchecked")
    private static final Optional<PathMtu>[] BY_BYTES = new Optional[VALUES.length];

    static {
        for (int i = 0; i < VALUES.length; i++) {
            BY_BYTES[i] = Optional.of(VALUES[i]);
        }
    }

    private final int code;
    private final int bytes;

    PathMtu(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** ib_mtu's code (1 = 256 … 5 = 4096). */
    public int code() {
        return code;
    }

    public int bytes() {
        return bytes;
    }

    /** The MTU of exactly {@code bytes} payload bytes, empty if it is none of the five (preallocated). */
    public static Optional<PathMtu> ofBytes(long bytes) {
        for (int i = 0; i < VALUES.length; i++) {
            if (VALUES[i].bytes == bytes) {
                return BY_BYTES[i];
            }
        }
        return Optional.empty();
    }
}
