package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.model.port.EthernetPort;
import dev.irdmaemu.model.roce.RoceCounters;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * Hostile RoCEv2 frames at a UD QP in RTS (model.roce through the port's UDP 4791 steering): a valid UD SEND with
 * any opcode, destination QP, P_Key and Q_Key, then bytes flipped anywhere and the frame cut anywhere. The model
 * never throws out of its receive path, and every frame ends in exactly one place: placed into the QP's RQ or
 * dropped and counted by the RoCE engine, or (when the flips made it no UDP 4791 frame) taken by the port's other
 * routes, each of which counts it.
 */
class RoceHostileFrameProperties {
    private final RoceUdDataPathTest rig = new RoceUdDataPathTest();

    RoceHostileFrameProperties() {
        rig.up();
        for (int i = 0; i < 8; i++) {
            rig.postRecv(40 + 1024);
        }
    }

    @AfterProperty
    void close() {
        rig.close();
    }

    /** One byte position and the bits to flip there. */
    record Flip(int at, int bits) {
    }

    @Provide
    Arbitrary<List<Flip>> flips() {
        return Combinators.combine(Arbitraries.integers().between(0, 1200), Arbitraries.integers().between(1, 255))
                .as(Flip::new).list().ofMaxSize(6);
    }

    @Provide
    Arbitrary<BthOpcode> opcodes() {
        return Arbitraries.of(BthOpcode.values());
    }

    @Property(tries = 300)
    void everyFrameIsPlacedOrCountedAndNothingThrows(@ForAll("opcodes") BthOpcode op,
                                                     @ForAll @IntRange(min = 0, max = 40) int destQp,
                                                     @ForAll boolean goodPkey, @ForAll boolean goodQkey,
                                                     @ForAll @IntRange(min = 0, max = 1100) int payload,
                                                     @ForAll("flips") List<Flip> flips,
                                                     @ForAll @IntRange(min = 0, max = 1300) int cut) {
        RoceFrameShape shape = new RoceFrameShape(op, destQp, goodPkey, goodQkey, payload);
        byte[] frame;
        try {
            frame = rig.build(rig.peerFrame(op, destQp == 0 ? RoceUdDataPathTest.QP : destQp,
                            goodQkey ? RoceUdDataPathTest.GSI_QKEY : 0x4242, goodPkey ? 0xffff : 0x7001)
                    .partitionKey(goodPkey ? 0xffff : 0x7001), op.carriesPayload() ? payload : 0);
        } catch (IllegalArgumentException notRepresentable) {
            return; // the builder refuses what cannot be written (not the model's input)
        }
        for (Flip f : flips) {
            if (f.at() < frame.length) {
                frame[f.at()] ^= (byte) f.bits();
            }
        }
        if (cut > 0 && cut < frame.length) {
            frame = java.util.Arrays.copyOf(frame, cut);
        }
        long before = outcomes();
        rig.receive(frame);
        assertEquals(before + 1, outcomes(), () -> "one outcome for " + shape);
    }

    /** Everything a frame can end as, summed. */
    private long outcomes() {
        RoceCounters c = rig.counters();
        EthernetPort p = rig.node.dev.port();
        return c.received() + c.totalDropped() + p.rxLan() + p.rxPuda() + p.rxQp() + p.rxDropped();
    }

    record RoceFrameShape(BthOpcode op, int destQp, boolean goodPkey, boolean goodQkey, int payload) {
    }
}
