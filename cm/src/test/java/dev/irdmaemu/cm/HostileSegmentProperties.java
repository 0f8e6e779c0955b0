package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.pcap.FrameTap;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Arbitrary TCP segments and MPA frames, with valid checksums so they reach the CM, thrown at both ends of a
 * connection stopped at an arbitrary point of its setup, straight to the CM or through the device in front of it. Whatever arrives: nothing throws, every frame the CM
 * sends is a well-formed TCP segment, every node stays in a state of the machine, and once the consumers tear
 * everything down (disconnect, reject, destroy the listener) nothing is left ({@link LeakCheck}: nodes, timers,
 * listeners, and the devices' quad hash entries, QPs and accelerated ports).
 */
class HostileSegmentProperties {
    private static final int PORT = 4791;
    private static final int CLIENT_PORT = 40000;

    enum Payload { NONE, RANDOM, MPA_REQUEST, MPA_REPLY, MPA_MUTATED }

    enum Seq { EXPECTED, RANDOM, BEHIND, AHEAD }

    record Injection(boolean toServer, int flags, Seq seq, Seq ack, int window, Payload payload, byte[] random,
                     int mutateAt, int mutateXor, boolean otherPort, int stepsAfter) {
    }

    record Scenario(int stepsBefore, List<Injection> injections, int consumerPolicy, int revision) {
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        Arbitrary<Injection> injection = Combinators.combine(
                Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 0x3f),
                Arbitraries.of(Seq.class),
                Arbitraries.of(Seq.class),
                Arbitraries.integers().between(0, 0xffff),
                Arbitraries.of(Payload.class),
                Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(80),
                Arbitraries.integers().between(0, 60)).as((to, flags, seq, ack, win, pl, rnd, mut) ->
                new Injection(to, flags, seq, ack, win, pl, rnd, mut, 1 + (mut * 37) % 255, (mut & 7) == 0,
                        mut % 6));
        return Combinators.combine(Arbitraries.integers().between(0, 40), injection.list().ofMinSize(1).ofMaxSize(8),
                Arbitraries.integers().between(0, 2), Arbitraries.integers().between(1, 2))
                .as(Scenario::new);
    }

    @Property(tries = 500)
    void hostileSegmentsNeverBreakTheCm(@ForAll("scenarios") Scenario s) {
        run(s);
    }

    /**
     * Issue 13: this seed left a passive node in FIN_WAIT2 with no timer (the peer ACKed our FIN and never sent
     * its own). Pinned so the case stays covered while the property above draws fresh seeds.
     */
    @Property(tries = 500, seed = "-8051065885839860555")
    void finWait2WithASilentPeerIsNotLeftForEver(@ForAll("scenarios") Scenario s) {
        run(s);
    }

    /**
     * This seed sent a FIN to a passive node before its address handle (created without waiting, as irdma's
     * passive side does) was valid: the node went to LAST_ACK, its FIN could not be formed, and it sat there with
     * no timer. Kept as a regression example while the property above draws fresh seeds.
     */
    @Property(tries = 100, seed = "1517260993334010527")
    void aFinBeforeThePassiveAddressHandleIsValidIsStillAnswered(@ForAll("scenarios") Scenario s) {
        run(s);
    }

    private static void run(Scenario s) {
        TcpPacket check = new TcpPacket();
        List<String> bad = new ArrayList<>();
        FrameTap validating = (t, store, off, len) -> {
            if (!check.wrap(store, off, len).validate().accepted()) {
                bad.add(check.validate().describe());
            }
        };
        CmPair p = new CmPair(CmPair.Config.perfect().withTap(validating).withSeed(s.stepsBefore() + 1));
        List<CmNode> serverNodes = new ArrayList<>();
        CmListener l = p.b.listen(CmPair.B_V4.withPort(PORT), 16, e -> {
            serverNodes.add(e.node());
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                switch (s.consumerPolicy()) {
                    case 0 -> p.b.accept(e.node(), new byte[] {1, 2});
                    case 1 -> p.b.reject(e.node(), new byte[] {3});
                    default -> {
                    }
                }
            }
        });
        CmNode client = p.a.connect(CmPair.A_V4.withPort(CLIENT_PORT), CmPair.B_V4.withPort(PORT),
                ConnectParams.of(new byte[] {4, 5, 6}, 8, 8).withRevision(s.revision()), e -> { });
        for (int i = 0; i < s.stepsBefore(); i++) {
            p.scheduler.runNext();
        }
        BytesStore<?, ?> buf = BytesStore.wrap(new byte[2048]);
        TcpPacketBuilder tx = new TcpPacketBuilder();
        MpaFrame.Builder mpa = new MpaFrame.Builder();
        for (Injection inj : s.injections()) {
            ConnectionManager target = inj.toServer() ? p.b : p.a;
            CmNode node = find(target, inj.toServer());
            int len = build(tx, mpa, buf, inj, node);
            if (inj.mutateAt() % 3 == 0) {
                // through the device: its steering, the host stack's resets, an offloaded QP's TCP
                (inj.toServer() ? p.deviceB : p.deviceA).receive(buf, 0, len);
            } else {
                target.receive(buf, 0, len);
            }
            assertStates(p);
            for (int i = 0; i < inj.stepsAfter(); i++) {
                p.scheduler.runNext();
            }
        }
        p.runFor(2_000_000_000L);
        assertStates(p);
        // left alone for an hour, past every retransmission budget and the 60 s FIN timeout: only what a consumer
        // holds may still be there, never a node a hostile or silent peer alone keeps
        p.runFor(3_600_000_000_000L);
        LeakCheck.assertOnlyConsumersHold(p);

        // the consumers tear everything down, as iw_cm does when its ULP goes away
        for (int round = 0; round < 3; round++) {
            for (CmNode n : p.a.nodes()) {
                p.a.disconnect(n, round > 0);
            }
            for (CmNode n : p.b.nodes()) {
                if (n.state() == CmState.MPAREQ_RCVD || n.state() == CmState.LISTENER_DESTROYED) {
                    p.b.reject(n, new byte[0]);
                } else {
                    p.b.disconnect(n, round > 0);
                }
            }
            p.b.destroyListener(l);
            p.runUntilIdle(3_600_000_000_000L);
        }
        assertEquals(List.of(), bad, "the CM sent malformed frames");
        assertTrue(client.isDestroyed());
        LeakCheck.assertNothingHeld(p);
    }

    private static final Set<CmState> REACHABLE = EnumSet.complementOf(EnumSet.of(CmState.UNKNOWN,
            CmState.ONE_SIDE_ESTABLISHED, CmState.ACCEPTING, CmState.CLOSE_WAIT));

    private static void assertStates(CmPair p) {
        for (CmNode n : p.a.nodes()) {
            assertTrue(REACHABLE.contains(n.state()), n::toString);
        }
        for (CmNode n : p.b.nodes()) {
            assertTrue(REACHABLE.contains(n.state()), n::toString);
        }
    }

    private static CmNode find(ConnectionManager cm, boolean server) {
        for (CmNode n : cm.nodes()) {
            if (server ? n.remote().port() == CLIENT_PORT : n.local().port() == CLIENT_PORT) {
                return n;
            }
        }
        return null;
    }

    private static long pick(Seq how, long expected, byte[] random) {
        return switch (how) {
            case EXPECTED -> expected;
            case BEHIND -> expected - 1 - (random[0] & 0x7f) & 0xffff_ffffL;
            case AHEAD -> expected + 1 + (random[0] & 0xffff) & 0xffff_ffffL;
            case RANDOM -> ((random[0] & 0xffL) << 24 | (random.length > 1 ? (random[1] & 0xffL) << 8 : 0)) ^ 0x5a5a;
        };
    }

    private static int build(TcpPacketBuilder tx, MpaFrame.Builder mpa, BytesStore<?, ?> buf, Injection inj,
                             CmNode node) {
        boolean toServer = inj.toServer();
        int srcPort = toServer ? CLIENT_PORT + (inj.otherPort() ? 1 : 0) : PORT;
        int dstPort = toServer ? PORT : CLIENT_PORT;
        IpEndpoint src = toServer ? CmPair.A_V4 : CmPair.B_V4;
        IpEndpoint dst = toServer ? CmPair.B_V4 : CmPair.A_V4;
        long seqBase = node == null ? 1000 : node.rcvNxt;
        long ackBase = node == null ? 2000 : node.locSeq;
        tx.reset().ethernet(toServer ? CmPair.MAC_B : CmPair.MAC_A, toServer ? CmPair.MAC_A : CmPair.MAC_B)
                .addresses(src.addressHi(), src.addressLo(), dst.addressHi(), dst.addressLo());
        TcpHeader.Builder t = tx.tcp().reset().ports(srcPort, dstPort)
                .sequenceNumber(pick(inj.seq(), seqBase, inj.random()))
                .acknowledgmentNumber(pick(inj.ack(), ackBase, inj.random()))
                .flags(inj.flags()).window(inj.window());
        if ((inj.flags() & TcpHeader.SYN) != 0 && (inj.random()[0] & 1) == 0) {
            t.mss(inj.random()[0] & 0xff | 0x100).windowScale(inj.random()[0] & 0x1f);
        }
        BytesStore<?, ?> payload = BytesStore.wrap(new byte[600]);
        int plen = switch (inj.payload()) {
            case NONE -> 0;
            case RANDOM -> {
                payload.write(0, inj.random(), 0, inj.random().length);
                yield inj.random().length;
            }
            case MPA_REQUEST, MPA_REPLY, MPA_MUTATED -> {
                mpa.reset();
                if (inj.payload() == Payload.MPA_REPLY) {
                    mpa.reply();
                } else {
                    mpa.request();
                }
                mpa.revision(1 + (inj.random()[0] & 1)).flags(MpaFrame.FLAG_CRC);
                if ((inj.random()[0] & 1) == 1) {
                    mpa.rtr(inj.random().length, inj.mutateAt(), (inj.window() & 1) == 0, false, true,
                            (inj.window() & 2) == 0);
                }
                mpa.privateData(BytesStore.wrap(inj.random()), 0, inj.random().length);
                int n = mpa.build(payload, 0, payload.capacity());
                if (inj.payload() == Payload.MPA_MUTATED) {
                    int at = inj.mutateAt() % n;
                    payload.writeByte(at, (byte) (payload.readByte(at) ^ inj.mutateXor()));
                }
                yield n;
            }
        };
        return tx.build(buf, 0, payload, 0, plen);
    }
}
