package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.GetLinkStatus;
import dev.irdmaemu.fw.aq.AqLayout.GetPhyCaps;
import dev.irdmaemu.fw.aq.AqLayout.GetPortOptions;
import dev.irdmaemu.fw.aq.AqLayout.ManageMacRead;
import dev.irdmaemu.fw.aq.AqLayout.ManageMacWrite;
import dev.irdmaemu.fw.aq.AqLayout.RestartAn;
import dev.irdmaemu.fw.aq.AqLayout.SetEventMask;
import dev.irdmaemu.fw.aq.AqLayout.SetMacCfg;
import dev.irdmaemu.fw.aq.AqLayout.SetPhyCfg;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The port as the firmware reports it: a single 100GBASE-CR4 QSFP28 port (the E810-C, device 0x1592) with its
 * permanent MAC, PHY capabilities and configuration, the link state and link status events. Commands (structs of
 * ice_adminq_cmd.h): manage_mac_read 0x0107, manage_mac_write 0x0108, set_mac_cfg 0x0603, get_phy_caps 0x0600, set_phy_cfg 0x0601,
 * restart_an 0x0605, get_link_status 0x0607 (ice_aq_get_link_info; LSE enable/disable in cmd_flags, the reply's
 * LSE_IS_ENABLED), set_event_mask 0x0613 and get_port_options 0x06EA (ice_get_phy_lane_number).
 *
 * <p>The link is up when the carrier is ({@link #setLink}) and the PHY is enabled (set_phy_cfg ICE_AQ_PHY_ENA_LINK).
 * A change posts a get_link_status event on the ARQ carrying the 32-byte link data (ice_handle_link_event reads
 * link_info and link_speed from it) when ice enabled LSE and did not mask ICE_AQ_LINK_EVENT_UPDOWN.
 *
 * <p>manage_mac_write (ice_main.c ice_set_mac_address after {@code ip link set DEV address}, with UPDATE_LAA_WOL;
 * ice_setup_mc_magic_wake on unload with MC_MAG_EN and WOL_LAA_PFR_KEEP too) sets a locally administered address
 * that manage_mac_read then reports as the LAN address. A PF reset forgets it unless it was written with
 * WOL_LAA_PFR_KEEP; any other reset and power-on do. A direct command with a buffer, reserved flag bits, an update
 * type other than LAA or LAA+WoL, or a multicast or all-zero address is answered EINVAL.
 */
public final class PortLink {
    public static final long PHY_TYPE_LOW = GetPhyCaps.PHY_TYPE_LOW_100GBASE_CR4;
    public static final int LINK_SPEED = GetLinkStatus.LINK_SPEED_100GB;
    public static final int DEFAULT_MAX_FRAME = Capabilities.MAX_MTU;

    private final int pfId;
    private final long mac;
    /** The locally administered address manage_mac_write set, valid while {@code laaSet}. */
    private long laa;
    private boolean laaSet;
    private boolean laaKeptOverPfr;
    private long macWrites;
    private final AdminQueue arq;
    private final BytesStore<?, Void> eventData = BytesStore.nativeStoreWithFixedCapacity(GetLinkStatus.DATA_SIZE_V1);
    private final BytesStore<?, Void> eventParams = BytesStore.nativeStoreWithFixedCapacity(AqDescriptor.PARAMS_SIZE);
    private boolean carrier = true;
    private boolean phyEnabled;
    private boolean reportedUp;
    private boolean lse;
    private int eventMask;
    private int maxFrame;
    private long phyTypeLow;
    private int phyCaps;
    private long linkEvents;

    public PortLink(int pfId, long permanentMac, AdminQueue arq) {
        this.pfId = pfId;
        this.mac = permanentMac & 0xFFFF_FFFF_FFFFL;
        this.arq = arq;
        powerOn();
    }

    public void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.MANAGE_MAC_READ, this::manageMacRead);
        r.accept(AqOpcode.MANAGE_MAC_WRITE, this::manageMacWrite);
        r.accept(AqOpcode.SET_MAC_CFG, this::setMacCfg);
        r.accept(AqOpcode.GET_PHY_CAPS, this::getPhyCaps);
        r.accept(AqOpcode.SET_PHY_CFG, this::setPhyCfg);
        r.accept(AqOpcode.RESTART_AN, this::restartAn);
        r.accept(AqOpcode.GET_LINK_STATUS, this::getLinkStatus);
        r.accept(AqOpcode.SET_EVENT_MASK, this::setEventMask);
        r.accept(AqOpcode.GET_PORT_OPTIONS, this::getPortOptions);
    }

    void powerOn() {
        carrier = true;
        laaSet = false;
        pfReset();
    }

    /** A core reset: the port's link stays, the LAA goes (only a PF reset can keep it). */
    void coreReset() {
        laaSet = false;
        pfReset();
    }

    /** A PF reset: events off, the PHY back to its default (enabled, 100G), frame size default. */
    void pfReset() {
        if (!laaKeptOverPfr) {
            laaSet = false;
        }
        laaKeptOverPfr = false;
        phyEnabled = true;
        lse = false;
        eventMask = 0;
        maxFrame = DEFAULT_MAX_FRAME;
        phyTypeLow = PHY_TYPE_LOW;
        phyCaps = GetPhyCaps.CAPS_EN_LINK | GetPhyCaps.CAPS_EN_AUTO_FEC;
        reportedUp = linkUp();
    }

    public boolean linkUp() {
        return carrier && phyEnabled;
    }

    /** Carrier on or off (the cable); a change of the link posts an event. */
    public void setLink(boolean up) {
        carrier = up;
        linkChanged();
    }

    private void linkChanged() {
        boolean up = linkUp();
        if (up == reportedUp) {
            return;
        }
        reportedUp = up;
        if (!lse || (eventMask & SetEventMask.LINK_EVENT_UPDOWN) != 0) {
            return;
        }
        eventData.zeroOut(0, GetLinkStatus.DATA_SIZE_V1);
        linkData(eventData, 0);
        eventParams.zeroOut(0, AqDescriptor.PARAMS_SIZE);
        eventParams.writeByte(GetLinkStatus.LPORT_NUM, (byte) 0);
        eventParams.writeShort(GetLinkStatus.CMD_FLAGS, (short) GetLinkStatus.LSE_IS_ENABLED);
        linkEvents++;
        arq.postEvent(AqOpcode.GET_LINK_STATUS, eventParams, eventData, 0, GetLinkStatus.DATA_SIZE_V1);
    }

    private int manageMacRead(AqDescriptor d, Bytes<?> b) {
        if (b == null || b.readRemaining() < ManageMacRead.RESP_SIZE) {
            return AqError.EINVAL;
        }
        b.zeroOut(0, ManageMacRead.RESP_SIZE);
        b.writeByte(ManageMacRead.RESP_LPORT_NUM, (byte) 0);
        b.writeByte(ManageMacRead.RESP_ADDR_TYPE, (byte) ManageMacRead.ADDR_TYPE_LAN);
        long lan = lanMac();
        for (int i = 0; i < 6; i++) {
            b.writeByte(ManageMacRead.RESP_MAC + i, (byte) (lan >>> 8 * (5 - i)));
        }
        d.paramU16(ManageMacRead.FLAGS, ManageMacRead.LAN_ADDR_VALID).paramU8(ManageMacRead.NUM_ADDR, 1)
                .datalen(ManageMacRead.RESP_SIZE);
        return AqError.OK;
    }

    private int manageMacWrite(AqDescriptor d, Bytes<?> b) {
        int flags = d.paramU8(ManageMacWrite.FLAGS);
        int update = flags & ManageMacWrite.WR_M;
        int known = ManageMacWrite.WR_MC_MAG_EN | ManageMacWrite.WR_WOL_LAA_PFR_KEEP | ManageMacWrite.WR_M;
        if (b != null || (flags & ~known) != 0
                || update != ManageMacWrite.UPDATE_LAA && update != ManageMacWrite.UPDATE_LAA_WOL) {
            return AqError.EINVAL;
        }
        long a = 0;
        for (int i = 0; i < 6; i++) {
            a = a << 8 | d.paramU8(ManageMacWrite.MAC + i);
        }
        if (a == 0 || (a & 1L << 40) != 0) {
            return AqError.EINVAL;
        }
        laa = a;
        laaSet = true;
        laaKeptOverPfr = (flags & ManageMacWrite.WR_WOL_LAA_PFR_KEEP) != 0;
        macWrites++;
        return AqError.OK;
    }

    private int setMacCfg(AqDescriptor d, Bytes<?> b) {
        int frame = d.paramU16(SetMacCfg.MAX_FRAME_SIZE);
        if (b != null || frame < 64 || frame > DEFAULT_MAX_FRAME) {
            return AqError.EINVAL;
        }
        maxFrame = frame;
        return AqError.OK;
    }

    private int getPhyCaps(AqDescriptor d, Bytes<?> b) {
        int mode = d.paramU16(GetPhyCaps.PARAM0) & GetPhyCaps.REPORT_MODE_M;
        if (b == null || b.readRemaining() < 48 || mode == GetPhyCaps.REPORT_MODE_M) {
            return AqError.EINVAL;
        }
        int n = (int) Math.min(b.readRemaining(), GetPhyCaps.DATA_SIZE);
        b.zeroOut(0, n);
        boolean active = mode == GetPhyCaps.REPORT_ACTIVE_CFG;
        b.writeLong(GetPhyCaps.DATA_PHY_TYPE_LOW, active ? phyTypeLow : PHY_TYPE_LOW);
        b.writeLong(GetPhyCaps.DATA_PHY_TYPE_HIGH, 0L);
        int caps = active ? phyCaps : GetPhyCaps.CAPS_EN_TX_LINK_PAUSE | GetPhyCaps.CAPS_EN_RX_LINK_PAUSE
                | GetPhyCaps.CAPS_AN_MODE | GetPhyCaps.CAPS_EN_AUTO_FEC;
        b.writeByte(GetPhyCaps.DATA_CAPS, (byte) caps);
        b.writeByte(GetPhyCaps.DATA_LOW_POWER_CTRL_AN, (byte) GetPhyCaps.AN_EN_CLAUSE73);
        b.writeByte(GetPhyCaps.DATA_LINK_FEC_OPTIONS, (byte) GetPhyCaps.FEC_25G_RS_CLAUSE91_EN);
        b.writeByte(GetPhyCaps.DATA_MODULE_TYPE, (byte) GetPhyCaps.MOD_TYPE_BYTE0_QSFP_PLUS);
        b.writeByte(GetPhyCaps.DATA_MODULE_TYPE + 2, (byte) GetPhyCaps.MOD_TYPE_BYTE2_QSFP_PLUS);
        d.datalen(n);
        return AqError.OK;
    }

    private int setPhyCfg(AqDescriptor d, Bytes<?> b) {
        if (b == null || b.readRemaining() < SetPhyCfg.DATA_SIZE) {
            return AqError.EINVAL;
        }
        long low = b.readLong(SetPhyCfg.DATA_PHY_TYPE_LOW);
        long high = b.readLong(SetPhyCfg.DATA_PHY_TYPE_HIGH);
        if ((low & ~PHY_TYPE_LOW) != 0 || high != 0) {
            // a PHY type this port cannot run
            return AqError.EINVAL;
        }
        phyTypeLow = low == 0 ? PHY_TYPE_LOW : low;
        phyCaps = b.readUnsignedByte(SetPhyCfg.DATA_CAPS);
        phyEnabled = (phyCaps & SetPhyCfg.ENA_LINK) != 0;
        linkChanged();
        return AqError.OK;
    }

    private int restartAn(AqDescriptor d, Bytes<?> b) {
        if (b != null) {
            return AqError.EINVAL;
        }
        int flags = d.paramU8(RestartAn.CMD_FLAGS);
        if ((flags & RestartAn.LINK_RESTART) != 0) {
            phyEnabled = (flags & RestartAn.LINK_ENABLE) != 0;
            linkChanged();
        }
        return AqError.OK;
    }

    private int getLinkStatus(AqDescriptor d, Bytes<?> b) {
        int cmd = d.paramU16(GetLinkStatus.CMD_FLAGS) & GetLinkStatus.LSE_M;
        if (cmd == GetLinkStatus.LSE_ENA) {
            lse = true;
        } else if (cmd == GetLinkStatus.LSE_DIS) {
            lse = false;
        } else if (cmd != GetLinkStatus.LSE_NOP) {
            return AqError.EINVAL;
        }
        d.paramU16(GetLinkStatus.CMD_FLAGS, lse ? GetLinkStatus.LSE_IS_ENABLED : 0);
        if (b == null) {
            return AqError.OK;
        }
        int n = (int) Math.min(b.readRemaining(), GetLinkStatus.DATA_SIZE_V2);
        b.zeroOut(0, n);
        if (n < GetLinkStatus.DATA_SIZE_V1) {
            return AqError.EINVAL;
        }
        linkData(b, 0);
        reportedUp = linkUp();
        d.datalen(n);
        return AqError.OK;
    }

    /** struct ice_aqc_get_link_status_data, V1 part, at {@code at}. */
    private void linkData(BytesStore<?, ?> s, long at) {
        boolean up = linkUp();
        int info = GetLinkStatus.MEDIA_AVAILABLE | (up ? GetLinkStatus.LINK_UP | GetLinkStatus.LINK_UP_PORT
                | GetLinkStatus.SIGNAL_DETECT : 0);
        s.writeByte(at + GetLinkStatus.DATA_LINK_INFO, (byte) info);
        s.writeByte(at + GetLinkStatus.DATA_AN_INFO, (byte) (GetLinkStatus.QUALIFIED_MODULE
                | (up ? GetLinkStatus.AN_COMPLETED : 0)));
        s.writeShort(at + GetLinkStatus.DATA_MAX_FRAME_SIZE, (short) maxFrame);
        s.writeShort(at + GetLinkStatus.DATA_LINK_SPEED, (short) LINK_SPEED);
        s.writeLong(at + GetLinkStatus.DATA_PHY_TYPE_LOW, phyTypeLow);
        s.writeLong(at + GetLinkStatus.DATA_PHY_TYPE_HIGH, 0L);
    }

    private int setEventMask(AqDescriptor d, Bytes<?> b) {
        if (b != null) {
            return AqError.EINVAL;
        }
        eventMask = d.paramU16(SetEventMask.EVENT_MASK);
        return AqError.OK;
    }

    /** One option per lane: lanes 0..pfId are occupied at 100G (one PF per lane), the others report none active. */
    private int getPortOptions(AqDescriptor d, Bytes<?> b) {
        if (b == null || b.readRemaining() < GetPortOptions.ELEM_SIZE) {
            return AqError.EINVAL;
        }
        int lport = d.paramU8(GetPortOptions.LPORT_NUM_VALID) != 0 ? d.paramU8(GetPortOptions.LPORT_NUM) : pfId;
        b.zeroOut(0, GetPortOptions.ELEM_SIZE);
        b.writeByte(GetPortOptions.ELEM_PMD, (byte) 1);
        b.writeByte(GetPortOptions.ELEM_MAX_LANE_SPEED, (byte) GetPortOptions.MAX_LANE_100G);
        d.paramU8(GetPortOptions.PORT_OPTIONS_COUNT, 1)
                .paramU8(GetPortOptions.PORT_OPTIONS, lport <= pfId ? GetPortOptions.OPT_VALID : 0)
                .paramU8(GetPortOptions.PENDING_PORT_OPTION_STATUS, 0)
                .datalen(GetPortOptions.ELEM_SIZE);
        return AqError.OK;
    }

    public boolean linkEventsEnabled() {
        return lse;
    }

    public int maxFrame() {
        return maxFrame;
    }

    public long linkEvents() {
        return linkEvents;
    }

    public long permanentMac() {
        return mac;
    }

    /** The port's LAN address as manage_mac_read reports it: the LAA when one was written, else the permanent MAC. */
    public long lanMac() {
        return laaSet ? laa : mac;
    }

    /** manage_mac_write commands accepted. */
    public long macWrites() {
        return macWrites;
    }
}
