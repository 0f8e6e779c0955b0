package dev.irdmaemu.fw.iwarp;

/**
 * RDMAP opcodes (RFC 5040 §4.2; siw iwarp.h enum rdma_opcode), carried in the low 4 bits of the DDP
 * RsvdULP control byte. Each knows whether its DDP segments are tagged and, for untagged ones, the DDP queue
 * number it travels on (RFC 5040 §5: QN 0 Send, QN 1 RDMA Read Request, QN 2 Terminate).
 */
public enum RdmapOpcode {
    RDMA_WRITE(0, true, -1),
    RDMA_READ_REQUEST(1, false, 1),
    RDMA_READ_RESPONSE(2, true, -1),
    SEND(3, false, 0),
    SEND_WITH_INVALIDATE(4, false, 0),
    SEND_WITH_SE(5, false, 0),
    SEND_WITH_SE_AND_INVALIDATE(6, false, 0),
    TERMINATE(7, false, 2);

    public static final int CODE_RDMA_WRITE = 0;
    public static final int CODE_RDMA_READ_REQUEST = 1;
    public static final int CODE_RDMA_READ_RESPONSE = 2;
    public static final int CODE_SEND = 3;
    public static final int CODE_SEND_WITH_INVALIDATE = 4;
    public static final int CODE_SEND_WITH_SE = 5;
    public static final int CODE_SEND_WITH_SE_AND_INVALIDATE = 6;
    public static final int CODE_TERMINATE = 7;

    /** RFC 5040 §5.1: untagged queue numbers. */
    public static final int QN_SEND = 0;
    public static final int QN_READ_REQUEST = 1;
    public static final int QN_TERMINATE = 2;

    private static final RdmapOpcode[] BY_CODE = values();

    private final int code;
    private final boolean tagged;
    private final int queue;

    RdmapOpcode(int code, boolean tagged, int queue) {
        this.code = code;
        this.tagged = tagged;
        this.queue = queue;
    }

    public int code() {
        return code;
    }

    /** RFC 5040 §4.2: RDMA Write and RDMA Read Response use the tagged buffer model; all others untagged. */
    public boolean tagged() {
        return tagged;
    }

    /** The DDP queue number for this untagged opcode, or -1 for a tagged one. */
    public int queue() {
        return queue;
    }

    /** True for the two Send-with-Invalidate opcodes, whose RsvdULP carries the Invalidate STag. */
    public boolean carriesInvalidateStag() {
        return this == SEND_WITH_INVALIDATE || this == SEND_WITH_SE_AND_INVALIDATE;
    }

    /** The opcode for a 4-bit code, or null when RFC 5040 defines none (8..15). No allocation. */
    public static RdmapOpcode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    public static boolean isKnown(int code) {
        return of(code) != null;
    }

    /** RFC 5040 §5: expected DDP queue number for an untagged opcode code; -1 if tagged or unknown. */
    public static int expectedQueueFor(int code) {
        RdmapOpcode op = of(code);
        return op == null ? -1 : op.queue;
    }
}
