package dev.irdmaemu.fw.aq;

/**
 * Byte layouts of the admin queue commands of ice's probe step A: offsets within the 16-byte params area of
 * {@link AqDescriptor} (for {@code paramU8/16/32(i)}) and within the indirect buffers, with the flag values the
 * driver and firmware use. Each nested class is one struct of include/linux/net/intel/libie/adminq.h or
 * drivers/net/ethernet/intel/ice/ice_adminq_cmd.h, named after it; fields are little-endian.
 */
public final class AqLayout {
    private AqLayout() {
    }

    /** struct libie_aqc_get_ver (direct 0x0001): all reply. */
    public static final class GetVer {
        public static final int ROM_VER = 0;
        public static final int FW_BUILD = 4;
        public static final int FW_BRANCH = 8;
        public static final int FW_MAJOR = 9;
        public static final int FW_MINOR = 10;
        public static final int FW_PATCH = 11;
        public static final int API_BRANCH = 12;
        public static final int API_MAJOR = 13;
        public static final int API_MINOR = 14;
        public static final int API_PATCH = 15;

        private GetVer() {
        }
    }

    /** struct libie_aqc_driver_ver (indirect 0x0002); the buffer is the driver's version string (UTS_RELEASE). */
    public static final class DriverVer {
        public static final int MAJOR = 0;
        public static final int MINOR = 1;
        public static final int BUILD = 2;
        public static final int SUBBUILD = 3;

        private DriverVer() {
        }
    }

    /** struct libie_aqc_req_res (direct 0x0008 request, 0x0009 release). */
    public static final class ReqRes {
        public static final int RES_ID = 0;
        public static final int ACCESS_TYPE = 2;
        public static final int TIMEOUT = 4;
        public static final int RES_NUMBER = 8;
        /** Only for the global config lock: LIBIE_AQ_RES_GLBL_*. */
        public static final int STATUS = 12;
        /** enum libie_aq_res_id. */
        public static final int RES_ID_NVM = 1;
        public static final int RES_ID_SDP = 2;
        public static final int RES_ID_CHNG_LOCK = 3;
        public static final int RES_ID_GLBL_LOCK = 4;
        public static final int ACCESS_READ = 1;
        public static final int ACCESS_WRITE = 2;
        public static final int NVM_READ_DFLT_TIMEOUT_MS = 3000;
        public static final int NVM_WRITE_DFLT_TIMEOUT_MS = 180000;
        public static final int CHNG_LOCK_DFLT_TIMEOUT_MS = 1000;
        public static final int GLBL_LOCK_DFLT_TIMEOUT_MS = 3000;
        public static final int GLBL_SUCCESS = 0;
        public static final int GLBL_IN_PROG = 1;
        public static final int GLBL_DONE = 2;

        private ReqRes() {
        }
    }

    /** struct libie_aqc_list_caps (indirect 0x000A func, 0x000B dev) and its 32-byte libie_aqc_list_caps_elem. */
    public static final class ListCaps {
        public static final int CMD_FLAGS = 0;
        public static final int PF_INDEX = 1;
        /** Reply: elements written; with ENOMEM, elements needed (ice_aq_list_caps reads it back as cap_count). */
        public static final int COUNT = 4;
        public static final int ELEM_SIZE = 32;
        public static final int ELEM_CAP = 0;
        public static final int ELEM_MAJOR_VER = 2;
        public static final int ELEM_MINOR_VER = 3;
        public static final int ELEM_NUMBER = 4;
        public static final int ELEM_LOGICAL_ID = 8;
        public static final int ELEM_PHYS_ID = 12;
        // LIBIE_AQC_CAPS_* ids the model reports
        public static final int CAP_VALID_FUNCTIONS = 0x0005;
        public static final int CAP_VSI = 0x0017;
        public static final int CAP_RSS = 0x0040;
        public static final int CAP_RXQS = 0x0041;
        public static final int CAP_TXQS = 0x0042;
        public static final int CAP_MSIX = 0x0043;
        public static final int CAP_MAX_MTU = 0x0047;
        public static final int CAP_RDMA = 0x0051;
        // and ids the fact sheet says to omit (tests check they stay out)
        public static final int CAP_SRIOV = 0x0012;
        public static final int CAP_VF = 0x0013;
        public static final int CAP_DCB = 0x0018;
        public static final int CAP_FD = 0x0045;
        public static final int CAP_1588 = 0x0046;
        public static final int CAP_NVM_MGMT = 0x0080;
        public static final int CAP_TX_SCHED_TOPO_COMP_MODE = 0x0085;
        public static final int CAP_NAC_TOPOLOGY = 0x0087;
        public static final int CAP_FW_LAG_SUPPORT = 0x0092;
        public static final int CAP_SENSOR_READING = 0x0067;

        private ListCaps() {
        }
    }

    /** struct ice_aqc_nvm (indirect 0x0701 read). */
    public static final class Nvm {
        public static final int OFFSET_LOW = 0;
        public static final int OFFSET_HIGH = 2;
        public static final int CMD_FLAGS = 3;
        public static final int MODULE_TYPEID = 4;
        public static final int LENGTH = 6;
        /** ICE_AQC_NVM_MAX_OFFSET: offsets are 24 bits. */
        public static final int MAX_OFFSET = 0xFF_FFFF;
        public static final int LAST_CMD = 1;
        /** ICE_AQC_NVM_FLASH_ONLY: read the flat flash; clear, module 0 reads the Shadow RAM. */
        public static final int FLASH_ONLY = 1 << 7;
        /** ICE_AQC_NVM_START_POINT. */
        public static final int START_POINT = 0;
        /** ICE_AQC_NVM_SECTOR_UNIT: an SR read may not cross a 4 KiB sector (ice_read_flat_nvm). */
        public static final int SECTOR_UNIT = 4096;

        private Nvm() {
        }
    }

    /** Shadow RAM word offsets and fields (ice_type.h ICE_SR_*, ICE_NVM_*, ICE_NETLIST_*). */
    public static final class ShadowRam {
        public static final int CTRL_WORD = 0x00;
        /** ICE_SR_CTRL_WORD_1_M: bits 7:6 must read 01b (ICE_SR_CTRL_WORD_VALID). */
        public static final int CTRL_WORD_1_S = 6;
        public static final int CTRL_WORD_VALID = 1;
        public static final int CTRL_WORD_OROM_BANK = 1 << 3;
        public static final int CTRL_WORD_NETLIST_BANK = 1 << 4;
        public static final int CTRL_WORD_NVM_BANK = 1 << 5;
        public static final int PBA_BLOCK_PTR = 0x16;
        public static final int DEV_STARTER_VER = 0x18;
        public static final int WOL_CFG = 0x19;
        public static final int EETRACK_LO = 0x2D;
        public static final int EETRACK_HI = 0x2E;
        public static final int PFA_PTR = 0x40;
        public static final int FIRST_NVM_BANK_PTR = 0x42;
        public static final int NVM_BANK_SIZE = 0x43;
        public static final int FIRST_OROM_BANK_PTR = 0x44;
        public static final int OROM_BANK_SIZE = 0x45;
        public static final int NETLIST_BANK_PTR = 0x46;
        public static final int NETLIST_BANK_SIZE = 0x47;
        /** ICE_SR_NVM_PTR_4KB_UNITS: a bank pointer counts 4 KiB units, else words. */
        public static final int PTR_4KB_UNITS = 1 << 15;
        public static final int WORDS_IN_1KB = 512;
        /** ICE_NVM_CSS_HDR_LEN_L/H: word offsets in the NVM bank of the CSS header length (dwords). */
        public static final int CSS_HDR_LEN_L = 0x02;
        public static final int CSS_HDR_LEN_H = 0x03;
        /** ICE_NVM_AUTH_HEADER_LEN words added to the CSS header. */
        public static final int AUTH_HEADER_LEN = 0x08;
        /** ICE_NETLIST_LINK_TOPO_MOD_ID: word 0 of the netlist bank. */
        public static final int NETLIST_LINK_TOPO_MOD_ID = 0x011B;
        public static final int NETLIST_ID_BLK_SIZE = 0x30;

        private ShadowRam() {
        }
    }

    /** struct ice_aqc_manage_mac_read (indirect 0x0107) and the 8-byte ice_aqc_manage_mac_read_resp. */
    public static final class ManageMacRead {
        public static final int FLAGS = 0;
        public static final int NUM_ADDR = 4;
        public static final int LAN_ADDR_VALID = 1 << 4;
        public static final int WOL_ADDR_VALID = 1 << 7;
        public static final int RESP_SIZE = 8;
        public static final int RESP_LPORT_NUM = 0;
        public static final int RESP_ADDR_TYPE = 1;
        public static final int RESP_MAC = 2;
        public static final int ADDR_TYPE_LAN = 0;
        public static final int ADDR_TYPE_WOL = 1;

        private ManageMacRead() {
        }
    }

    /** struct ice_aqc_manage_mac_write (direct 0x0108): flags, then the address in network order. */
    public static final class ManageMacWrite {
        public static final int FLAGS = 1;
        public static final int MAC = 2;
        /** ICE_AQC_MAN_MAC_WR_MC_MAG_EN: multicast magic packet wake. */
        public static final int WR_MC_MAG_EN = 1;
        /** ICE_AQC_MAN_MAC_WR_WOL_LAA_PFR_KEEP: the address survives a PF reset. */
        public static final int WR_WOL_LAA_PFR_KEEP = 1 << 1;
        /** ICE_AQC_MAN_MAC_WR_M: what to update, bits 7:6. */
        public static final int WR_S = 6;
        public static final int WR_M = 0x3 << WR_S;
        /** ICE_AQC_MAN_MAC_UPDATE_LAA and ICE_AQC_MAN_MAC_UPDATE_LAA_WOL. */
        public static final int UPDATE_LAA = 0;
        public static final int UPDATE_LAA_WOL = 1 << WR_S;

        private ManageMacWrite() {
        }
    }

    /** struct ice_aqc_set_mac_cfg (direct 0x0603). */
    public static final class SetMacCfg {
        public static final int MAX_FRAME_SIZE = 0;

        private SetMacCfg() {
        }
    }

    /** struct ice_aqc_alloc_free_res_cmd (indirect 0x0208 / 0x0209) and its buffer ice_aqc_alloc_free_res_elem. */
    public static final class AllocFreeRes {
        public static final int NUM_ENTRIES = 0;
        public static final int BUF_RES_TYPE = 0;
        public static final int BUF_NUM_ELEMS = 2;
        /** elem[i].e.sw_resp, u16 each from byte 4. */
        public static final int BUF_ELEM = 4;
        public static final int RES_TYPE_M = 0x7F;
        public static final int RES_TYPE_FLAG_SHARED = 1 << 7;
        public static final int RES_TYPE_FLAG_SCAN_BOTTOM = 1 << 12;
        public static final int RES_TYPE_FLAG_IGNORE_INDEX = 1 << 13;
        public static final int RES_TYPE_VSI_LIST_REP = 0x03;
        public static final int RES_TYPE_VSI_LIST_PRUNE = 0x04;
        public static final int RES_TYPE_RECIPE = 0x05;
        public static final int RES_TYPE_SWID = 0x07;
        public static final int RES_TYPE_FDIR_COUNTER_BLOCK = 0x21;
        /** Flow director filter entries: allocated as one block of num_elems, answered by its first id. */
        public static final int RES_TYPE_FDIR_GUARANTEED_ENTRIES = 0x22;
        public static final int RES_TYPE_FDIR_SHARED_ENTRIES = 0x23;

        private AllocFreeRes() {
        }
    }

    /** struct ice_aqc_get_phy_caps (indirect 0x0600) and ice_aqc_get_phy_caps_data (the reply buffer). */
    public static final class GetPhyCaps {
        public static final int LPORT_NUM = 0;
        public static final int PARAM0 = 2;
        public static final int RQM = 1;
        public static final int REPORT_MODE_M = 0x7 << 1;
        public static final int REPORT_TOPO_CAP_NO_MEDIA = 0;
        public static final int REPORT_TOPO_CAP_MEDIA = 1 << 1;
        public static final int REPORT_ACTIVE_CFG = 1 << 2;
        public static final int REPORT_DFLT_CFG = 1 << 3;
        /** sizeof(struct ice_aqc_get_phy_caps_data): 48 bytes + 16 qualified modules of 32. */
        public static final int DATA_SIZE = 48 + 16 * 32;
        public static final int DATA_PHY_TYPE_LOW = 0;
        public static final int DATA_PHY_TYPE_HIGH = 8;
        public static final int DATA_CAPS = 16;
        public static final int DATA_LOW_POWER_CTRL_AN = 17;
        public static final int DATA_EEE_CAP = 18;
        public static final int DATA_EEER_VALUE = 20;
        public static final int DATA_PHY_ID_OUI = 22;
        public static final int DATA_PHY_FW_VER = 26;
        public static final int DATA_LINK_FEC_OPTIONS = 34;
        public static final int DATA_MODULE_COMPLIANCE_ENFORCEMENT = 35;
        public static final int DATA_EXTENDED_COMPLIANCE_CODE = 36;
        public static final int DATA_MODULE_TYPE = 37;
        public static final int DATA_QUALIFIED_MODULE_COUNT = 40;
        public static final int CAPS_EN_TX_LINK_PAUSE = 1;
        public static final int CAPS_EN_RX_LINK_PAUSE = 1 << 1;
        public static final int CAPS_EN_LINK = 1 << 3;
        public static final int CAPS_AN_MODE = 1 << 4;
        public static final int CAPS_EN_AUTO_FEC = 1 << 7;
        public static final int AN_EN_CLAUSE73 = 1 << 2;
        public static final int FEC_25G_RS_CLAUSE91_EN = 1 << 6;
        public static final int MOD_TYPE_BYTE0_QSFP_PLUS = 0x80;
        public static final int MOD_TYPE_BYTE2_QSFP_PLUS = 0x86;
        /** ICE_PHY_TYPE_LOW_100GBASE_CR4 (bit 51). */
        public static final long PHY_TYPE_LOW_100GBASE_CR4 = 1L << 51;
        /** ICE_PHY_TYPE_LOW_25GBASE_CR (bit 20). */
        public static final long PHY_TYPE_LOW_25GBASE_CR = 1L << 20;

        private GetPhyCaps() {
        }
    }

    /** struct ice_aqc_set_phy_cfg (indirect 0x0601) and the start of ice_aqc_set_phy_cfg_data. */
    public static final class SetPhyCfg {
        public static final int LPORT_NUM = 0;
        public static final int DATA_SIZE = 24;
        public static final int DATA_PHY_TYPE_LOW = 0;
        public static final int DATA_PHY_TYPE_HIGH = 8;
        public static final int DATA_CAPS = 16;
        public static final int ENA_LINK = 1 << 3;

        private SetPhyCfg() {
        }
    }

    /** struct ice_aqc_restart_an (direct 0x0605). */
    public static final class RestartAn {
        public static final int LPORT_NUM = 0;
        public static final int CMD_FLAGS = 2;
        public static final int LINK_RESTART = 1 << 1;
        public static final int LINK_ENABLE = 1 << 2;

        private RestartAn() {
        }
    }

    /** struct ice_aqc_get_link_status (indirect 0x0607) and ice_aqc_get_link_status_data, also the ARQ event. */
    public static final class GetLinkStatus {
        public static final int LPORT_NUM = 0;
        public static final int CMD_FLAGS = 2;
        public static final int LSE_M = 0x3;
        public static final int LSE_NOP = 0x0;
        public static final int LSE_DIS = 0x2;
        public static final int LSE_ENA = 0x3;
        /** Reply only: link status events are enabled. */
        public static final int LSE_IS_ENABLED = 0x1;
        /** ICE_AQC_LS_DATA_SIZE_V1 (E810); V2 (E830) is 56. */
        public static final int DATA_SIZE_V1 = 32;
        public static final int DATA_SIZE_V2 = 56;
        public static final int DATA_TOPO_MEDIA_CONFLICT = 0;
        public static final int DATA_LINK_CFG_ERR = 1;
        public static final int DATA_LINK_INFO = 2;
        public static final int DATA_AN_INFO = 3;
        public static final int DATA_EXT_INFO = 4;
        public static final int DATA_MAX_FRAME_SIZE = 6;
        public static final int DATA_CFG = 8;
        public static final int DATA_POWER_DESC = 9;
        public static final int DATA_LINK_SPEED = 10;
        public static final int DATA_PHY_TYPE_LOW = 16;
        public static final int DATA_PHY_TYPE_HIGH = 24;
        public static final int LINK_UP = 1;
        public static final int LINK_UP_PORT = 1 << 5;
        public static final int MEDIA_AVAILABLE = 1 << 6;
        public static final int SIGNAL_DETECT = 1 << 7;
        public static final int AN_COMPLETED = 1;
        public static final int QUALIFIED_MODULE = 1 << 7;
        public static final int LINK_SPEED_25GB = 1 << 7;
        public static final int LINK_SPEED_100GB = 1 << 10;

        private GetLinkStatus() {
        }
    }

    /** struct ice_aqc_set_event_mask (direct 0x0613): a set bit masks (suppresses) that event. */
    public static final class SetEventMask {
        public static final int LPORT_NUM = 0;
        public static final int EVENT_MASK = 8;
        public static final int LINK_EVENT_UPDOWN = 1 << 1;
        public static final int LINK_EVENT_MEDIA_NA = 1 << 2;

        private SetEventMask() {
        }
    }

    /** struct ice_aqc_get_port_options (indirect 0x06EA) and its 8-byte elements. */
    public static final class GetPortOptions {
        public static final int LPORT_NUM = 0;
        public static final int LPORT_NUM_VALID = 1;
        public static final int PORT_OPTIONS_COUNT = 2;
        public static final int INNERMOST_PHY_INDEX = 3;
        public static final int PORT_OPTIONS = 4;
        public static final int PENDING_PORT_OPTION_STATUS = 5;
        public static final int OPT_VALID = 1 << 7;
        public static final int OPT_MAX = 16;
        public static final int ELEM_SIZE = 8;
        public static final int ELEM_PMD = 0;
        public static final int ELEM_MAX_LANE_SPEED = 1;
        public static final int MAX_LANE_25G = 5;
        public static final int MAX_LANE_100G = 7;

        private GetPortOptions() {
        }
    }

    /**
     * struct libie_aqc_fw_log (0xFF30 config, 0xFF31 register, 0xFF32 query; libie adminq.h, used by libie/fwlog.c):
     * the params; the buffer of 0xFF30 and of the 0xFF32 reply is {@link FwLogModules}.
     */
    public static final class FwLog {
        public static final int CMD_FLAGS = 0;
        public static final int RSP_FLAG = 1;
        public static final int LOG_RESOLUTION = 4;
        public static final int MDL_CNT = 6;
        /** cmd_flags of config and query: LIBIE_AQC_FW_LOG_CONF_UART_EN, _CONF_AQ_EN, _QUERY_REGISTERED. */
        public static final int CONF_UART_EN = 1;
        public static final int CONF_AQ_EN = 1 << 1;
        public static final int QUERY_REGISTERED = 1 << 2;
        /** cmd_flags of config: LIBIE_AQC_FW_LOG_CONF_SET_VALID. */
        public static final int CONF_SET_VALID = 1 << 3;
        /** cmd_flags of register (LIBIE_AQC_FW_LOG_AQ_REGISTER) and of query (LIBIE_AQC_FW_LOG_AQ_QUERY). */
        public static final int AQ_REGISTER = 1;
        public static final int AQ_QUERY = 1 << 2;
        /** LIBIE_AQC_FW_LOG_MIN_RESOLUTION / _MAX_RESOLUTION: log lines per ARQ event. */
        public static final int MIN_RESOLUTION = 1;
        public static final int MAX_RESOLUTION = 128;
        /** LIBIE_AQC_FW_LOG_ID_MAX: the firmware modules that log. */
        public static final int MODULES = 32;
        /** enum libie_fwlog_level: NONE 0 .. VERBOSE 4; 5 and above are invalid. */
        public static final int LEVEL_INVALID = 5;

        private FwLog() {
        }
    }

    /** struct ice_aqc_get_set_tx_topo (indirect 0x0418 get, 0x0417 set; ice_ddp.c ice_get_set_tx_topo). */
    public static final class TxTopo {
        public static final int SET_FLAGS = 0;
        public static final int GET_FLAGS = 1;
        /** set_flags: ICE_AQC_TX_TOPO_FLAGS_CORRER, _SRC_RAM, _LOAD_NEW (the 5-layer topology), _ISSUED. */
        public static final int FLAGS_CORER = 1;
        public static final int FLAGS_SRC_RAM = 1 << 1;
        public static final int FLAGS_LOAD_NEW = 1 << 4;
        public static final int FLAGS_ISSUED = 1 << 5;
        /** get_flags: ICE_AQC_TX_TOPO_GET_RAM, the topology in effect. */
        public static final int GET_RAM = 2;

        private TxTopo() {
        }
    }

    /** struct ice_aqc_set_query_pfc_mode (direct 0x0303 set, 0x0302 query; ice_dcb.c ice_aq_set_pfc_mode). */
    public static final class PfcMode {
        public static final int PFC_MODE = 0;
        /** ICE_AQC_PFC_VLAN_BASED_PFC, ICE_AQC_PFC_DSCP_BASED_PFC. */
        public static final int VLAN_BASED = 1;
        public static final int DSCP_BASED = 2;

        private PfcMode() {
        }
    }

    /** struct ice_aqc_lldp_set_local_mib (indirect 0x0A08; ice_common.c ice_aq_set_lldp_mib). */
    public static final class LldpSetLocalMib {
        public static final int TYPE = 0;
        public static final int LENGTH = 2;
        /** SET_LOCAL_MIB_TYPE_DCBX_M and SET_LOCAL_MIB_TYPE_CEE_M: the only type bits. */
        public static final int TYPE_M = 0x3;
        /** ICE_LLDPDU_SIZE: the largest MIB ice builds. */
        public static final int MAX_LENGTH = 1500;

        private LldpSetLocalMib() {
        }
    }

    /** struct ice_aqc_query_port_ets (indirect 0x040E; ice_dcb.c ice_aq_query_port_ets); the buffer is PortEts. */
    public static final class QueryPortEts {
        public static final int PORT_TEID = 0;

        private QueryPortEts() {
        }
    }

    /** struct ice_aqc_set_mac_lb (direct 0x0620; ice_common.c ice_aq_set_mac_loopback, ice_ethtool.c's loopback test). */
    public static final class SetMacLoopback {
        public static final int LB_MODE = 0;
        /** ICE_AQ_MAC_LB_EN and ICE_AQ_MAC_LB_OSC_CLK: the only lb_mode bits. */
        public static final int LB_EN = 1;
        public static final int LB_OSC_CLK = 1 << 1;

        private SetMacLoopback() {
        }
    }

    /** struct ice_aqc_set_port_id_led (direct 0x06E9; ice_common.c ice_aq_set_port_id_led, ethtool -p). */
    public static final class SetPortIdLed {
        public static final int LPORT_NUM = 0;
        public static final int LPORT_NUM_VALID = 1;
        public static final int IDENT_MODE = 2;
        /** ICE_AQC_PORT_IDENT_LED_BLINK; ICE_AQC_PORT_IDENT_LED_ORIG is 0. */
        public static final int IDENT_BLINK = 1;

        private SetPortIdLed() {
        }
    }

    /** struct ice_aqc_sff_eeprom (indirect 0x06EE; ice_common.c ice_aq_sff_eeprom, ethtool -m). */
    public static final class SffEeprom {
        public static final int LPORT_NUM = 0;
        public static final int LPORT_NUM_VALID = 1;
        public static final int I2C_BUS_ADDR = 2;
        public static final int I2C_MEM_ADDR = 4;
        public static final int EEPROM_PAGE = 6;
        /** ICE_AQC_SFF_I2CBUS_7BIT_M, ICE_AQC_SFF_I2CBUS_TYPE_M (10-bit addressing). */
        public static final int BUS_7BIT_M = 0x7F;
        public static final int BUS_TYPE_10BIT = 1 << 10;
        /** ICE_AQC_SFF_SET_EEPROM_PAGE_S/_M: 0 no page change, 1 set byte 127 (QSFP), 2 set byte 126. */
        public static final int SET_PAGE_S = 11;
        public static final int SET_PAGE_M = 0x3 << SET_PAGE_S;
        /** ICE_AQC_SFF_IS_WRITE. */
        public static final int IS_WRITE = 1 << 15;
        /** ICE_AQC_SFF_EEPROM_PAGE_S: the page is the high byte of eeprom_page. */
        public static final int PAGE_S = 8;
        /** ICE_I2C_EEPROM_DEV_ADDR 0xA0 and ICE_I2C_EEPROM_DEV_ADDR2 0xA2, as the 7-bit bus addresses ice sends. */
        public static final int BUS_A0 = 0xA0 >> 1;
        public static final int BUS_A2 = 0xA2 >> 1;

        private SffEeprom() {
        }
    }

    /** struct ice_aqc_nvm_checksum (direct 0x0706; ice_nvm.c ice_nvm_validate_checksum, ethtool -t's EEPROM test). */
    public static final class NvmChecksum {
        public static final int FLAGS = 0;
        public static final int CHECKSUM = 2;
        /** ICE_AQC_NVM_CHECKSUM_VERIFY and _RECALC. */
        public static final int VERIFY = 1;
        public static final int RECALC = 1 << 1;
        /** ICE_AQC_NVM_CHECKSUM_CORRECT: what a verify answers for a good Shadow RAM. */
        public static final int CORRECT = 0xBABA;

        private NvmChecksum() {
        }
    }
}
