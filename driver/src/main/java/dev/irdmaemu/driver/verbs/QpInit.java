package dev.irdmaemu.driver.verbs;

/**
 * What a consumer asks for when it creates a QP (ib_verbs.h struct ib_qp_init_attr for an iWARP RC QP): the PD,
 * the send and receive CQs (may be the same), the queue depths in work requests and SGEs, the inline data size,
 * and whether every send is signaled (IB_SIGNAL_ALL_WR).
 */
public record QpInit(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr,
                     int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData, boolean signalAll) {

    /** A QP with {@code depth} send and receive work requests of up to {@code sges} SGEs and 64 inline bytes. */
    public static QpInit of(ProtectionDomain pd, CompletionQueue cq, int depth, int sges) {
        return new QpInit(pd, cq, cq, depth, depth, sges, sges, 64, false);
    }

    /** verbs.c irdma_validate_qp_attrs: a PD and two CQs, and every size within the device's limits. */
    void validate() {
        if (pd == null || sendCq == null || recvCq == null || pd.deallocated) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "a QP needs a PD and two CQs");
        }
        if (maxInlineData < 0 || maxInlineData > IrdmaVerbs.MAX_INLINE || maxSendSge < 0
                || maxSendSge > IrdmaVerbs.MAX_SGE || maxRecvSge < 0 || maxRecvSge > IrdmaVerbs.MAX_SGE
                || maxSendWr < 0 || maxSendWr > IrdmaVerbs.MAX_WQ_QUANTA || maxRecvWr < 0
                || maxRecvWr > IrdmaVerbs.MAX_WQ_QUANTA) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP attributes " + this);
        }
    }
}
