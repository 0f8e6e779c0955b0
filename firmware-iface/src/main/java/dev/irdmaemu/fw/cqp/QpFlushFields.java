package dev.irdmaemu.fw.cqp;

/**
 * The fields of a Flush WQEs WQE (ctrl.c irdma_sc_qp_flush_wqes, from struct irdma_qp_flush_info, gen2) and of the
 * Generate AE WQE that shares its opcode (irdma_sc_gen_ae: only the AE word and GENERATE_AE). Mutable and
 * reusable: one instance per caller, no allocation per WQE.
 */
public final class QpFlushFields {
    public int qpId;
    public boolean flushSq;
    public boolean flushRq;
    /** IRDMA_CQPSQ_FWQE_USERFLCODE: the completions carry the major/minor codes below. */
    public boolean userFlushCode;
    public int sqMajor;
    public int sqMinor;
    public int rqMajor;
    public int rqMinor;
    public boolean generateAe;
    public int aeCode;
    public int aeSource;

    public QpFlushFields clear() {
        qpId = sqMajor = sqMinor = rqMajor = rqMinor = aeCode = aeSource = 0;
        flushSq = flushRq = userFlushCode = generateAe = false;
        return this;
    }

    /** Reads every field of {@code w}. */
    public QpFlushFields readFrom(CqpWqe w) {
        qpId = w.fwqeQpId();
        flushSq = w.fwqeFlushSq();
        flushRq = w.fwqeFlushRq();
        userFlushCode = w.fwqeUserFlushCode();
        sqMajor = w.fwqeSqMajor();
        sqMinor = w.fwqeSqMinor();
        rqMajor = w.fwqeRqMajor();
        rqMinor = w.fwqeRqMinor();
        generateAe = w.fwqeGenerateAe();
        aeCode = w.fwqeAeCode();
        aeSource = w.fwqeAeSource();
        return this;
    }
}
