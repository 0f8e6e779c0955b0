package dev.irdmaemu.model.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.SwitchRule;
import dev.irdmaemu.fw.aq.VsiCommand;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.ice.AqCommandHandler;
import dev.irdmaemu.model.ice.IceSwitchAndScheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * An adapter switch with {@code n} functions whose firmware (VSIs, switch rules) is programmed through the admin
 * queue handlers as ice programs it, each function's deliveries recorded by destination MAC; and the uplink's.
 */
final class SwitchBench {
    /** ice's rule action for a unicast MAC filter in VEB mode (ice_fill_sw_info: LB on, LAN off). */
    static final long UNICAST_ACT = SwitchRule.ACT_LB_ENABLE | SwitchRule.ACT_VALID;
    /** ... and for broadcast and multicast (LB and LAN). */
    static final long GROUP_ACT = SwitchRule.ACT_LB_ENABLE | SwitchRule.ACT_LAN_ENABLE | SwitchRule.ACT_VALID;
    static final long BROADCAST = 0xFFFF_FFFF_FFFFL;

    final SimScheduler scheduler;
    final AdapterSwitch fabric;
    final List<IceSwitchAndScheduler> firmware = new ArrayList<>();
    final List<Map<Integer, AqCommandHandler>> handlers = new ArrayList<>();
    final List<List<Long>> received = new ArrayList<>();
    final List<AdapterSwitch.Port> ports = new ArrayList<>();
    final List<Long> uplink = new ArrayList<>();
    final List<Long> tapped = new ArrayList<>();
    private final EthernetFrame frame = new EthernetFrame();
    private final AqDescriptor desc = new AqDescriptor();
    private final BytesStore<?, ?> descBytes = BytesStore.wrap(new byte[AqDescriptor.SIZE]);

    SwitchBench(int n) {
        this.scheduler = new SimScheduler(1);
        this.fabric = new AdapterSwitch(scheduler);
        for (int f = 0; f < n; f++) {
            IceSwitchAndScheduler fw = new IceSwitchAndScheduler(f, f);
            Map<Integer, AqCommandHandler> h = new HashMap<>();
            fw.install(h::put);
            List<Long> got = new ArrayList<>();
            firmware.add(fw);
            handlers.add(h);
            received.add(got);
            ports.add(fabric.attach(fw.vsis(), fw.switchRules(), (s, o, l) -> got.add(destination(s, o, l))));
        }
        fabric.uplink((s, o, l) -> uplink.add(destination(s, o, l)));
        fabric.switchedTap((t, s, o, l) -> tapped.add(destination(s, o, l)));
    }

    /**
     * A bench over functions already on {@code fabric} (E810PhysicalFunction#attachTo): only their firmware is
     * programmed through it; their frames go where the functions' ports take them.
     */
    SwitchBench(SimScheduler scheduler, AdapterSwitch fabric, List<IceSwitchAndScheduler> functions) {
        this.scheduler = scheduler;
        this.fabric = fabric;
        for (IceSwitchAndScheduler fw : functions) {
            Map<Integer, AqCommandHandler> h = new HashMap<>();
            fw.install(h::put);
            firmware.add(fw);
            handlers.add(h);
        }
    }

    private long destination(BytesStore<?, ?> s, long o, int l) {
        return frame.wrap(s, o, l).destination();
    }

    /** Adds function {@code f}'s PF VSI with switch flags {@code swFlags}; answers its number. */
    int addPfVsi(int f, int swFlags) {
        Bytes<?> ctx = Bytes.wrapForWrite(new byte[VsiCommand.PROPS_SIZE]);
        new VsiCommand().wrap(ctx, 0, VsiCommand.PROPS_SIZE).validSections(VsiCommand.PROP_SW_VALID)
                .switchFlags(swFlags);
        assertEquals(AqError.OK, send(f, AqOpcode.ADD_VSI, VsiCommand.PARAM_VSI_FLAGS, VsiCommand.TYPE_PF, ctx));
        return desc.paramU16(VsiCommand.RESP_VSI_NUM) & VsiCommand.VSI_NUM_MASK;
    }

    /** Function {@code f} rewrites its VSI's context with switch flags {@code swFlags} (update_vsi). */
    void updateVsi(int f, int vsi, int swFlags) {
        Bytes<?> ctx = Bytes.wrapForWrite(new byte[VsiCommand.PROPS_SIZE]);
        new VsiCommand().wrap(ctx, 0, VsiCommand.PROPS_SIZE).validSections(VsiCommand.PROP_SW_VALID)
                .switchFlags(swFlags);
        assertEquals(AqError.OK, send(f, AqOpcode.UPDATE_VSI, VsiCommand.PARAM_VSI_NUM,
                vsi | VsiCommand.VSI_IS_VALID, ctx));
    }

    /**
     * Function {@code f} turns the PE filter on as ice_switch.c ice_cfg_rdma_fltr does: a zeroed context whose only
     * valid section is the queueing options.
     */
    void enablePeFilter(int f, int vsi) {
        Bytes<?> ctx = Bytes.wrapForWrite(new byte[VsiCommand.PROPS_SIZE]);
        new VsiCommand().wrap(ctx, 0, VsiCommand.PROPS_SIZE).validSections(VsiCommand.PROP_Q_OPT_VALID);
        ctx.writeByte(VsiCommand.Q_OPT_FLAGS, (byte) VsiCommand.Q_OPT_PE_FLTR_EN);
        assertEquals(AqError.OK, send(f, AqOpcode.UPDATE_VSI, VsiCommand.PARAM_VSI_NUM,
                vsi | VsiCommand.VSI_IS_VALID, ctx));
    }

    /** Function {@code f} adds a MAC filter for {@code mac} forwarding to {@code vsi}; answers the rule's index. */
    int addMacRule(int f, long mac, int vsi, long act) {
        Bytes<?> buf = Bytes.wrapForWrite(new byte[32]);
        SwitchRule r = new SwitchRule().wrap(buf, 0, 32);
        r.writeMacLookup(SwitchRule.T_LKUP_TX, SwitchRule.RECIPE_MAC, vsi, act | (long) vsi << 4, mac);
        assertEquals(AqError.OK, send(f, AqOpcode.ADD_SW_RULES, 0, 1, buf));
        return r.index();
    }

    /** Function {@code f} adds a MAC filter forwarding to VSI list {@code list} (which it sets first). */
    void addMacRuleToList(int f, long mac, int list, int... vsis) {
        Bytes<?> l = Bytes.wrapForWrite(new byte[8 + 2 * vsis.length]);
        new SwitchRule().wrap(l, 0, l.writeLimit()).writeVsiList(list, vsis);
        assertEquals(AqError.OK, send(f, AqOpcode.ADD_SW_RULES, 0, 1, l));
        Bytes<?> buf = Bytes.wrapForWrite(new byte[32]);
        new SwitchRule().wrap(buf, 0, 32).writeMacLookup(SwitchRule.T_LKUP_TX, SwitchRule.RECIPE_MAC, 0,
                UNICAST_ACT | SwitchRule.ACT_VSI_LIST | (long) list << 4, mac);
        assertEquals(AqError.OK, send(f, AqOpcode.ADD_SW_RULES, 0, 1, buf));
    }

    void removeRule(int f, int index) {
        Bytes<?> buf = Bytes.wrapForWrite(new byte[16]);
        new SwitchRule().wrap(buf, 0, 16).writeLookupRemoval(SwitchRule.T_LKUP_TX, SwitchRule.RECIPE_MAC, index);
        assertEquals(AqError.OK, send(f, AqOpcode.REMOVE_SW_RULES, 0, 1, buf));
    }

    /** A 64-byte frame to {@code dst} from {@code src}. */
    static BytesStore<?, ?> frameTo(long dst, long src) {
        BytesStore<?, ?> b = BytesStore.wrap(new byte[64]);
        EthernetFrame.write(b, 0, dst, src, EthernetFrame.ETHERTYPE_IPV4);
        return b;
    }

    void fromLan(int f, long dst) {
        ports.get(f).fromLan().transmit(frameTo(dst, 0x02_00_00_00_00_00L + f), 0, 64);
    }

    void fromRdma(int f, long dst) {
        ports.get(f).fromRdma().transmit(frameTo(dst, 0x02_00_00_00_00_00L + f), 0, 64);
    }

    void fromUplink(long dst) {
        fabric.fromUplink(frameTo(dst, 0x02_00_00_00_00_99L), 0, 64);
    }

    void clear() {
        received.forEach(List::clear);
        uplink.clear();
        tapped.clear();
    }

    private int send(int f, int opcode, int param, int value, Bytes<?> buf) {
        AqCommandHandler h = handlers.get(f).get(opcode);
        assertNotNull(h, "opcode 0x" + Integer.toHexString(opcode));
        for (int i = 0; i < AqDescriptor.SIZE; i++) {
            descBytes.writeByte(i, (byte) 0);
        }
        desc.wrap(descBytes, 0);
        desc.opcode(opcode);
        desc.flags(AqDescriptor.BUF | AqDescriptor.RD);
        desc.datalen((int) buf.writeLimit());
        desc.paramU16(param, value);
        return h.handle(desc, buf);
    }
}
