package dev.irdmaemu.bridge.lan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IcmpMessage;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Any bytes handed to the LAN responder: never an exception, every frame counted under exactly one outcome, and
 * everything it sends back is a well-formed frame from the port (an IP header and ICMP checksum that verify).
 */
class LanResponderProperties {
    private static final List<byte[]> GOOD = List.of(LanFrames.arpRequest(), LanFrames.echo(5, 6, 24),
            LanFrames.solicitation(), LanFrames.echo6(7, 8, 24));

    /** Byte {@code at} of the frame set to {@code value}. */
    record Flip(int at, int value) {
    }

    /**
     * Good frame {@code base} with a few bytes changed and, when one is, cut to its first {@code cutTo} bytes (when
     * not null): gets deep into the parsers.
     */
    record Mutation(int base, List<Flip> flips, Integer cutTo) {
        byte[] apply() {
            byte[] frame = GOOD.get(base).clone();
            for (Flip f : flips) {
                frame[f.at()] = (byte) f.value();
            }
            return !flips.isEmpty() && cutTo != null ? Arrays.copyOf(frame, cutTo) : frame;
        }
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        return Arbitraries.integers().between(0, GOOD.size() - 1).flatMap(base -> {
            int length = GOOD.get(base).length;
            Arbitrary<List<Flip>> flips = Combinators.combine(Arbitraries.integers().between(0, length - 1),
                    Arbitraries.integers().between(0, 255)).as(Flip::new).list().ofMaxSize(8)
                    .withSizeDistribution(RandomDistribution.uniform());
            Arbitrary<Integer> cutTo = Arbitraries.integers().between(0, length).injectNull(0.5);
            return Combinators.combine(flips, cutTo).as((f, c) -> new Mutation(base, f, c));
        });
    }

    @Property(tries = 3000)
    void anyBytesAreCountedOnceAndAnswersAreWellFormed(@ForAll @Size(max = 200) byte[] noise,
                                                       @ForAll("mutations") Mutation mutation,
                                                       @ForAll boolean mutateGoodFrame) {
        byte[] frame = mutateGoodFrame ? mutation.apply() : noise;
        List<byte[]> sent = new ArrayList<>();
        LanResponder responder = new LanResponder(LanFrames.MODEL, (s, o, l) -> {
            byte[] b = new byte[l];
            s.read(o, b, 0, l);
            sent.add(b);
        }, LanResponder.NeighbourSink.NONE);
        responder.frame(BytesStore.wrap(frame), 0, frame.length);
        long total = 0;
        for (LanOutcome o : LanOutcome.values()) {
            total += responder.count(o);
        }
        assertEquals(1, total);
        assertEquals(responder.answered(), sent.size());
        for (byte[] b : sent) {
            checkAnswer(b);
        }
    }

    private static void checkAnswer(byte[] b) {
        BytesStore<?, ?> s = BytesStore.wrap(b);
        EthernetFrame e = new EthernetFrame().wrap(s, 0, b.length);
        assertEquals(EthernetFrame.Status.ACCEPTED, e.validate());
        assertEquals(LanFrames.MODEL_MAC, e.source());
        assertTrue(b.length >= 60);
        if (e.etherType() == EthernetFrame.ETHERTYPE_IPV4) {
            Ipv4Header ip = new Ipv4Header().wrap(s, 14, b.length - 14);
            assertEquals(Ipv4Header.Status.ACCEPTED, ip.validate());
            assertTrue(InternetChecksum.verify(s, 34, ip.payloadLength(), 0));
        } else if (e.etherType() == EthernetFrame.ETHERTYPE_IPV6) {
            Ipv6Header ip = new Ipv6Header().wrap(s, 14, b.length - 14);
            assertEquals(Ipv6Header.Status.ACCEPTED, ip.validate());
            assertEquals(IcmpMessage.Status.ACCEPTED, new IcmpMessage().wrap(s, 54, ip.payloadLength())
                    .validateV6(ip.sourceHi(), ip.sourceLo(), ip.destinationHi(), ip.destinationLo()));
        } else {
            assertEquals(EthernetFrame.ETHERTYPE_ARP, e.etherType());
            assertEquals(ArpPacket.Status.ACCEPTED, new ArpPacket().wrap(s, 14, b.length - 14).validate());
        }
    }
}
