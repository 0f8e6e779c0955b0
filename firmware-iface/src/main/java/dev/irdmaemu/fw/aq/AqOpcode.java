package dev.irdmaemu.fw.aq;

/**
 * The admin queue opcodes ice sends to the E810 firmware and the events the firmware posts on the ARQ: enum
 * libie_adminq_opc (include/linux/net/intel/libie/adminq.h, the fw-log commands) and enum ice_adminq_opc
 * (drivers/net/ethernet/intel/ice/ice_adminq_cmd.h). Named as the kernel names them, without the prefix.
 */
public final class AqOpcode {
    private AqOpcode() {
    }

    // AQ commands
    public static final int GET_VER = 0x0001;
    public static final int DRIVER_VER = 0x0002;
    public static final int Q_SHUTDOWN = 0x0003;
    // resource ownership
    public static final int REQ_RES = 0x0008;
    public static final int RELEASE_RES = 0x0009;
    // device/function capabilities
    public static final int LIST_FUNC_CAPS = 0x000A;
    public static final int LIST_DEV_CAPS = 0x000B;
    // MAC address
    public static final int MANAGE_MAC_READ = 0x0107;
    public static final int MANAGE_MAC_WRITE = 0x0108;
    public static final int CLEAR_PXE_MODE = 0x0110;
    // internal switch
    public static final int GET_SW_CFG = 0x0200;
    public static final int SET_PORT_PARAMS = 0x0203;
    public static final int ALLOC_RES = 0x0208;
    public static final int FREE_RES = 0x0209;
    public static final int SHARE_RES = 0x020B;
    public static final int SET_VLAN_MODE_PARAMETERS = 0x020C;
    public static final int GET_VLAN_MODE_PARAMETERS = 0x020D;
    public static final int ADD_VSI = 0x0210;
    public static final int UPDATE_VSI = 0x0211;
    /** ice_adminq_cmd.h names it only in a comment ("Get VSI (indirect 0x0212)"); the firmware answers it. */
    public static final int GET_VSI = 0x0212;
    public static final int FREE_VSI = 0x0213;
    public static final int ADD_RECIPE = 0x0290;
    public static final int RECIPE_TO_PROFILE = 0x0291;
    public static final int GET_RECIPE = 0x0292;
    public static final int GET_RECIPE_TO_PROFILE = 0x0293;
    public static final int ADD_SW_RULES = 0x02A0;
    public static final int UPDATE_SW_RULES = 0x02A1;
    public static final int REMOVE_SW_RULES = 0x02A2;
    public static final int CLEAR_PF_CFG = 0x02A4;
    // DCB
    public static final int QUERY_PFC_MODE = 0x0302;
    public static final int SET_PFC_MODE = 0x0303;
    // transmit scheduler
    public static final int GET_DFLT_TOPO = 0x0400;
    public static final int ADD_SCHED_ELEMS = 0x0401;
    public static final int CFG_SCHED_ELEMS = 0x0403;
    public static final int GET_SCHED_ELEMS = 0x0404;
    public static final int MOVE_SCHED_ELEMS = 0x0408;
    public static final int SUSPEND_SCHED_ELEMS = 0x0409;
    public static final int RESUME_SCHED_ELEMS = 0x040A;
    public static final int QUERY_PORT_ETS = 0x040E;
    public static final int DELETE_SCHED_ELEMS = 0x040F;
    public static final int ADD_RL_PROFILES = 0x0410;
    public static final int QUERY_SCHED_RES = 0x0412;
    public static final int REMOVE_RL_PROFILES = 0x0415;
    public static final int SET_TX_TOPO = 0x0417;
    public static final int GET_TX_TOPO = 0x0418;
    // PHY
    public static final int GET_PHY_CAPS = 0x0600;
    public static final int SET_PHY_CFG = 0x0601;
    public static final int SET_MAC_CFG = 0x0603;
    public static final int RESTART_AN = 0x0605;
    public static final int GET_LINK_STATUS = 0x0607;
    public static final int SET_EVENT_MASK = 0x0613;
    public static final int SET_MAC_LB = 0x0620;
    public static final int SET_PHY_REC_CLK_OUT = 0x0630;
    public static final int GET_PHY_REC_CLK_OUT = 0x0631;
    public static final int GET_SENSOR_READING = 0x0632;
    public static final int DNL_CALL = 0x0682;
    public static final int GET_LINK_TOPO = 0x06E0;
    public static final int READ_I2C = 0x06E2;
    public static final int WRITE_I2C = 0x06E3;
    public static final int SET_PORT_ID_LED = 0x06E9;
    public static final int GET_PORT_OPTIONS = 0x06EA;
    public static final int SET_PORT_OPTION = 0x06EB;
    public static final int SET_GPIO = 0x06EC;
    public static final int GET_GPIO = 0x06ED;
    public static final int SFF_EEPROM = 0x06EE;
    // NVM
    public static final int NVM_READ = 0x0701;
    public static final int NVM_ERASE = 0x0702;
    public static final int NVM_WRITE = 0x0703;
    public static final int NVM_CHECKSUM = 0x0706;
    public static final int NVM_WRITE_ACTIVATE = 0x0707;
    public static final int NVM_UPDATE_EMPR = 0x0709;
    public static final int NVM_PKG_DATA = 0x070A;
    public static final int NVM_PASS_COMPONENT_TBL = 0x070B;
    // PF/VF mailbox
    public static final int SEND_MSG_TO_PF = 0x0801;
    public static final int SEND_MSG_TO_VF = 0x0802;
    // LLDP
    public static final int LLDP_GET_MIB = 0x0A00;
    public static final int LLDP_SET_MIB_CHANGE = 0x0A01;
    public static final int LLDP_STOP = 0x0A05;
    public static final int LLDP_START = 0x0A06;
    public static final int GET_CEE_DCB_CFG = 0x0A07;
    public static final int LLDP_SET_LOCAL_MIB = 0x0A08;
    public static final int LLDP_STOP_START_SPECIFIC_AGENT = 0x0A09;
    public static final int LLDP_FILTER_CTRL = 0x0A0A;
    public static final int LLDP_EXECUTE_PENDING_MIB = 0x0A0B;
    // RSS
    public static final int SET_RSS_KEY = 0x0B02;
    public static final int SET_RSS_LUT = 0x0B03;
    public static final int GET_RSS_KEY = 0x0B04;
    public static final int GET_RSS_LUT = 0x0B05;
    public static final int NEIGHBOUR_DEVICE_REQUEST = 0x0C00;
    // Tx queues
    public static final int ADD_TXQS = 0x0C30;
    public static final int DIS_TXQS = 0x0C31;
    public static final int CFG_TXQS = 0x0C32;
    public static final int ADD_RDMA_QSET = 0x0C33;
    public static final int SET_TXTIMEQS = 0x0C35;
    // DDP package
    public static final int DOWNLOAD_PKG = 0x0C40;
    public static final int UPLOAD_SECTION = 0x0C41;
    public static final int UPDATE_PKG = 0x0C42;
    public static final int GET_PKG_INFO_LIST = 0x0C43;
    // 1588/SyncE
    public static final int GET_CGU_INPUT_MEASURE = 0x0C59;
    public static final int GET_CGU_ABILITIES = 0x0C61;
    public static final int SET_CGU_INPUT_CONFIG = 0x0C62;
    public static final int GET_CGU_INPUT_CONFIG = 0x0C63;
    public static final int SET_CGU_OUTPUT_CONFIG = 0x0C64;
    public static final int GET_CGU_OUTPUT_CONFIG = 0x0C65;
    public static final int GET_CGU_DPLL_STATUS = 0x0C66;
    public static final int SET_CGU_DPLL_CONFIG = 0x0C67;
    public static final int SET_CGU_REF_PRIO = 0x0C68;
    public static final int GET_CGU_REF_PRIO = 0x0C69;
    public static final int GET_CGU_INFO = 0x0C6A;
    public static final int DRIVER_SHARED_PARAMS = 0x0C90;
    // standalone events
    public static final int EVENT_LAN_OVERFLOW = 0x1001;
    // system diagnostics
    public static final int SET_HEALTH_STATUS_CFG = 0xFF20;
    public static final int GET_HEALTH_STATUS = 0xFF22;
    // FW logging (libie adminq.h)
    public static final int FW_LOGS_CONFIG = 0xFF30;
    public static final int FW_LOGS_REGISTER = 0xFF31;
    public static final int FW_LOGS_QUERY = 0xFF32;
    public static final int FW_LOGS_EVENT = 0xFF33;

    private static final int[] CODES;
    private static final String[] NAMES;

    static {
        java.util.TreeMap<Integer, String> m = new java.util.TreeMap<>();
        for (java.lang.reflect.Field f : AqOpcode.class.getDeclaredFields()) {
            int mod = f.getModifiers();
            if (f.getType() == int.class && java.lang.reflect.Modifier.isPublic(mod)
                    && java.lang.reflect.Modifier.isStatic(mod)) {
                try {
                    m.put(f.getInt(null), f.getName().toLowerCase(java.util.Locale.ROOT));
                } catch (IllegalAccessException e) {
                    throw new ExceptionInInitializerError(e);
                }
            }
        }
        CODES = new int[m.size()];
        NAMES = new String[m.size()];
        int i = 0;
        for (java.util.Map.Entry<Integer, String> e : m.entrySet()) {
            CODES[i] = e.getKey();
            NAMES[i++] = e.getValue();
        }
    }

    /** True for an opcode ice_adminq_cmd.h or adminq.h names. */
    public static boolean known(int opcode) {
        return java.util.Arrays.binarySearch(CODES, opcode) >= 0;
    }

    /** The kernel's name (e.g. "get_ver", "list_dev_caps"), or "unknown"; a constant, no allocation. */
    public static String name(int opcode) {
        int i = java.util.Arrays.binarySearch(CODES, opcode);
        return i >= 0 ? NAMES[i] : "unknown";
    }

    /** Every named opcode, ascending. */
    public static int[] all() {
        return CODES.clone();
    }
}
