package dev.irdmaemu.fw.qp;

import dev.irdmaemu.fw.Check;

/**
 * Checks of a RoCEv2 QP context the host wrote (ctrl.c irdma_sc_qp_setctx_roce_gen_2 layout, {@link RoceQpContext})
 * before the model uses it: the fields whose value the device cannot act on. {@link #CONGESTION_CONTROL} asks for
 * something the model does not have (an unsupported field); the rest are invalid values. Checks against the device's own tables
 * (CQ numbers, ARP index) are the model's.
 */
public enum RoceQpContextCheck implements Check {
    ACCEPTED("usable RoCEv2 QP context"),
    TRUNCATED("shorter than the 256-byte QP context (user.h IRDMA_QP_CTX_SIZE)"),
    CONGESTION_CONTROL("IRDMAQPC_DCQCNENABLE, TIMELYENABLE or FW_CC_ENABLE is set: the model has no DCQCN, TIMELY or "
            + "firmware congestion control (irdma 7.3 leaves all three 0, verbs.c irdma_roce_fill_and_set_qpctx_info)"),
    BAD_TRANSPORT_VERSION("IRDMAQPC_ROCE_TVER is not 0 (IBTA vol. 1 9.2.7: BTH TVer is 0)"),
    BAD_PATH_MTU("IRDMAQPC_SNDMSS is not an IB path MTU (256, 512, 1024, 2048 or 4096; verbs.c ib_mtu_enum_to_int)"),
    BAD_DEST_PORT("IRDMAQPC_DESTPORTNUM is not 4791 (ROCE_V2_UDP_DPORT)"),
    BAD_IRD_SIZE("IRDMAQPC_IRDSIZE is not an IRDMA_IRD_HW_SIZE_* code (0..4, defs.h)"),
    BAD_QUEUE_SIZE("IRDMAQPC_SQSIZE or RQSIZE above the 32768-quanta ring (irdma_get_encoded_wqe_size)");

    private final String text;

    RoceQpContextCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
