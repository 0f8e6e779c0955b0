package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.LldpSetLocalMib;
import dev.irdmaemu.fw.aq.AqLayout.PfcMode;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.reg.IceRegister;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The firmware's LLDP/DCBX agent as a card shows it whose agent was switched off (`ethtool --set-priv-flags DEV
 * fw-lldp-agent off`, kept in NVM; the state of the public E810 boots in the project's research notes, R1/R2): DCBX
 * status DIS in PRTDCB_GENS ({@link #dcbxStatus()}), so ice_dcb.c ice_init_dcb returns -EBUSY and ice_dcb_lib.c
 * ice_init_pf_dcb runs DCB in software: it sets VLAN-based PFC (set_pfc_mode 0x0303, which the firmware must echo,
 * else "Failed to set VLAN PFC mode"), commits its default configuration as the local MIB (lldp_set_local_mib
 * 0x0A08, TLVs as ice_dcb_cfg_to_lldp builds them) and reads the port's TC nodes back ({@link PortEtsQuery}).
 * query_pfc_mode (0x0302) answers the mode set.
 *
 * <p>With the agent off the firmware sends and consumes no LLDPDU, so nothing here touches the port; the local MIB
 * is kept for inspection. The agent's state and the PFC mode are port state: a PF reset keeps them, ice sets them
 * again when it rebuilds.
 */
final class LldpAgent {
    /** An LLDP TLV header: type in bits 15:9, length in bits 8:0, big-endian (IEEE 802.1AB). */
    private static final int TLV_LEN_M = 0x1FF;

    private final byte[] localMib = new byte[LldpSetLocalMib.MAX_LENGTH];
    private int localMibLength;
    private int pfcMode = PfcMode.VLAN_BASED;

    void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.SET_PFC_MODE, this::setPfcMode);
        r.accept(AqOpcode.QUERY_PFC_MODE, this::queryPfcMode);
        r.accept(AqOpcode.LLDP_SET_LOCAL_MIB, this::setLocalMib);
    }

    /** PRTDCB_GENS: the DCBX status field, DIS (the agent is off). */
    int dcbxStatus() {
        return IceRegister.DCBX_STATUS_DIS;
    }

    /** 0x0303: VLAN- or DSCP-based, echoed back; anything else is refused. */
    private int setPfcMode(AqDescriptor d, Bytes<?> b) {
        int mode = d.paramU8(PfcMode.PFC_MODE);
        if (b != null || mode != PfcMode.VLAN_BASED && mode != PfcMode.DSCP_BASED) {
            return AqError.EINVAL;
        }
        pfcMode = mode;
        d.paramU8(PfcMode.PFC_MODE, mode);
        return AqError.OK;
    }

    private int queryPfcMode(AqDescriptor d, Bytes<?> b) {
        if (b != null) {
            return AqError.EINVAL;
        }
        d.paramU8(PfcMode.PFC_MODE, pfcMode);
        return AqError.OK;
    }

    /** 0x0A08: length equal to the buffer's, at most an LLDPDU, known type bits, TLVs that stay inside it. */
    private int setLocalMib(AqDescriptor d, Bytes<?> b) {
        int type = d.paramU8(LldpSetLocalMib.TYPE);
        int length = d.paramU16(LldpSetLocalMib.LENGTH);
        long len = CommandBuffer.length(d, b);
        if (b == null || (type & ~LldpSetLocalMib.TYPE_M) != 0 || length == 0 || length != len
                || length > LldpSetLocalMib.MAX_LENGTH || !tlvsFit(b, CommandBuffer.start(b), length)) {
            return AqError.EINVAL;
        }
        long at = CommandBuffer.start(b);
        for (int i = 0; i < length; i++) {
            localMib[i] = b.readByte(at + i);
        }
        localMibLength = length;
        return AqError.OK;
    }

    private static boolean tlvsFit(Bytes<?> b, long start, int length) {
        int at = 0;
        while (at + 2 <= length) {
            int typelen = (b.readUnsignedByte(start + at) << 8) | b.readUnsignedByte(start + at + 1);
            if (typelen == 0) {
                return true;
            }
            at += 2 + (typelen & TLV_LEN_M);
        }
        return at == length;
    }

    int pfcMode() {
        return pfcMode;
    }

    /** A copy of the local MIB last set (empty before ice set one). */
    byte[] localMib() {
        return java.util.Arrays.copyOf(localMib, localMibLength);
    }
}
