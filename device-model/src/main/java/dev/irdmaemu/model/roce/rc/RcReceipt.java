package dev.irdmaemu.model.roce.rc;

/**
 * What became of one received frame: every frame the engine is handed ends in exactly one of these, and
 * {@link RcCounters} counts each. The drops are silent on the wire as rxe_recv.c's are; the NAKs are IBA §9.7.5's
 * responder classes (sequence error, RNR, invalid request, remote access, remote operational); the requester's
 * cases are rxe_comp.c's (ACK progress, duplicate, NAKs, READ responses in and out of order).
 */
public enum RcReceipt {
    /** Broken structure (lengths, versions, opcode, pad: {@code RoceFrame.validateStructure}) or IPv4 checksum. */
    MALFORMED,
    /** The ICRC does not match (IBA §7.8.1). */
    BAD_ICRC,
    /** Addressed to another QP. */
    WRONG_QUEUE_PAIR,
    /** A P_Key other than the QP's (IBA §9.6.1.1). */
    BAD_PARTITION_KEY,
    /** From an IP address other than the QP's peer (rxe_recv.c check_addr). */
    WRONG_SOURCE_ADDRESS,
    /** A UC, UD or other non-RC opcode on this RC QP. */
    NOT_RELIABLE_CONNECTION,
    /** A CNP: counted and ignored (DCQCN is off for every irdma QP). */
    CNP_IGNORED,
    /** The QP is not in a state that takes the frame (before RTR, in ERROR, a response before RTS). */
    STATE_DROPPED,

    /** Responder: the expected request, executed. */
    REQUEST_EXECUTED,
    /** Responder: a duplicate SEND or WRITE, ACKed again (IBA §9.7.5.1.1). */
    DUPLICATE_ACKED,
    /** Responder: a duplicate READ, answered again from its read resources. */
    DUPLICATE_READ_REPLAYED,
    /** Responder: a duplicate READ no read resource holds any more, dropped. */
    DUPLICATE_READ_DROPPED,
    /** Responder: a PSN ahead of the expected one, answered with one NAK PSN sequence error. */
    SEQUENCE_NAKED,
    /** Responder: a PSN ahead of the expected one after the NAK was sent, dropped. */
    SEQUENCE_DROPPED,
    /** Responder: no RQ WQE for a SEND or WRITE with immediate, answered with an RNR NAK. */
    RNR_NAKED,
    /** Responder: NAK invalid request (bad opcode sequence, unsupported opcode, lengths), QP to error. */
    INVALID_REQUEST_NAKED,
    /** Responder: NAK remote access error (R_Key, VA, length or rights), QP to error. */
    REMOTE_ACCESS_NAKED,
    /** Responder: NAK remote operational error (a local buffer failed), QP to error. */
    REMOTE_OPERATION_NAKED,

    /** Requester: an ACK that acknowledged new packets. */
    ACK_PROGRESS,
    /** Requester: an ACK that acknowledged nothing new. */
    ACK_DUPLICATE,
    /** Requester: an ACK, NAK or response whose PSN is outside the packets in flight. */
    OUT_OF_WINDOW,
    /** Requester: NAK PSN sequence error, retransmission from its PSN. */
    SEQUENCE_NAK_RETRY,
    /** Requester: RNR NAK, retransmission after the timer. */
    RNR_NAK_WAIT,
    /** Requester: a NAK that ends the work request in error. */
    NAK_ERROR,
    /** Requester: an AETH with a reserved syndrome or NAK code. */
    RESERVED_SYNDROME,
    /** Requester: a READ response placed. */
    RESPONSE_PLACED,
    /** Requester: a READ response for a PSN already placed. */
    RESPONSE_DUPLICATE,
    /** Requester: a READ response past the one expected (an earlier one was lost): retransmission. */
    RESPONSE_OUT_OF_ORDER,
    /** Requester: a READ response whose opcode position or length does not fit its READ. */
    RESPONSE_MALFORMED,
    /** Requester: a READ response whose local buffer the QP may not write: the READ fails, QP to error. */
    RESPONSE_PLACEMENT_FAILED,
    /** Requester: a response for a PSN that is no outstanding READ. */
    RESPONSE_UNEXPECTED;

    /** True when the frame passed the frame check (structure, ICRC, QP, P_Key, source, state) and was acted on. */
    public boolean passedFrameCheck() {
        return ordinal() >= REQUEST_EXECUTED.ordinal();
    }
}
