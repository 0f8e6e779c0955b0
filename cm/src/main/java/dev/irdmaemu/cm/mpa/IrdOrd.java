package dev.irdmaemu.cm.mpa;

import dev.irdmaemu.driver.verbs.Rdma0;

/**
 * One side's IRD/ORD bookkeeping during MPA v2 enhanced connection setup (RFC 6581 §7), with the negotiation of
 * irdma cm.c irdma_negotiate_mpa_v2_ird_ord. Mutable and reused per node: negotiating allocates nothing.
 */
public final class IrdOrd {
    /** RFC 6581 §7.1: IRD and ORD are 14-bit fields; 0x3fff means "no value" (irdma cm.h IETF_NO_IRD_ORD). */
    public static final int NO_VALUE = 0x3fff;
    /** irdma cm.h IETF_PEER_TO_PEER (in the IRD word). */
    public static final int PEER_TO_PEER = 0x8000;
    /** irdma cm.h IETF_FLPDU_ZERO_LEN (in the IRD word). */
    public static final int ZERO_LENGTH_FPDU = 0x4000;
    /** irdma cm.h IETF_RDMA0_WRITE (in the ORD word). */
    public static final int RDMA0_WRITE = 0x8000;
    /** irdma cm.h IETF_RDMA0_READ (in the ORD word). */
    public static final int RDMA0_READ = 0x4000;

    private int ird;
    private int ord;
    private boolean noValue;
    private Rdma0 rdma0 = Rdma0.READ;

    public IrdOrd set(int ird, int ord) {
        this.ird = ird;
        this.ord = ord;
        this.noValue = false;
        // irdma_make_cm_node: send_rdma0_op starts as SEND_RDMA_READ_ZERO
        this.rdma0 = Rdma0.READ;
        return this;
    }

    /**
     * The initiator's request: ird/ord the ULP asked for, clamped to the device, and an ORD of 0 raised to 1
     * because the RTR will be a zero-length read (cm.c irdma_record_ird_ord).
     */
    public IrdOrd record(int requestedIrd, int requestedOrd, int maxIrd, int maxOrd) {
        set(Math.min(requestedIrd, maxIrd), requestedOrd);
        if (requestedOrd > maxOrd) {
            ord = maxOrd;
        } else if (requestedOrd == 0 && rdma0 == Rdma0.READ) {
            ord = 1;
        }
        return this;
    }

    public int ird() {
        return ird;
    }

    public int ord() {
        return ord;
    }

    /** The peer sent 0x3fff for IRD or ORD: our frames carry "no value" too (cm.c mpav2_ird_ord). */
    public boolean noValue() {
        return noValue;
    }

    public Rdma0 rdma0() {
        return rdma0;
    }

    /** The IRD word we send in an RTR message (cm.c irdma_build_mpa_v2). */
    public int ctrlIrd() {
        int v = noValue ? NO_VALUE : Math.min(ird, NO_VALUE);
        return v | PEER_TO_PEER;
    }

    /** The ORD word: a request offers both RDMA0 operations, a reply echoes the chosen one (irdma_build_mpa_v2). */
    public int ctrlOrd(boolean request) {
        int v = noValue ? NO_VALUE : Math.min(ord, NO_VALUE);
        if (request) {
            return v | RDMA0_WRITE | RDMA0_READ;
        }
        return v | (rdma0 == Rdma0.WRITE ? RDMA0_WRITE : RDMA0_READ);
    }

    /**
     * Applies the peer's RTR words. {@code initiator}: this node sent the MPA request and is reading the reply
     * (cm.c: the node is in MPAREQ_SENT); otherwise it is the responder reading the request.
     */
    public MpaRejection negotiate(boolean initiator, int peerCtrlIrd, int peerCtrlOrd) {
        int peerIrd = peerCtrlIrd & NO_VALUE;
        int peerOrd = peerCtrlOrd & NO_VALUE;
        if ((peerCtrlIrd & PEER_TO_PEER) == 0) {
            return MpaRejection.NOT_PEER_TO_PEER;
        }
        if (peerIrd == NO_VALUE || peerOrd == NO_VALUE) {
            noValue = true;
        } else if (!initiator) {
            // a peer that reads zero bytes as its RTR needs one inbound read resource here
            if (peerOrd == 0 && (peerCtrlOrd & RDMA0_READ) != 0) {
                ird = 1;
            }
            if (ord > peerIrd) {
                ord = peerIrd;
            }
        } else {
            if (peerIrd == 0 && (peerCtrlOrd & RDMA0_READ) != 0) {
                return MpaRejection.PEER_CANNOT_READ0;
            }
            if (ord > peerIrd) {
                ord = peerIrd;
            }
            if (ird < peerOrd) {
                return MpaRejection.INSUFFICIENT_IRD;
            }
        }
        if ((peerCtrlOrd & RDMA0_READ) != 0) {
            rdma0 = Rdma0.READ;
        } else if ((peerCtrlOrd & RDMA0_WRITE) != 0) {
            rdma0 = Rdma0.WRITE;
        } else {
            return MpaRejection.NO_RDMA0_OPERATION;
        }
        return MpaRejection.ACCEPTED;
    }
}
