package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.QueryPortEts;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.PortEts;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * query_port_ets (0x040E, ice_adminq_cmd.h struct ice_aqc_query_port_ets / ice_aqc_port_ets_elem) answered from
 * the {@link TxScheduler} tree: one valid TC, every user priority on it with all the bandwidth, and the TEID of the
 * TC node the default tree holds under the port's root, the other seven TCs invalid. ice_dcb.c ice_query_port_ets
 * sends it after each DCB commit and matches the list against its own copy of the tree (ice_update_port_tc_tree_cfg):
 * a TEID it does not know it would query and add, a TC node the list leaves out it would stop using, so the list
 * names exactly the nodes the firmware has.
 */
final class PortEtsQuery {
    private final TxScheduler scheduler;
    private final PortEts ets = new PortEts();

    PortEtsQuery(TxScheduler scheduler) {
        this.scheduler = scheduler;
    }

    void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.QUERY_PORT_ETS, this::query);
    }

    /** The port TEID in the params must be the root's; the buffer must hold one element. */
    private int query(AqDescriptor d, Bytes<?> b) {
        long len = CommandBuffer.length(d, b);
        ets.wrap(b, CommandBuffer.start(b), len);
        TxScheduler.Node root = scheduler.root();
        if (b == null || !ets.complete()) {
            return AqError.EINVAL;
        }
        if (d.paramU32(QueryPortEts.PORT_TEID) != root.teid()) {
            return AqError.ENOENT;
        }
        int tcs = Math.min(root.children.size(), PortEts.MAX_TCS);
        ets.clear((1 << tcs) - 1);
        for (int tc = 0; tc < tcs; tc++) {
            ets.tc(tc, tc == 0 ? 100 : 0, root.children.get(tc).teid());
        }
        d.datalen(PortEts.SIZE);
        return AqError.OK;
    }
}
