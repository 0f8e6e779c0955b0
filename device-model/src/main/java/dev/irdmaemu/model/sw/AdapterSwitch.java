package dev.irdmaemu.model.sw;

import dev.irdmaemu.fw.aq.SwitchRule;
import dev.irdmaemu.fw.aq.VsiCommand;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FrameReceiver;
import dev.irdmaemu.model.ice.SwitchRules;
import dev.irdmaemu.model.ice.VsiTable;
import dev.irdmaemu.model.port.FrameTransmitter;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.OptionalInt;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The E810's embedded switch between its physical functions and its one uplink, as ice configures it in its default
 * VEB mode: every frame a function transmits (ice's LAN rings, and the RDMA block's ILQ and offloaded QPs) enters the
 * switch, which forwards it by destination MAC along the lookup rules the functions' drivers added (add_sw_rules,
 * recipes MAC and MAC+VLAN, forward to a VSI or a VSI list) and the source VSI's loopback flags:
 * <ul>
 *   <li><b>unicast to a MAC a rule forwards to a function of this adapter</b>: when the source VSI has
 *       ICE_AQ_VSI_SW_FLAG_ALLOW_LB (ice_lib.c ice_vsi_init sets it in VEB mode) and the rule has LB_ENABLE
 *       (ice_switch.c ice_fill_sw_info sets it on every Tx forwarding rule), the frame is turned around inside the
 *       adapter into that function's receive side; it reaches the uplink only if the rule also has LAN_ENABLE (which
 *       ice sets for unicast only in VEPA mode). A frame back to the very function that sent it is delivered when it
 *       comes from the RDMA block (irdma's loopback connections: cm.c irdma_make_cm_node marks them do_lpb and its
 *       offloaded QPs address their own MAC) or when the VSI has ICE_AQ_VSI_SW_FLAG_LOCAL_LB; a LAN frame to its own
 *       VSI without LOCAL_LB is pruned (dropped and counted). Without ALLOW_LB (VEPA) the frame goes to the
 *       uplink;</li>
 *   <li><b>broadcast and multicast</b>: to the uplink, and with ALLOW_LB to every other function (source pruning:
 *       never back to the sender);</li>
 *   <li><b>any other unicast</b>: to the uplink.</li>
 * </ul>
 * Frames from the uplink go to the functions a rule forwards their destination MAC to; broadcast, multicast and
 * unicast no rule names reach every function (the model's LAN Rx path filters no MACs of its own, so one function
 * behaves as it always did). The switch never sends a frame back out of the port it came from and never forwards a
 * frame it delivered, so no frame can circle: what a guest sends toward its own MAC costs one receive-FIFO slot of the
 * receiving function each (EthernetPort drops and counts beyond its 256), however fast it comes.
 *
 * <p>What is left out: the rules' source field (the MAC recipes are keyed by destination alone here), VLAN pruning,
 * promiscuous and default-VSI rules (unknown unicast from the uplink floods instead), per-VSI delivery within one
 * function (a function's frames all go to its port, whose classifier and Rx steering pick the queue), and the
 * switch's own bandwidth (internally switched frames take no wire time). One thread: the adapter's model loop.
 */
public final class AdapterSwitch {
    private static final Logger LOG = LoggerFactory.getLogger(AdapterSwitch.class);

    /** PFs of one E810 (ice's PF numbers 0..7). */
    public static final int MAX_FUNCTIONS = 8;

    /** Where a function's frame comes from: its LAN queues, or its RDMA block. */
    public enum Origin { LAN, RDMA }

    /** What the switch did with frames so far. */
    public record Counters(long fromFunctions, long toUplink, long fromUplink, long switched, long pruned,
                           long flooded, long runts) {
        @Override
        public String toString() {
            return "from_functions=" + fromFunctions + " to_uplink=" + toUplink + " from_uplink=" + fromUplink
                    + " switched=" + switched + " pruned=" + pruned + " flooded=" + flooded + " runts=" + runts;
        }
    }

    /** One function's place on the switch. */
    public final class Port {
        private final int function;
        private final VsiTable vsis;
        private final SwitchRules rules;
        private final FrameReceiver into;
        private final FrameTransmitter fromLan;
        private final FrameTransmitter fromRdma;
        private long delivered;

        private Port(int function, VsiTable vsis, SwitchRules rules, FrameReceiver into) {
            this.function = function;
            this.vsis = vsis;
            this.rules = rules;
            this.into = into;
            this.fromLan = (store, offset, length) -> transmit(this, Origin.LAN, store, offset, length);
            this.fromRdma = (store, offset, length) -> transmit(this, Origin.RDMA, store, offset, length);
        }

        /** The function's number on this switch (the order it was attached in). */
        public int function() {
            return function;
        }

        /** Where the function's LAN queues transmit. */
        public FrameTransmitter fromLan() {
            return fromLan;
        }

        /** Where the function's RDMA block transmits. */
        public FrameTransmitter fromRdma() {
            return fromRdma;
        }

        /** Frames the switch handed to this function (from the uplink or from a function of the adapter). */
        public long delivered() {
            return delivered;
        }
    }

    private final SimScheduler scheduler;
    private final Port[] ports = new Port[MAX_FUNCTIONS];
    private int portCount;
    private final ForwardingTable table = new ForwardingTable();
    private final int[] sourceFlags = new int[MAX_FUNCTIONS];
    private boolean built;
    private long builtGeneration;
    private final EthernetFrame frame = new EthernetFrame();
    private final SwitchRule rule = new SwitchRule();
    private FrameTransmitter uplink = FrameTransmitter.NONE;
    private FrameTap switchedTap = FrameTap.NONE;
    private Trace trace;

    private long fromFunctions;
    private long toUplink;
    private long fromUplink;
    private long switched;
    private long pruned;
    private long flooded;
    private long runts;

    /** A switch whose taps stamp frames with {@code scheduler}'s simulated time. */
    public AdapterSwitch(SimScheduler scheduler) {
        this.scheduler = scheduler;
        this.trace = new Trace(scheduler);
    }

    /** Where the switch's own events go (its table rebuilds, its drops): an adapter-level trace. */
    public void trace(Trace t) {
        this.trace = t == null ? new Trace(scheduler) : t;
    }

    /**
     * Attaches the next function: its firmware's VSI table and switch rules (read when they change), and where
     * frames for it go ({@code into}: its port's receive side). Answers its place, whose transmitters the function's
     * LAN queues and RDMA block send through.
     */
    public Port attach(VsiTable vsis, SwitchRules rules, FrameReceiver into) {
        if (portCount == MAX_FUNCTIONS) {
            throw new IllegalStateException("an E810 has at most " + MAX_FUNCTIONS + " functions");
        }
        Port p = new Port(portCount, vsis, rules, into);
        ports[portCount++] = p;
        built = false;
        return p;
    }

    /** Where frames for the uplink (the adapter's Ethernet cable) go. */
    public void uplink(FrameTransmitter t) {
        this.uplink = t == null ? FrameTransmitter.NONE : t;
    }

    /** Sees every frame the switch turns around inside the adapter (never the uplink's), e.g. a pcap writer. */
    public void switchedTap(FrameTap tap) {
        this.switchedTap = tap == null ? FrameTap.NONE : tap;
    }

    public int functions() {
        return portCount;
    }

    public Port port(int function) {
        if (function < 0 || function >= portCount) {
            throw new IndexOutOfBoundsException("function " + function + " of " + portCount);
        }
        return ports[function];
    }

    public Counters counters() {
        return new Counters(fromFunctions, toUplink, fromUplink, switched, pruned, flooded, runts);
    }

    /** A frame from the uplink (the cable). The bytes are valid only during the call. */
    public void fromUplink(BytesStore<?, ?> store, long offset, int length) {
        fromUplink++;
        if (!frame.wrap(store, offset, length).validate().accepted()) {
            runt(length);
            return;
        }
        long dst = frame.destination();
        if (!isMulticast(dst)) {
            int targets = lookup(dst) & ForwardingTable.FUNCTIONS_M;
            if (targets != 0) {
                for (int f = 0; f < portCount; f++) {
                    if ((targets & 1 << f) != 0) {
                        deliver(ports[f], store, offset, length);
                    }
                }
                return;
            }
            if (portCount > 1) {
                flooded++;
            }
        }
        for (int f = 0; f < portCount; f++) {
            deliver(ports[f], store, offset, length);
        }
    }

    private void transmit(Port from, Origin origin, BytesStore<?, ?> store, long offset, int length) {
        fromFunctions++;
        if (!frame.wrap(store, offset, length).validate().accepted()) {
            runt(length);
            return;
        }
        long dst = frame.destination();
        int entry = lookup(dst);
        boolean loopback = (sourceFlags[from.function] & VsiCommand.SW_FLAG_ALLOW_LB) != 0;
        if (isMulticast(dst)) {
            toUplink(store, offset, length);
            if (loopback) {
                for (int f = 0; f < portCount; f++) {
                    if (f != from.function) {
                        switched(ports[f], store, offset, length);
                    }
                }
            }
            return;
        }
        int targets = entry & ForwardingTable.FUNCTIONS_M;
        if (!loopback || targets == 0 || (entry & ForwardingTable.LB_ENABLE) == 0) {
            toUplink(store, offset, length);
            return;
        }
        for (int f = 0; f < portCount; f++) {
            if ((targets & 1 << f) == 0) {
                continue;
            }
            if (f == from.function && origin == Origin.LAN
                    && (sourceFlags[f] & VsiCommand.SW_FLAG_LOCAL_LB) == 0) {
                pruned++;
                TraceEvent t = trace.start(TraceKind.SWITCH);
                if (t != null) {
                    t.text("op", "pruned").num("pf", f).hex("dst", dst).num("len", length).emit();
                }
                continue;
            }
            switched(ports[f], store, offset, length);
        }
        if ((entry & ForwardingTable.LAN_ENABLE) != 0) {
            toUplink(store, offset, length);
        }
    }

    private void toUplink(BytesStore<?, ?> store, long offset, int length) {
        toUplink++;
        uplink.transmit(store, offset, length);
    }

    private void switched(Port to, BytesStore<?, ?> store, long offset, int length) {
        switched++;
        switchedTap.frame(scheduler.now(), store, offset, length);
        deliver(to, store, offset, length);
    }

    private static void deliver(Port to, BytesStore<?, ?> store, long offset, int length) {
        to.delivered++;
        to.into.receive(store, offset, length);
    }

    private void runt(int length) {
        TraceEvent t = trace.start(TraceKind.SWITCH);
        if (t != null) {
            t.text("op", "runt").num("len", length).emit();
        }
        if (runts++ == 0) {
            LOG.warn("adapter switch: dropped a {}-byte frame, shorter than an Ethernet header; later ones only"
                    + " counted", length);
        }
    }

    /** The group bit: the first octet's least significant bit (broadcast included). */
    private static boolean isMulticast(long mac) {
        return (mac >>> 40 & 1) != 0;
    }

    private int lookup(long mac) {
        refresh();
        return table.lookup(mac);
    }

    /** Rebuilds the table and the source flags when a function's rules or VSIs changed since the last build. */
    private void refresh() {
        long g = 0;
        for (int f = 0; f < portCount; f++) {
            g += ports[f].rules.generation() + ports[f].vsis.generation();
        }
        if (built && g == builtGeneration) {
            return;
        }
        table.clear();
        for (int f = 0; f < portCount; f++) {
            Port p = ports[f];
            OptionalInt own = p.vsis.pfVsi();
            sourceFlags[f] = own.isPresent() ? p.vsis.switchFlags(own.getAsInt()) : 0;
            for (SwitchRules.Rule r : p.rules.lookupRules()) {
                addRule(p, r);
            }
        }
        built = true;
        builtGeneration = g;
        TraceEvent t = trace.start(TraceKind.SWITCH);
        if (t != null) {
            t.text("op", "table").num("entries", table.size());
            for (int f = 0; f < portCount; f++) {
                OptionalInt own = ports[f].vsis.pfVsi();
                t.num("pf" + f + "_vsi", own.isPresent() ? own.getAsInt() : -1).hex("pf" + f + "_sw_flags",
                        sourceFlags[f]);
            }
            t.emit();
        }
        LOG.debug("adapter switch: {} MAC entries after a rule or VSI change", table.size());
    }

    private void addRule(Port p, SwitchRules.Rule kept) {
        byte[] bytes = kept.bytes();
        rule.wrap(BytesStore.wrap(bytes), 0, bytes.length);
        int recipe = rule.recipeId();
        if (recipe != SwitchRule.RECIPE_MAC && recipe != SwitchRule.RECIPE_MAC_VLAN || !rule.hasDestinationMac()
                || !rule.forwardsToVsi() || !reachesVsi(p)) {
            return;
        }
        long act = rule.action();
        int actions = ((act & SwitchRule.ACT_LB_ENABLE) != 0 ? ForwardingTable.LB_ENABLE : 0)
                | ((act & SwitchRule.ACT_LAN_ENABLE) != 0 ? ForwardingTable.LAN_ENABLE : 0);
        table.add(rule.destinationMac(), p.function, actions);
    }

    /** The wrapped rule forwards to a VSI (or a list holding one) that exists in {@code p}'s VSI table. */
    private boolean reachesVsi(Port p) {
        if (!rule.forwardsToVsiList()) {
            return p.vsis.exists(rule.actionVsi());
        }
        SwitchRules.Rule list = p.rules.vsiList(rule.actionVsiList());
        if (list == null) {
            return false;
        }
        byte[] bytes = list.bytes();
        SwitchRule l = new SwitchRule().wrap(BytesStore.wrap(bytes), 0, bytes.length);
        for (int i = 0; i < l.numberVsi(); i++) {
            if (p.vsis.exists(l.vsi(i))) {
                return true;
            }
        }
        return false;
    }
}
