package dev.irdmaemu.driver.verbs;

/**
 * What MPA negotiated, handed to the hardware with the TCP context (irdma cm.c irdma_cm_init_tsa_conn,
 * irdma_accept): revision, IRD/ORD, which zero-length operation the initiator sends as RTR, whether this side is
 * the one that sends it, and for the passive side the LSMM, the MPA reply bytes the QP transmits first.
 */
public record MpaOutcome(int revision, int ird, int ord, Rdma0 rtrType, boolean sendsRtr, byte[] lsmm) {
    public MpaOutcome {
        lsmm = lsmm == null ? new byte[0] : lsmm.clone();
    }

    @Override
    public byte[] lsmm() {
        return lsmm.clone();
    }

    public int lsmmLength() {
        return lsmm.length;
    }
}
