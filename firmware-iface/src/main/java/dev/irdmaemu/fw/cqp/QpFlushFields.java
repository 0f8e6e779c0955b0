package dev.irdmaemu.fw.cqp;

/**
 * The fields of a Flush WQEs WQE (ctrl.c irdma_sc_qp_flush_wqes, from struct irdma_qp_flush_info, gen2) and of the
 * Generate AE WQE that shares its opcode (irdma_sc_gen_ae: only the AE word and GENERATE_AE). The driver writes
 * them with {@link CqpWqeWriter#flushWqes} / {@link CqpWqeWriter#generateAe}; the device reads them with
 * {@link #readFrom} after {@link CqpWqe#validate()} (the layout: {@link CqpWqe}'s {@code FWQE_*} masks).
 *
 * <p>hw.c irdma_flush_wqes asks with user flush codes: major IRDMA_FLUSH_MAJOR_ERR and, as minor, the QP's
 * flush_code (user.h enum irdma_flush_opcode) for the queue the AE named, FLUSH_GENERAL_ERR for the other. The
 * completion's minor code says what was flushed (main.h IRDMA_CQP_COMPL_RQ_WQE_FLUSHED 2,
 * IRDMA_CQP_COMPL_SQ_WQE_FLUSHED 3). Gen3's error-index quadwords (+40, +48) are not part of the gen2 layout.
 * Mutable and reusable: one instance per caller, no allocation per WQE.
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
