package dev.irdmaemu.bridge.vhost;

/**
 * Front-end request codes and header flags of the vhost-user protocol (QEMU docs/interop/vhost-user.rst,
 * "Front-end message types" and "Header"). All numbers on the socket are in the machine's byte order
 * (little-endian on the hosts we run on).
 */
public final class VhostUserRequest {
    public static final int GET_FEATURES = 1;
    public static final int SET_FEATURES = 2;
    public static final int SET_OWNER = 3;
    public static final int RESET_OWNER = 4;
    public static final int SET_MEM_TABLE = 5;
    public static final int SET_LOG_BASE = 6;
    public static final int SET_LOG_FD = 7;
    public static final int SET_VRING_NUM = 8;
    public static final int SET_VRING_ADDR = 9;
    public static final int SET_VRING_BASE = 10;
    public static final int GET_VRING_BASE = 11;
    public static final int SET_VRING_KICK = 12;
    public static final int SET_VRING_CALL = 13;
    public static final int SET_VRING_ERR = 14;
    public static final int GET_PROTOCOL_FEATURES = 15;
    public static final int SET_PROTOCOL_FEATURES = 16;
    public static final int GET_QUEUE_NUM = 17;
    public static final int SET_VRING_ENABLE = 18;

    /** vhost-user.rst "Header": request u32, flags u32, size u32. */
    public static final int HEADER_SIZE = 12;
    /** Lower 2 bits of flags: the protocol version, currently 1. */
    public static final int VERSION = 0x1;
    public static final int VERSION_MASK = 0x3;
    /** Bit 2: set on every reply from the back-end. */
    public static final int FLAG_REPLY = 1 << 2;
    /** Bit 3: the front-end asks for a REPLY_ACK (vhost-user.rst "VHOST_USER_PROTOCOL_F_REPLY_ACK"). */
    public static final int FLAG_NEED_REPLY = 1 << 3;

    /** vhost-user.rst "Memory regions description": at most 8 regions (region0 .. region7). */
    public static final int MAX_REGIONS = 8;
    /** num regions u32 + padding u32, then per region: guest address, size, user address, mmap offset (u64 each). */
    public static final int MEM_TABLE_HEADER = 8;
    public static final int MEM_REGION_SIZE = 32;
    /** vring address description: index u32, flags u32, descriptor, used, available, log (u64 each). */
    public static final int VRING_ADDR_SIZE = 40;
    /** Bits 0-7 of the KICK/CALL/ERR u64 are the ring index, bit 8 says "no file descriptor" (poll instead). */
    public static final long VRING_INDEX_MASK = 0xff;
    public static final long VRING_NOFD_FLAG = 1 << 8;

    /** Protocol feature bits (vhost-user.rst "Protocol features"). */
    public static final int PROTOCOL_F_MQ = 0;
    public static final int PROTOCOL_F_REPLY_ACK = 3;

    private VhostUserRequest() {
    }

    /** The request's name for logs, e.g. {@code SET_MEM_TABLE}, or {@code REQUEST_99}. */
    public static String name(int request) {
        switch (request) {
            case GET_FEATURES: return "GET_FEATURES";
            case SET_FEATURES: return "SET_FEATURES";
            case SET_OWNER: return "SET_OWNER";
            case RESET_OWNER: return "RESET_OWNER";
            case SET_MEM_TABLE: return "SET_MEM_TABLE";
            case SET_LOG_BASE: return "SET_LOG_BASE";
            case SET_LOG_FD: return "SET_LOG_FD";
            case SET_VRING_NUM: return "SET_VRING_NUM";
            case SET_VRING_ADDR: return "SET_VRING_ADDR";
            case SET_VRING_BASE: return "SET_VRING_BASE";
            case GET_VRING_BASE: return "GET_VRING_BASE";
            case SET_VRING_KICK: return "SET_VRING_KICK";
            case SET_VRING_CALL: return "SET_VRING_CALL";
            case SET_VRING_ERR: return "SET_VRING_ERR";
            case GET_PROTOCOL_FEATURES: return "GET_PROTOCOL_FEATURES";
            case SET_PROTOCOL_FEATURES: return "SET_PROTOCOL_FEATURES";
            case GET_QUEUE_NUM: return "GET_QUEUE_NUM";
            case SET_VRING_ENABLE: return "SET_VRING_ENABLE";
            default: return "REQUEST_" + Integer.toUnsignedString(request);
        }
    }
}
