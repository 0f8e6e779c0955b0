package dev.irdmaemu.model.roce;

/**
 * Why a received RoCEv2 frame was not placed into a QP (the checks of IBA vol. 1 §9.6 "packet header validation",
 * in the order rxe_recv.c applies them; each drop is silent on the wire, counted in {@link RoceCounters} and
 * traced as {@code roce_drop}).
 */
public enum RoceDrop {
    MALFORMED("the frame is no well-formed RoCEv2 packet (a fw.roce.RoceCheck rule)"),
    BAD_ICRC("the ICRC does not match (IBA Annex A17.4.3)"),
    NO_QP("BTH destination QP names no RoCE QP of this function"),
    QP_NOT_READY("the QP is not in RTR or RTS"),
    RC_NOT_MODELLED("an RC packet: the RC transport is not plugged in"),
    WRONG_TRANSPORT("the opcode is not a UD SEND on a UD QP (IBA §9.6.1.2)"),
    BAD_PKEY("the P_Key does not match the QP's (IBA §9.6.1.1)"),
    BAD_QKEY("the DETH Q_Key does not match the QP's (IBA §9.6.1.3, §10.2.5)"),
    ABOVE_MTU("the payload is longer than the QP's path MTU"),
    NO_RQ_WQE("no receive WQE posted"),
    BAD_RQ_WQE("the posted receive WQE is malformed"),
    TOO_LONG("the 40-byte network header slot and the payload do not fit the receive WQE's buffers"),
    BUFFER_FAULT("a receive buffer is outside host memory or its STag refuses the write"),
    NO_CQ_ROOM("the receive CQ is missing, full or unmapped"),
    RC_REFUSED("the RC transport's frame check refused it (its reason counted by the QP's engine, RcReceipt)");

    private final String text;

    RoceDrop(String text) {
        this.text = text;
    }

    public String describe() {
        return text;
    }
}
