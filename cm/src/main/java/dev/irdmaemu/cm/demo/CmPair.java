package dev.irdmaemu.cm.demo;

import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.hw.InMemoryHardwarePort;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import java.util.List;

/**
 * Two in-process nodes, each a {@link ConnectionManager} on an {@link InMemoryHardwarePort}, joined by one
 * {@link Link} on one {@link SimScheduler}: what the scenario tests, the demo and the benchmarks drive.
 * Node A holds 192.0.2.1 and 2001:db8::1 untagged and 198.51.100.1 on VLAN 100; node B the same with .2 / ::2.
 */
public final class CmPair {
    public static final long MAC_A = 0x02_00_00_00_00_0aL;
    public static final long MAC_B = 0x02_00_00_00_00_0bL;
    public static final IpEndpoint A_V4 = IpEndpoint.of("192.0.2.1", 0);
    public static final IpEndpoint B_V4 = IpEndpoint.of("192.0.2.2", 0);
    public static final IpEndpoint A_V6 = IpEndpoint.of("2001:db8::1", 0);
    public static final IpEndpoint B_V6 = IpEndpoint.of("2001:db8::2", 0);
    public static final IpEndpoint A_VLAN = IpEndpoint.of("198.51.100.1", 0);
    public static final IpEndpoint B_VLAN = IpEndpoint.of("198.51.100.2", 0);
    public static final int VLAN = 100;

    public final SimScheduler scheduler;
    public final Link link;
    public final InMemoryHardwarePort deviceA;
    public final InMemoryHardwarePort deviceB;
    public final ConnectionManager a;
    public final ConnectionManager b;

    /** The knobs of a pair: seed, per-direction faults, the capture tap, device IRD/ORD limits. */
    public record Config(long seed, FaultProfile aToB, FaultProfile bToA, FrameTap tap,
                         int maxIrdA, int maxOrdA, int maxIrdB, int maxOrdB) {
        public static Config perfect() {
            return new Config(1, FaultProfile.NONE, FaultProfile.NONE, FrameTap.NONE, 128, 128, 128, 128);
        }

        public Config withSeed(long s) {
            return new Config(s, aToB, bToA, tap, maxIrdA, maxOrdA, maxIrdB, maxOrdB);
        }

        public Config withFaults(FaultProfile both) {
            return new Config(seed, both, both, tap, maxIrdA, maxOrdA, maxIrdB, maxOrdB);
        }

        public Config withTap(FrameTap t) {
            return new Config(seed, aToB, bToA, t, maxIrdA, maxOrdA, maxIrdB, maxOrdB);
        }

        public Config withLimits(int irdA, int ordA, int irdB, int ordB) {
            return new Config(seed, aToB, bToA, tap, irdA, ordA, irdB, ordB);
        }
    }

    public CmPair(Config config) {
        scheduler = new SimScheduler(config.seed());
        link = new Link(scheduler, config.tap());
        List<LocalAddress> addrA = List.of(LocalAddress.of(A_V4, 0xffff), LocalAddress.of(A_V6, 0xffff),
                LocalAddress.of(A_VLAN, VLAN));
        List<LocalAddress> addrB = List.of(LocalAddress.of(B_V4, 0xffff), LocalAddress.of(B_V6, 0xffff),
                LocalAddress.of(B_VLAN, VLAN));
        deviceA = new InMemoryHardwarePort(scheduler, MAC_A, 1500, config.maxIrdA(), config.maxOrdA(), addrA)
                .plugInto(link, config.aToB());
        deviceB = new InMemoryHardwarePort(scheduler, MAC_B, 1500, config.maxIrdB(), config.maxOrdB(), addrB)
                .plugInto(link, config.bToA());
        InMemoryHardwarePort.neighbours(deviceA, deviceB);
        a = new ConnectionManager(deviceA);
        b = new ConnectionManager(deviceB);
    }

    public CmPair() {
        this(Config.perfect());
    }

    /** Runs the simulation until nothing is pending or {@code limitNanos} of simulated time passed. */
    public boolean runUntilIdle(long limitNanos) {
        return scheduler.runUntilIdle(scheduler.now() + limitNanos);
    }

    /** Runs {@code nanos} of simulated time. */
    public void runFor(long nanos) {
        scheduler.runFor(nanos);
    }
}
