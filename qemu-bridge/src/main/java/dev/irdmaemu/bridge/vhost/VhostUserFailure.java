package dev.irdmaemu.bridge.vhost;

import dev.irdmaemu.fw.Check;

/**
 * Why a vhost-user connection was refused: a front-end message (control plane) or a guest ring (data plane) that
 * broke a rule. Each one is logged with its detail and closes that connection.
 */
public enum VhostUserFailure implements Check {
    ACCEPTED("accepted"),
    TRUNCATED_HEADER("connection ended inside a message header"),
    BAD_FLAGS("header flags: version not 1, or reply/unknown bits set"),
    PAYLOAD_TOO_LARGE("payload size above the largest message"),
    TRUNCATED_PAYLOAD("connection ended inside a message payload"),
    UNKNOWN_REQUEST("unknown or unsupported request"),
    WRONG_SIZE("payload size wrong for the request"),
    MISSING_FD("file descriptor missing"),
    EXTRA_FD("unexpected file descriptor"),
    TOO_MANY_REGIONS("memory table region count not in 1..8"),
    BAD_REGION("memory region empty, overflowing or overlapping"),
    MAP_FAILED("memory region could not be mapped"),
    UNSUPPORTED_FEATURES("features not offered, or VERSION_1 missing"),
    BAD_RING_INDEX("ring index not 0 (rx) or 1 (tx)"),
    BAD_RING_SIZE("ring size not a power of two in 1..32768"),
    BAD_RING_FLAGS("ring flags set (logging is not supported)"),
    RING_NOT_CONFIGURED("ring addresses before the ring size or the memory table"),
    RING_MISALIGNED("ring address misaligned"),
    RING_OUTSIDE_MEMORY("ring address outside the memory table"),
    BAD_VALUE("reserved bits or out-of-range value"),
    AVAIL_IDX_JUMP("guest avail idx moved more than the ring size"),
    BAD_HEAD("guest descriptor head index out of range"),
    BAD_NEXT("guest descriptor next index out of range"),
    CHAIN_LOOP("guest descriptor chain longer than its table (a loop)"),
    DESC_OUTSIDE_MEMORY("guest descriptor buffer outside the memory table"),
    BAD_INDIRECT("guest indirect descriptor table malformed"),
    WRONG_DIRECTION("guest descriptor direction wrong (writable on tx or read-only on rx)"),
    SHORT_FRAME("guest tx chain shorter than the virtio-net header"),
    IO_ERROR("socket or file descriptor error");

    private final String description;

    VhostUserFailure(String description) {
        this.description = description;
    }


    @Override
    public String describe() {
        return description;
    }
}
