package dev.irdmaemu.cm;

import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.List;
import java.util.OptionalLong;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What every {@link CmHardwarePort} has whatever device is behind it: the netdev's identity (its MAC, the VSI MTU,
 * the device's IRD/ORD limits, the addresses on it and its VLAN sub-interfaces), its neighbour table, and the CM
 * attached to it. The in-memory stand-in and the port on the device model differ only in what they do with
 * address handles, the quad hash, the accelerated ports and QPs.
 *
 * @param <P> the port's own type, which {@link #addNeighbour} answers
 */
public abstract class AbstractHardwarePort<P extends AbstractHardwarePort<P>> implements CmHardwarePort {
    private final SimScheduler scheduler;
    private final long mac;
    private final int mtu;
    private final int maxIrd;
    private final int maxOrd;
    private final List<LocalAddress> addresses;
    private final NeighbourTable neighbours;
    /** VLAN sub-interfaces' egress QoS maps: {@link #egressMapVlans}[i]'s priorities in {@link #egressMaps}[i]. */
    private int[] egressMapVlans = new int[0];
    private int[][] egressMaps = new int[0][];
    private Receiver receiver;
    /** The attached CM as the port's parts see it: whichever CM attaches, also after they were made. */
    private final Receiver upstream = new Receiver() {
        @Override
        public void receive(BytesStore<?, ?> frame, long offset, int length) {
            receiver.receive(frame, offset, length);
        }

        @Override
        public void qpEvent(int qpn, QpEvent event) {
            receiver.qpEvent(qpn, event);
        }
    };

    protected AbstractHardwarePort(SimScheduler scheduler, long mac, int mtu, int maxIrd, int maxOrd,
                                   List<LocalAddress> addresses) {
        this.scheduler = scheduler;
        this.mac = mac;
        this.mtu = mtu;
        this.maxIrd = maxIrd;
        this.maxOrd = maxOrd;
        this.addresses = List.copyOf(addresses);
        this.neighbours = new NeighbourTable(mac, this.addresses);
    }

    /** A static neighbour entry (what ARP/ND would resolve). */
    @SuppressWarnings("unchecked")
    public final P addNeighbour(IpEndpoint address, long neighbourMac) {
        neighbours.add(address, neighbourMac);
        return (P) this;
    }

    /**
     * The egress QoS map of VLAN sub-interface {@code vlanId} ({@code ip link add ... type vlan id N egress-qos-map
     * 0:P0 1:P1 ...}): {@code pcpOfPriority[p]} is the 802.1p priority of skb priority {@code p}, 8 entries 0..7.
     */
    @SuppressWarnings("unchecked")
    public final P egressQosMap(int vlanId, int... pcpOfPriority) {
        if (vlanId < 0 || vlanId >= CmNode.NO_VLAN || pcpOfPriority.length != 8
                || java.util.Arrays.stream(pcpOfPriority).anyMatch(v -> v < 0 || v > 7)) {
            throw new IllegalArgumentException("an egress QoS map is 8 priorities 0..7 of a VLAN 0..4095");
        }
        int n = egressMapVlans.length;
        egressMapVlans = java.util.Arrays.copyOf(egressMapVlans, n + 1);
        egressMaps = java.util.Arrays.copyOf(egressMaps, n + 1);
        egressMapVlans[n] = vlanId;
        egressMaps[n] = pcpOfPriority.clone();
        return (P) this;
    }

    @Override
    public final int egressPriority(int vlanId, int priority) {
        for (int i = 0; i < egressMapVlans.length; i++) {
            if (egressMapVlans[i] == vlanId) {
                return egressMaps[i][priority & 7];
            }
        }
        return priority;
    }

    /** Makes two ports know each other's addresses. */
    public static void neighbours(AbstractHardwarePort<?> a, AbstractHardwarePort<?> b) {
        a.neighbours.addAll(b.addresses, b.mac);
        b.neighbours.addAll(a.addresses, a.mac);
    }

    @Override
    public final void attach(Receiver receiver) {
        this.receiver = receiver;
    }

    /** The CM attached last, or null before any. */
    protected final Receiver receiver() {
        return receiver;
    }

    /** Forwards to the CM attached at the time of the call (which must be there). */
    protected final Receiver upstream() {
        return upstream;
    }

    @Override
    public final SimScheduler scheduler() {
        return scheduler;
    }

    @Override
    public final long macAddress() {
        return mac;
    }

    @Override
    public final int mtu() {
        return mtu;
    }

    @Override
    public final int maxIrd() {
        return maxIrd;
    }

    @Override
    public final int maxOrd() {
        return maxOrd;
    }

    @Override
    public final List<LocalAddress> localAddresses() {
        return addresses;
    }

    @Override
    public final OptionalLong neighbourMac(boolean ipv4, long remoteHi, long remoteLo) {
        return neighbours.resolve(ipv4, remoteHi, remoteLo);
    }
}
