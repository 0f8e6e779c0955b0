package dev.irdmaemu.fw.aq;

/**
 * AQ opcodes (ice_adminq_cmd.h enum ice_adminq_opc). Placeholder: branch aqcore owns this class.
 */
public final class AqOpcode {
    private AqOpcode() {
    }

    public static final int GET_SW_CFG = 0x0200;
    public static final int SET_PORT_PARAMS = 0x0203;
    public static final int SET_VLAN_MODE = 0x020C;
    public static final int GET_VLAN_MODE = 0x020D;
    public static final int ADD_VSI = 0x0210;
    public static final int UPDATE_VSI = 0x0211;
    public static final int GET_VSI_PARAMS = 0x0212;
    public static final int FREE_VSI = 0x0213;
    public static final int ADD_SW_RULES = 0x02A0;
    public static final int UPDATE_SW_RULES = 0x02A1;
    public static final int REMOVE_SW_RULES = 0x02A2;
    public static final int GET_DFLT_TOPO = 0x0400;
    public static final int ADD_SCHED_ELEMS = 0x0401;
    public static final int CFG_SCHED_ELEMS = 0x0403;
    public static final int GET_SCHED_ELEMS = 0x0404;
    public static final int MOVE_SCHED_ELEMS = 0x0408;
    public static final int SUSPEND_SCHED_ELEMS = 0x0409;
    public static final int RESUME_SCHED_ELEMS = 0x040A;
    public static final int DELETE_SCHED_ELEMS = 0x040F;
    public static final int ADD_RL_PROFILES = 0x0410;
    public static final int QUERY_SCHED_RES = 0x0412;
    public static final int REMOVE_RL_PROFILES = 0x0415;
    public static final int SET_RSS_KEY = 0x0B02;
    public static final int SET_RSS_LUT = 0x0B03;
    public static final int GET_RSS_KEY = 0x0B04;
    public static final int GET_RSS_LUT = 0x0B05;
    public static final int ADD_TXQS = 0x0C30;
    public static final int DIS_TXQS = 0x0C31;
    public static final int ADD_RDMA_QSET = 0x0C33;
    public static final int DOWNLOAD_PKG = 0x0C40;
    public static final int UPLOAD_SECTION = 0x0C41;
    public static final int GET_PKG_INFO_LIST = 0x0C43;
}
