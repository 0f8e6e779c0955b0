package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.SwitchConfigElement;
import dev.irdmaemu.fw.aq.SwitchRule;
import dev.irdmaemu.fw.aq.VlanModeParameters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The embedded switch as ice_switch.c and ice_vlan_mode.c see it: the switch configuration (get_sw_cfg 0x0200), the
 * port parameters (set_port_params 0x0203), the VLAN mode (set/get 0x020C/0x020D) and the switch rules
 * (add/update/remove 0x02A0/0x02A1/0x02A2).
 *
 * <p>get_sw_cfg answers one PHYS_PORT element (the PF's lport and switch id) and no continuation (element 0 in the
 * reply: ice_get_initial_sw_cfg loops while it is non-zero). The VLAN mode starts single (SVM): get answers
 * vlan_mode 0, so ice_cache_vlan_mode keeps dvm_ena false; set accepts what ice_aq_set_vlan_mode itself allows.
 *
 * <p>Rules: a lookup rule (LKUP_RX/LKUP_TX) gets its index from the firmware, the next free slot of the lookup
 * table; VSI lists, prune lists and large actions carry the index the driver allocated with alloc_res, which the
 * model keeps. A lookup rule that forwards to a single VSI must name a VSI that exists. Update and remove name
 * rules by index; an unknown index is ENOENT. Every command applies whole or not at all.
 */
public final class SwitchRules {
    /** Where refused commands are reported: the function's, shared by its command handlers (AqRefusals). */
    private AqRefusals refusals = new AqRefusals();

    /** Lookup table slots (a bound for hostile drivers; ice needs a few per VSI). */
    public static final int LOOKUP_ENTRIES = 4096;
    /** VSI list / large action ids: 10 bits (ICE_SINGLE_ACT_VSI_LIST_ID_M) or 13 (ICE_SINGLE_ACT_PTR_VAL_M). */
    public static final int LIST_IDS = 1 << 10;
    public static final int LARGE_ACTION_IDS = 1 << 13;
    /** struct ice_aqc_set_port_params: cmd_flags at 0, swid at 4 (ICE_AQC_PORT_SWID_VALID bit 15). */
    private static final int PORT_PARAMS_FLAGS = 0;
    private static final int PORT_PARAMS_SWID = 4;
    private static final int SWID_VALID = 1 << 15;
    private static final int DOUBLE_VLAN_ENA = 1 << 2;
    /** struct ice_aqc_get_vlan_mode / set_vlan_mode: 100 bytes (VlanModeParameters). */
    public static final int VLAN_MODE_SIZE = VlanModeParameters.SIZE;
    /** struct ice_aqc_sw_rules: num_rules_fltr_entry_index le16 at params 0. */
    private static final int PARAM_NUM_RULES = 0;

    /** One rule as kept: its type, and its bytes as last added or updated. */
    public static final class Rule {
        final int type;
        final byte[] bytes;

        Rule(int type, byte[] bytes) {
            this.type = type;
            this.bytes = bytes;
        }

        public int type() {
            return type;
        }

        public byte[] bytes() {
            return bytes.clone();
        }
    }

    private final int pfId;
    private final int lport;
    private final int swid;
    private final VsiTable vsis;
    private final Map<Integer, Rule> lookups = new HashMap<>();
    private final Map<Integer, Rule> lists = new HashMap<>();
    private final Map<Integer, Rule> pruneLists = new HashMap<>();
    private final Map<Integer, Rule> largeActions = new HashMap<>();
    private final SwitchConfigElement configElement = new SwitchConfigElement();
    private final SwitchRule rule = new SwitchRule();
    private final VlanModeParameters vlanMode = new VlanModeParameters();
    private boolean doubleVlan;
    private boolean portDoubleVlan;
    private long generation;

    public SwitchRules(int pfId, int lport, int swid, VsiTable vsis) {
        this.pfId = pfId;
        this.lport = lport;
        this.swid = swid;
        this.vsis = vsis;
    }

    public void reset() {
        lookups.clear();
        lists.clear();
        pruneLists.clear();
        largeActions.clear();
        doubleVlan = false;
        portDoubleVlan = false;
        generation++;
    }

    /** Bumped on every change of a lookup rule or a VSI list (what the adapter's forwarding reads). */
    public long generation() {
        return generation;
    }

    /** The lookup rules as kept (LKUP_RX and LKUP_TX), a read-only view. */
    public java.util.Collection<Rule> lookupRules() {
        return java.util.Collections.unmodifiableCollection(lookups.values());
    }

    /**
     * A resource id freed by free_res: a VSI list (RES_TYPE_VSI_LIST_REP) or prune list (RES_TYPE_VSI_LIST_PRUNE)
     * goes with its id, as ice 7.3 frees a list it no longer uses without a VSI_LIST_CLEAR rule
     * (ice_switch.c ice_remove_vsi_list_rule); the id can then be allocated and set again.
     */
    public void resourceFreed(int type, int id) {
        Map<Integer, Rule> table = type == dev.irdmaemu.fw.aq.AqLayout.AllocFreeRes.RES_TYPE_VSI_LIST_REP ? lists
                : type == dev.irdmaemu.fw.aq.AqLayout.AllocFreeRes.RES_TYPE_VSI_LIST_PRUNE ? pruneLists : null;
        if (table != null && table.remove(id) != null) {
            generation++;
        }
    }

    /** The VSI list kept at {@code index} (VSI_LIST_SET), or null. */
    public Rule vsiList(int index) {
        return lists.get(index);
    }

    public void install(BiConsumer<Integer, AqCommandHandler> register) {
        register.accept(AqOpcode.GET_SW_CFG, this::getSwitchConfig);
        register.accept(AqOpcode.SET_PORT_PARAMS, this::setPortParams);
        register.accept(AqOpcode.SET_VLAN_MODE_PARAMETERS, this::setVlanMode);
        register.accept(AqOpcode.GET_VLAN_MODE_PARAMETERS, this::getVlanMode);
        register.accept(AqOpcode.ADD_SW_RULES, this::addRules);
        register.accept(AqOpcode.UPDATE_SW_RULES, this::updateRules);
        register.accept(AqOpcode.REMOVE_SW_RULES, this::removeRules);
    }

    public int swid() {
        return swid;
    }

    public boolean doubleVlanMode() {
        return doubleVlan;
    }

    public int lookupRuleCount() {
        return lookups.size();
    }

    /** The lookup rule at {@code index}, or null. */
    public Rule lookupRule(int index) {
        return lookups.get(index);
    }

    // ---- 0x0200

    private int getSwitchConfig(AqDescriptor desc, Bytes<?> buf) {
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || len < SwitchConfigElement.SIZE) {
            return refusals.refuse("get_sw_cfg", "reply buffer of " + len + " bytes", AqError.ENOMEM);
        }
        int first = desc.paramU16(SwitchConfigElement.PARAM_ELEMENT);
        if (first != 0) {
            return refusals.refuse("get_sw_cfg", "first element " + first + " beyond the 1-element configuration",
                    AqError.EINVAL);
        }
        configElement.wrap(buf, CommandBuffer.start(buf))
                .write(SwitchConfigElement.TYPE_PHYS_PORT, lport, swid, pfId);
        desc.paramU16(SwitchConfigElement.PARAM_ELEMENT, 0);
        desc.paramU16(SwitchConfigElement.PARAM_NUM_ELEMS, 1);
        desc.datalen(SwitchConfigElement.SIZE);
        return AqError.OK;
    }

    // ---- 0x0203

    private int setPortParams(AqDescriptor desc, Bytes<?> buf) {
        int sw = desc.paramU16(PORT_PARAMS_SWID);
        if ((sw & SWID_VALID) != 0 && (sw & 0xFF) != swid) {
            return refusals.refuse("set_port_params", "swid " + (sw & 0xFF) + " is not this port's " + swid,
                    AqError.EINVAL);
        }
        portDoubleVlan = (desc.paramU16(PORT_PARAMS_FLAGS) & DOUBLE_VLAN_ENA) != 0;
        return AqError.OK;
    }

    // ---- 0x020C / 0x020D

    private int setVlanMode(AqDescriptor desc, Bytes<?> buf) {
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || len < VLAN_MODE_SIZE) {
            return refusals.refuse("set_vlan_mode", "buffer of " + len + " bytes", AqError.EINVAL);
        }
        VlanModeParameters set = vlanMode.wrap(buf, CommandBuffer.start(buf), len);
        int prio = set.prioTagging();
        int rdma = set.rdmaPacket();
        int mng = set.managementVlanProtocol();
        if (prio > VlanModeParameters.PRIO_TAG_MAX || rdma != VlanModeParameters.SVM_RDMA_PACKET
                && rdma != VlanModeParameters.DVM_RDMA_PACKET || mng != VlanModeParameters.MNG_PROT_OUTER
                && mng != VlanModeParameters.MNG_PROT_INNER) {
            return refusals.refuse("set_vlan_mode", "prio tagging " + prio + ", rdma packet 0x" + Integer.toHexString(rdma)
                    + ", mng protocol 0x" + Integer.toHexString(mng), AqError.EINVAL);
        }
        doubleVlan = rdma == VlanModeParameters.DVM_RDMA_PACKET && portDoubleVlan;
        return AqError.OK;
    }

    private int getVlanMode(AqDescriptor desc, Bytes<?> buf) {
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || len < VLAN_MODE_SIZE) {
            return refusals.refuse("get_vlan_mode", "reply buffer of " + len + " bytes", AqError.ENOMEM);
        }
        vlanMode.wrap(buf, CommandBuffer.start(buf), len).writeGet(doubleVlan);
        desc.datalen(VLAN_MODE_SIZE);
        return AqError.OK;
    }

    // ---- 0x02A0

    private int addRules(AqDescriptor desc, Bytes<?> buf) {
        List<Long> at = parseRules("add_sw_rules", desc, buf);
        if (at == null) {
            return AqError.EINVAL;
        }
        Set<Integer> freshLookups = new HashSet<>();
        int[] indexes = new int[at.size()];
        int nextLookup = 0;
        for (int i = 0; i < at.size(); i++) {
            rule.wrap(buf, at.get(i), ruleEnd(desc, buf) - at.get(i));
            int code = checkTargets(rule);
            if (code != AqError.OK) {
                return refusals.refuse("add_sw_rules", "rule " + i + " forwards to VSI " + rule.actionVsi()
                        + ", which does not exist", code);
            }
            if (rule.isLookup()) {
                while (nextLookup < LOOKUP_ENTRIES && (lookups.containsKey(nextLookup)
                        || freshLookups.contains(nextLookup))) {
                    nextLookup++;
                }
                if (nextLookup >= LOOKUP_ENTRIES) {
                    return refusals.refuse("add_sw_rules", "the lookup table is full", AqError.ENOSPC);
                }
                freshLookups.add(nextLookup);
                indexes[i] = nextLookup;
            } else {
                int index = rule.index();
                Map<Integer, Rule> table = tableOf(rule.type());
                if (index >= limitOf(rule.type())) {
                    return refusals.refuse("add_sw_rules", "rule " + i + " index " + index + " out of range",
                            AqError.EINVAL);
                }
                if (table.containsKey(index)) {
                    return refusals.refuse("add_sw_rules", "rule " + i + " index " + index + " in use", AqError.EEXIST);
                }
                indexes[i] = index;
            }
        }
        for (int i = 0; i < at.size(); i++) {
            rule.wrap(buf, at.get(i), ruleEnd(desc, buf) - at.get(i));
            rule.index(indexes[i]).status(0);
            tableOf(rule.type()).put(indexes[i], new Rule(rule.type(), copy(buf, at.get(i), rule.size())));
        }
        generation++;
        return AqError.OK;
    }

    // ---- 0x02A1

    private int updateRules(AqDescriptor desc, Bytes<?> buf) {
        List<Long> at = parseRules("update_sw_rules", desc, buf);
        if (at == null) {
            return AqError.EINVAL;
        }
        for (int i = 0; i < at.size(); i++) {
            rule.wrap(buf, at.get(i), ruleEnd(desc, buf) - at.get(i));
            if (!tableOf(rule.type()).containsKey(rule.index())) {
                return refusals.refuse("update_sw_rules", "rule " + i + " index " + rule.index() + " does not exist",
                        AqError.ENOENT);
            }
            int code = checkTargets(rule);
            if (code != AqError.OK) {
                return refusals.refuse("update_sw_rules", "rule " + i + " forwards to a VSI that does not exist", code);
            }
        }
        for (Long a : at) {
            rule.wrap(buf, a, ruleEnd(desc, buf) - a);
            rule.status(0);
            tableOf(rule.type()).put(rule.index(), new Rule(rule.type(), copy(buf, a, rule.size())));
        }
        generation++;
        return AqError.OK;
    }

    // ---- 0x02A2

    private int removeRules(AqDescriptor desc, Bytes<?> buf) {
        List<Long> at = parseRules("remove_sw_rules", desc, buf);
        if (at == null) {
            return AqError.EINVAL;
        }
        for (int i = 0; i < at.size(); i++) {
            rule.wrap(buf, at.get(i), ruleEnd(desc, buf) - at.get(i));
            int t = rule.type();
            // ice removes a VSI list by sending VSI_LIST_CLEAR with the list's index (ice_remove_vsi_list_rule).
            if (!tableOf(t).containsKey(rule.index())) {
                return refusals.refuse("remove_sw_rules", "rule " + i + " index " + rule.index() + " does not exist",
                        AqError.ENOENT);
            }
        }
        for (Long a : at) {
            rule.wrap(buf, a, ruleEnd(desc, buf) - a);
            tableOf(rule.type()).remove(rule.index());
            rule.status(0);
        }
        generation++;
        return AqError.OK;
    }

    // ---- plumbing

    /** The offsets of the {@code num_rules} rules in the buffer, or null (logged) when they do not fit. */
    private List<Long> parseRules(String op, AqDescriptor desc, Bytes<?> buf) {
        int n = desc.paramU16(PARAM_NUM_RULES);
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || n == 0) {
            refusals.refuse(op, "no rules", AqError.EINVAL);
            return null;
        }
        long end = CommandBuffer.start(buf) + len;
        long a = CommandBuffer.start(buf);
        List<Long> at = new ArrayList<>(Math.min(n, 512));
        for (int i = 0; i < n; i++) {
            rule.wrap(buf, a, end - a);
            SwitchRule.Status s = rule.validate();
            if (!s.accepted()) {
                refusals.refuse(op, "rule " + i + " at +" + (a - CommandBuffer.start(buf)) + ": " + s.describe(),
                        AqError.EINVAL);
                return null;
            }
            at.add(a);
            // rules follow each other le16-aligned (ice_adminq_cmd.h: __packed __aligned(sizeof(__le16)))
            a += rule.size() + (rule.size() & 1);
        }
        return at;
    }

    private static long ruleEnd(AqDescriptor desc, Bytes<?> buf) {
        return CommandBuffer.start(buf) + CommandBuffer.length(desc, buf);
    }

    private int checkTargets(SwitchRule r) {
        if (r.isLookup()) {
            long act = r.action();
            boolean forwardToVsi = (act & 0x3) == 0 && (act & SwitchRule.ACT_VSI_LIST) == 0 && (act & 1L << 18) == 0;
            if (forwardToVsi && !vsis.exists(r.actionVsi())) {
                return AqError.ENOENT;
            }
        }
        return AqError.OK;
    }

    private Map<Integer, Rule> tableOf(int type) {
        switch (type) {
            case SwitchRule.T_LKUP_RX:
            case SwitchRule.T_LKUP_TX:
                return lookups;
            case SwitchRule.T_LG_ACT:
                return largeActions;
            case SwitchRule.T_PRUNE_LIST_SET:
            case SwitchRule.T_PRUNE_LIST_CLEAR:
                return pruneLists;
            default:
                return lists;
        }
    }

    private static int limitOf(int type) {
        return type == SwitchRule.T_LG_ACT ? LARGE_ACTION_IDS : LIST_IDS;
    }

    private static byte[] copy(Bytes<?> buf, long at, long n) {
        byte[] b = new byte[(int) n];
        for (int i = 0; i < n; i++) {
            b[i] = buf.readByte(at + i);
        }
        return b;
    }


    /** Reports refused commands to {@code r} (the function's shared {@link AqRefusals}). */
    void reportRefusalsTo(AqRefusals r) {
        this.refusals = r;
    }
}
