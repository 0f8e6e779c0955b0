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
    /** RoCEv2 UD / QP1 data path (model.roce): a UD packet placed, sent, or dropped and counted. */
    ROCE_RX("roce_rx"),
    ROCE_TX("roce_tx"),
    ROCE_DROP("roce_drop"),
    FRAME_RX("frame_rx"),
    FRAME_TX("frame_tx"),
    LAN("lan"),
    /** Memory registration: STag ops, Fast Register, invalidation, refused accesses (model.mr). */
    MR("mr"),
    /** An FPDU the iWARP data path put on a QP's TCP stream, with its decoded DDP/RDMAP fields. */
    FPDU_TX("fpdu_tx"),
    /** A whole FPDU the data path took off a QP's stream (CRC checked), decoded. */
    FPDU_RX("fpdu_rx"),
    /** Data placed into host memory (tagged or untagged) or a message completed. */
    PLACEMENT("placement"),
    /** A Terminate sent or received, or a data-path error that stops a QP. */
    TERMINATE("terminate"),
    /** SQ work: a WQE fetched, started or completed by an iWARP QP. */
    SQ_WQE("sq_wqe"),
    /**
     * A completion the device could not write (its CQ missing, or the CQE slot outside mapped host memory), with
     * the reason and the AE raised for it (model.qp.CqTable.Loss).
     */
    COMPLETION_LOST("completion_lost"),
    /** A write to a read-only register: traced the first time per register (model.reg.RegisterFile). */
    REG_READ_ONLY("reg_read_only"),
    /**
     * A doorbell the device ignored (PFPE_WQEALLOC or its user-page alias naming no QP that takes it), or the
     * first read of the user doorbell page.
     */
    DOORBELL("doorbell"),
    /**
     * An E810 admin queue command answered or event posted (model.ice.AdminQueue): queue, opcode and its name, the
     * retval's name, datalen; ring-level faults (CRIT/OVFL) too.
     */
    AQ("aq"),
    /** A guest write to the PCI function's configuration space, by field name, with the value it left (model.pci). */
    PCI_CONFIG("pci_config"),
    /**
     * A BAR access the PCI function refused or answered without a register (a size or alignment it does not take,
     * an offset beyond the BAR) and MSI-X messages dropped while MSI-X is disabled (model.pci).
     */
    PCI_BAR("pci_bar"),
    /** A function reset (FLR, the transport's device reset) and what it returned to power-on state. */
    FUNCTION_RESET("function_reset"),
    /** An MSI-X message the PCI function sent to the host (model.pci), after the enable and bus-master checks. */
    MSIX("msix"),
    /**
     * A fault the host injected on purpose (a debugging and test feature, never the guest's doing) as it bit: e.g.
     * a CQP completion withheld (model.cqp.CqpEngine#withholdNextCompletion) or an op failed with chosen codes
     * (CqpEngine#failNextOp), with the op it concerned.
     */
    FAULT_INJECTED("fault_injected"),
    /**
     * The adapter's embedded switch (model.sw): its forwarding table rebuilt from the functions' rules (entries, each
     * function's VSI and loopback flags), and frames it pruned or dropped.
     */
    SWITCH("switch");

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
