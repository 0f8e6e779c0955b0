package dev.irdmaemu.model.trace;

/**
 * The guest-visible actions the model traces, one constant per trace-event family (in the spirit of QEMU's
 * trace-events files). Each kind can be switched on or off on its own; a disabled kind costs one mask test.
 */
public enum TraceKind {
    REG_READ("reg_read"),
    REG_WRITE("reg_write"),
    /** An access to an offset the register table does not back (traced once per offset). */
    REG_UNKNOWN("reg_unknown"),
    CQP_CREATE("cqp_create"),
    CQP_OP("cqp_op"),
    CQP_ERROR("cqp_error"),
    HMC("hmc"),
    CEQE("ceqe"),
    AEQE("aeqe"),
    INTERRUPT("irq"),
    CQE("cqe"),
    QP_STATE("qp_state"),
    QHASH("qhash"),
    CLASSIFY("classify"),
    PUDA_RX("puda_rx"),
    PUDA_TX("puda_tx"),
    PUDA_DROP("puda_drop"),
    FRAME_RX("frame_rx"),
    FRAME_TX("frame_tx"),
    LAN("lan"),
    /** Memory registration: STag ops, Fast Register, invalidation, refused accesses (model.mr). */
    MR("mr");

    private final String wireName;

    TraceKind(String wireName) {
        this.wireName = wireName;
    }

    /** The event name in JSON lines. */
    public String wireName() {
        return wireName;
    }

    public long bit() {
        return 1L << ordinal();
    }
}
