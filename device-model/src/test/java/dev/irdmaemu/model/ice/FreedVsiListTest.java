package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.AllocFreeRes;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.SwitchRule;
import dev.irdmaemu.fw.aq.VsiCommand;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

/**
 * A VSI list ice stops using, as Linux 7.3 ends it: ice_switch.c ice_rem_update_vsi_list takes the last VSI but one
 * out of the list (update_sw_rules), points the rule back at the VSI, and ice_remove_vsi_list_rule sends only
 * free_res for the list's id (the VSI_LIST_CLEAR rule it builds is never sent). The firmware drops the list with its
 * id, so the id ice allocates next can be set again: {@code ethtool -t DEV offline}'s loopback VSI shares the
 * broadcast rule through a VSI list, and ice_open's VLAN 0 prune list afterwards gets the same id.
 */
class FreedVsiListTest {
    private final AqBench bench = new AqBench();
    private final ResourcePool pool = new ResourcePool();
    private final int vsi;

    FreedVsiListTest() {
        pool.registerWith(bench.handlers::put);
        pool.onFree(bench.fw.switchRules()::resourceFreed);
        assertEquals(AqError.OK, bench.send(AqOpcode.ADD_VSI, AqBench.buffer(VsiCommand.PROPS_SIZE)));
        vsi = bench.desc.paramU16(VsiCommand.RESP_VSI_NUM);
    }

    private int allocOrFree(int opcode, int type, int id) {
        Bytes<?> b = AqBench.buffer(AllocFreeRes.BUF_ELEM + 2);
        b.writeShort(AllocFreeRes.BUF_RES_TYPE, (short) type);
        b.writeShort(AllocFreeRes.BUF_NUM_ELEMS, (short) 1);
        b.writeShort(AllocFreeRes.BUF_ELEM, (short) id);
        b.writePosition(AllocFreeRes.BUF_ELEM + 2); // the engine's copy: readable to datalen
        assertEquals(AqError.OK, bench.send(opcode, d -> d.paramU16(AllocFreeRes.NUM_ENTRIES, 1), b));
        return b.readUnsignedShort(AllocFreeRes.BUF_ELEM);
    }

    private int setList(int type, int index) {
        Bytes<?> b = AqBench.buffer(10);
        b.writeShort(0, (short) type);
        b.writeShort(4, (short) index);
        b.writeShort(6, (short) 1);
        b.writeShort(8, (short) vsi);
        return bench.send(AqOpcode.ADD_SW_RULES, d -> d.paramU16(0, 1), b);
    }

    @Test
    void aFreedVsiListsIdCanBeSetAgain() {
        int id = allocOrFree(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_VSI_LIST_REP, 0);
        assertEquals(AqError.OK, setList(SwitchRule.T_VSI_LIST_SET, id));
        assertNotNull(bench.fw.switchRules().vsiList(id));
        allocOrFree(AqOpcode.FREE_RES, AllocFreeRes.RES_TYPE_VSI_LIST_REP, id);
        assertNull(bench.fw.switchRules().vsiList(id), "the list went with its id");
        assertEquals(id, allocOrFree(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_VSI_LIST_REP, 0));
        assertEquals(AqError.OK, setList(SwitchRule.T_VSI_LIST_SET, id));
    }

    @Test
    void aFreedPruneListsIdCanBeSetAgainAndOtherResourcesLeaveTheListsAlone() {
        int id = allocOrFree(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_VSI_LIST_PRUNE, 0);
        assertEquals(AqError.OK, setList(SwitchRule.T_PRUNE_LIST_SET, id));
        assertEquals(AqError.EEXIST, setList(SwitchRule.T_PRUNE_LIST_SET, id), "still in use");
        int list = allocOrFree(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_VSI_LIST_REP, 0);
        assertEquals(AqError.OK, setList(SwitchRule.T_VSI_LIST_SET, list));
        int recipe = allocOrFree(AqOpcode.ALLOC_RES, AllocFreeRes.RES_TYPE_RECIPE, 0);
        allocOrFree(AqOpcode.FREE_RES, AllocFreeRes.RES_TYPE_RECIPE, recipe);
        assertNotNull(bench.fw.switchRules().vsiList(list), "a recipe id is no list");
        allocOrFree(AqOpcode.FREE_RES, AllocFreeRes.RES_TYPE_VSI_LIST_PRUNE, id);
        assertEquals(AqError.OK, setList(SwitchRule.T_PRUNE_LIST_SET, id));
        assertNotNull(bench.fw.switchRules().vsiList(list), "the VSI list of the other type stays");
    }
}
