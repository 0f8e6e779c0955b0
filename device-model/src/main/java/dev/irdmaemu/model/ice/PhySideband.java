package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.SidebandMessage;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The E810 PHY's register space as ice reaches it without a sideband queue: neighbour device requests (0x0C00) on
 * the admin queue (ice_controlq.c ice_get_sbq, ice_common.c ice_sbq_rw_reg; struct ice_sbq_msg_req in
 * ice_sbq_cmd.h), which ice_ptp_hw.c uses for the PHY's copy of the 1588 timer (ETH_GLTSYN_ENA, _SHTIME, _SHADJ,
 * E810_ETH_GLTSYN_CMD) and the Tx timestamp memory. The model's PHY keeps what is written and answers reads with it
 * (0 where nothing was written: no Tx timestamp is ever ready); its timer follows the source timer
 * ({@link PtpTimer}), so nothing here needs to count.
 *
 * <p>Refused with EINVAL: no buffer, a cmd_len other than the buffer's length or than a read's 12 or a write's 16
 * bytes, a destination other than phy_0, an unknown message opcode, an unaligned address. A full register store
 * answers ENOSPC. The PHY's registers are port state and survive a PF reset.
 */
final class PhySideband {
    private static final int CAPACITY = 1024;
    private final SparseRegisters phy = new SparseRegisters(CAPACITY);
    private final SidebandMessage msg = new SidebandMessage();

    void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.NEIGHBOUR_DEVICE_REQUEST, this::request);
    }

    private int request(AqDescriptor d, Bytes<?> b) {
        long len = CommandBuffer.length(d, b);
        int cmdLen = d.paramU16(SidebandMessage.PARAM_CMD_LEN);
        msg.wrap(b, CommandBuffer.start(b), len);
        if (b == null || cmdLen != len || len < SidebandMessage.READ_SIZE
                || msg.destDev() != SidebandMessage.DEV_PHY_0 || (msg.address() & 3) != 0
                || msg.address() > 0xFFFF_FFFFL) {
            return AqError.EINVAL;
        }
        int op = msg.opcode();
        if (op == SidebandMessage.OP_READ && len == SidebandMessage.READ_SIZE) {
            msg.completeRead(phy.read(msg.address()) & 0xFFFF_FFFFL);
            return AqError.OK;
        }
        if ((op == SidebandMessage.OP_WRITE || op == SidebandMessage.OP_WRITE_NP)
                && len == SidebandMessage.WRITE_SIZE) {
            return phy.write(msg.address(), (int) msg.data()) ? AqError.OK : AqError.ENOSPC;
        }
        return AqError.EINVAL;
    }

    /** The PHY register at {@code address} (0 when never written). */
    int register(long address) {
        return phy.read(address);
    }
}
