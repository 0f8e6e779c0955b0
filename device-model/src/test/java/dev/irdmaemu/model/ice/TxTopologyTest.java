package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.TxTopo;
import dev.irdmaemu.fw.aq.AqOpcode;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

/**
 * get_tx_topo as ice_ddp.c ice_cfg_tx_topo sends it (4 KiB, RD, get_flags GET_RAM): neither LOAD_NEW nor ISSUED,
 * with query_sched_res reporting 9 logical levels, is ice's "default topology already applied" (-EEXIST, silent);
 * a lying driver gets EINVAL.
 */
class TxTopologyTest {
    private final AqBench bench = new AqBench();

    @Test
    void theDefaultNineLayerTopologyIsReportedAsApplied() {
        assertEquals(AqError.OK, bench.send(AqOpcode.GET_TX_TOPO, d -> d.paramU8(TxTopo.SET_FLAGS, 0xFF)
                .paramU8(TxTopo.GET_FLAGS, TxTopo.GET_RAM), AqBench.buffer(4096)));
        int flags = bench.desc.paramU8(TxTopo.SET_FLAGS);
        assertEquals(0, flags & (TxTopo.FLAGS_LOAD_NEW | TxTopo.FLAGS_ISSUED | TxTopo.FLAGS_CORER));
        Bytes<?> res = AqBench.buffer(dev.irdmaemu.fw.aq.SchedResources.SIZE);
        assertEquals(AqError.OK, bench.send(AqOpcode.QUERY_SCHED_RES, res));
        assertEquals(9, new dev.irdmaemu.fw.aq.SchedResources().wrap(res, 0, res.writeLimit()).logicalLevels(),
                "ICE_SCHED_9_LAYERS: with no LOAD_NEW, ice_cfg_tx_topo returns -EEXIST");
    }

    @Test
    void noBufferIsRefused() {
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.GET_TX_TOPO, d -> d.paramU8(TxTopo.GET_FLAGS,
                TxTopo.GET_RAM), null));
    }

    @Test
    void getFlagsOtherThanRamAreRefused() {
        for (int f : new int[] {0, 1, 3, 0xFF}) {
            assertEquals(AqError.EINVAL, bench.send(AqOpcode.GET_TX_TOPO, d -> d.paramU8(TxTopo.GET_FLAGS, f),
                    AqBench.buffer(4096)), "get_flags " + f);
        }
    }

    @Test
    void setTxTopoIsNotServed() {
        assertEquals(null, bench.handlers.get(AqOpcode.SET_TX_TOPO), "a topology switch needs a CORER");
    }
}
