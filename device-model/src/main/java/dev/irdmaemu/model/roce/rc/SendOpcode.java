package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.roce.BthOpcode;

/**
 * The RC work requests the E810's requester turns into packets (irdma defs.h IRDMAQP_OP_* as verbs.c
 * irdma_post_send maps the ib_wr opcodes), each with the BTH opcodes of its first, middle, last and only packets
 * (IBA Vol. 1 Table 38; rxe_req.c next_opcode_rc).
 */
public enum SendOpcode {
    SEND(BthOpcode.RC_SEND_FIRST, BthOpcode.RC_SEND_MIDDLE, BthOpcode.RC_SEND_LAST, BthOpcode.RC_SEND_ONLY),
    SEND_WITH_IMMEDIATE(BthOpcode.RC_SEND_FIRST, BthOpcode.RC_SEND_MIDDLE, BthOpcode.RC_SEND_LAST_WITH_IMMEDIATE,
            BthOpcode.RC_SEND_ONLY_WITH_IMMEDIATE),
    SEND_WITH_INVALIDATE(BthOpcode.RC_SEND_FIRST, BthOpcode.RC_SEND_MIDDLE, BthOpcode.RC_SEND_LAST_WITH_INVALIDATE,
            BthOpcode.RC_SEND_ONLY_WITH_INVALIDATE),
    RDMA_WRITE(BthOpcode.RC_RDMA_WRITE_FIRST, BthOpcode.RC_RDMA_WRITE_MIDDLE, BthOpcode.RC_RDMA_WRITE_LAST,
            BthOpcode.RC_RDMA_WRITE_ONLY),
    RDMA_WRITE_WITH_IMMEDIATE(BthOpcode.RC_RDMA_WRITE_FIRST, BthOpcode.RC_RDMA_WRITE_MIDDLE,
            BthOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, BthOpcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE),
    RDMA_READ(BthOpcode.RC_RDMA_READ_REQUEST, BthOpcode.RC_RDMA_READ_REQUEST, BthOpcode.RC_RDMA_READ_REQUEST,
            BthOpcode.RC_RDMA_READ_REQUEST);

    private final BthOpcode first;
    private final BthOpcode middle;
    private final BthOpcode last;
    private final BthOpcode only;

    SendOpcode(BthOpcode first, BthOpcode middle, BthOpcode last, BthOpcode only) {
        this.first = first;
        this.middle = middle;
        this.last = last;
        this.only = only;
    }

    /** The opcode of packet {@code index} of a message of {@code packets} packets. */
    BthOpcode packet(int index, int packets) {
        if (packets == 1) {
            return only;
        }
        return index == 0 ? first : index == packets - 1 ? last : middle;
    }

    /** The READ RESPONSE opcode of response packet {@code index} of {@code packets} (IBA §9.7.7 positions). */
    static BthOpcode readResponse(int index, int packets) {
        if (packets == 1) {
            return BthOpcode.RC_RDMA_READ_RESPONSE_ONLY;
        }
        return index == 0 ? BthOpcode.RC_RDMA_READ_RESPONSE_FIRST
                : index == packets - 1 ? BthOpcode.RC_RDMA_READ_RESPONSE_LAST : BthOpcode.RC_RDMA_READ_RESPONSE_MIDDLE;
    }

    boolean isRead() {
        return this == RDMA_READ;
    }
}
