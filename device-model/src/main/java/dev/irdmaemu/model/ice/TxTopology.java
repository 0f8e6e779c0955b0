package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.TxTopo;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The Tx scheduler topology the firmware runs, as get_tx_topo (0x0418, ice_adminq_cmd.h struct
 * ice_aqc_get_set_tx_topo) reports it to ice_ddp.c ice_cfg_tx_topo: the default 9-layer tree of {@link TxScheduler}
 * (the documented default of devlink's tx_scheduling_layers), so the reply's set_flags has neither LOAD_NEW (the
 * 5-layer topology) nor ISSUED (another PF asked for a change). With the function capability
 * TX_SCHED_TOPO_COMP_MODE listed ({@link Capabilities}) ice then sees that the default topology is already applied
 * and goes on silently (-EEXIST), as on a card whose NVM has the capability, instead of logging "Failed to apply Tx
 * scheduling configuration".
 *
 * <p>set_tx_topo (0x0417) is not served: ice sends it only to switch topologies, which ends in a core reset the
 * model does not perform; a driver that sends it anyway gets the engine's answer for an unknown command.
 */
final class TxTopology {
    void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.GET_TX_TOPO, this::get);
    }

    /** ice sends a 4 KiB buffer with RD and get_flags GET_RAM; only the returned set_flags matter to it. */
    private int get(AqDescriptor d, Bytes<?> b) {
        if (b == null || d.paramU8(TxTopo.GET_FLAGS) != TxTopo.GET_RAM) {
            return AqError.EINVAL;
        }
        // the default topology: TxScheduler's 9 layers, which query_sched_res reports as logical_levels
        d.paramU8(TxTopo.SET_FLAGS, 0);
        return AqError.OK;
    }
}
