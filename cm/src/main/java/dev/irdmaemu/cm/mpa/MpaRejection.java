package dev.irdmaemu.cm.mpa;

import dev.irdmaemu.fw.Check;

/**
 * Why the CM refuses a received MPA request or reply: every return of irdma cm.c irdma_parse_mpa and
 * irdma_negotiate_mpa_v2_ird_ord, in the order cm.c tests them, with the errno it answers. Each one ends the
 * connection attempt with a reset (irdma_handle_rcv_mpa: irdma_active_open_err or irdma_passive_open_err).
 */
public enum MpaRejection implements Check {
    ACCEPTED("acceptable MPA frame", 0),
    BUFFER_TOO_SMALL("fewer bytes than the 20-byte MPA header", -22),
    PRIVATE_DATA_TOO_LONG("PD_Length above 512 (IETF_MAX_PRIV_DATA_LEN)", -75),
    UNKNOWN_REVISION("revision neither 1 nor 2", -22),
    REVISION_ABOVE_OURS("revision higher than the node's own", -22),
    UNEXPECTED_KEY("key is not the one this node waits for (request when passive, reply when MPAREQ_SENT)", -22),
    LENGTH_MISMATCH("PD_Length plus header exceeds the bytes received", -75),
    OVER_MAX_CM_BUF("more than IRDMA_MAX_CM_BUF (544) bytes", -75),
    NOT_PEER_TO_PEER("MPA v2 RTR message without the peer-to-peer bit", -95),
    PEER_CANNOT_READ0("initiator: responder IRD 0 but RDMA0 read selected", -95),
    INSUFFICIENT_IRD("initiator: our IRD below the responder's ORD (no resources)", -22),
    NO_RDMA0_OPERATION("neither RDMA0 read nor write offered", -95),
    /** Not a cm.c rule: irdma would honour markers (snd_mark_en); this emulator does not do markers. */
    MARKERS_REQUESTED("peer asks for MPA markers, which this emulator does not do", -95);

    private final String text;
    private final int errno;

    MpaRejection(String text, int errno) {
        this.text = text;
        this.errno = errno;
    }


    @Override
    public String describe() {
        return text;
    }

    /** The negative errno cm.c returns for it (-EINVAL, -EOVERFLOW, -EOPNOTSUPP). */
    public int errno() {
        return errno;
    }
}
