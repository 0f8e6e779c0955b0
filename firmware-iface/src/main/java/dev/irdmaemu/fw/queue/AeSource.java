package dev.irdmaemu.fw.queue;

/** IRDMA_AEQE_AESRC values (defs.h IRDMA_AE_SOURCE_*): which queue or engine an AE came from. */
public final class AeSource {
    public static final int RSVD = 0x0;
    public static final int RQ = 0x1;
    public static final int CQ = 0x2;
    public static final int RQ_0011 = 0x3;
    public static final int SQ = 0x5;
    public static final int CQ_0110 = 0x6;
    public static final int SQ_0111 = 0x7;
    public static final int IN_RR_WR = 0x9;
    public static final int CQ_1010 = 0xa;
    public static final int IN_RR_WR_1011 = 0xb;
    public static final int OUT_RR = 0xd;
    public static final int CQ_1110 = 0xe;
    public static final int OUT_RR_1111 = 0xf;

    private AeSource() {
    }

    public static String name(int source) {
        switch (source) {
            case RSVD: return "RSVD";
            case RQ: case RQ_0011: return "RQ";
            case CQ: case CQ_0110: case CQ_1010: case CQ_1110: return "CQ";
            case SQ: case SQ_0111: return "SQ";
            case IN_RR_WR: case IN_RR_WR_1011: return "IN_RR_WR";
            case OUT_RR: case OUT_RR_1111: return "OUT_RR";
            default: return "UNDEFINED";
        }
    }
}
