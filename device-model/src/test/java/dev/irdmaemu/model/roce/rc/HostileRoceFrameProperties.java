package dev.irdmaemu.model.roce.rc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.roce.Bth;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.Icrc;
import dev.irdmaemu.fw.roce.PathMtu;
import dev.irdmaemu.fw.roce.RoceFrameBuilder;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Hostile RoCE frames thrown at an RC engine in every state it can be in (before RTR, RTR, RTS idle, in the middle
 * of a SEND or a WRITE, after a NAK PSN sequence error, with no RQ WQE, with requests of its own in flight, in
 * ERROR): opcodes known and unknown, PSNs near the expected one and anywhere in the 24-bit circle, payloads around
 * the path MTU and beyond, RETH lengths and keys that do and do not fit, AETH syndromes of every kind, pad counts,
 * transport versions and opcodes patched with a fresh ICRC (so they reach the transport checks), flipped bytes and
 * truncations (so they must not). Whatever comes, nothing is thrown out of the engine and every frame is counted
 * in exactly one receipt.
 */
class HostileRoceFrameProperties {
    enum Setup {
        RESET, READY_TO_RECEIVE, IDLE, MID_SEND, MID_WRITE, SEQUENCE_NAKED, NO_RECEIVE_WQE, REQUESTS_IN_FLIGHT, ERROR
    }

    private static final BthOpcode[] OPCODES = BthOpcode.values();
    private static final int IP = 14;
    private static final int BTH = IP + 20 + 8;

    @Property(tries = 400)
    void everyHostileFrameIsCountedAndNothingIsThrown(@ForAll Setup setup, @ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        RcPair pair = drive(setup, r);
        RcEngine b = pair.b.engine;
        BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(9000);
        BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(9000);
        RoceFrameBuilder builder = new RoceFrameBuilder();
        int frames = 1 + r.nextInt(40);
        for (int i = 0; i < frames; i++) {
            long before = b.counters().receivedTotal();
            int length = hostile(r, builder, frame, payload, pair);
            b.receive(frame, 0, length, pair.now);
            assertEquals(before + 1, b.counters().receivedTotal(), "frame " + i + " counted once");
            b.service(pair.now, 8);
            pair.now += r.nextInt(2_000_000);
            pair.a.out.drain();
            pair.b.out.drain();
        }
    }

    private static RcPair drive(Setup setup, SplittableRandom r) {
        RcPair pair = new RcPair(r.nextLong(), PathMtu.MTU_1024, r.nextInt(1 << 24), r.nextInt(1 << 24));
        if (setup == Setup.RESET) {
            return pair;
        }
        if (setup == Setup.READY_TO_RECEIVE) {
            pair.b.engine.modify(RcState.READY_TO_RECEIVE, 0);
            pair.a.engine.modify(RcState.READY_TO_RECEIVE, 0);
            pair.a.engine.modify(RcState.READY_TO_SEND, 0);
        } else {
            pair.up();
        }
        if (setup != Setup.NO_RECEIVE_WQE) {
            for (int i = 0; i < 4; i++) {
                pair.b.rq.post(100 + i, RcPair.va(RcPair.RECEIVE) + i * 8192L, 8192, RcPair.RECEIVE);
            }
        }
        SendRequest w = new SendRequest();
        switch (setup) {
            case MID_SEND, MID_WRITE, SEQUENCE_NAKED -> {
                SendOpcode op = setup == Setup.MID_WRITE ? SendOpcode.RDMA_WRITE : SendOpcode.SEND;
                w.reset(op, 1, true).add(RcPair.va(RcPair.SOURCE), 3000, RcPair.SOURCE);
                w.remote(RcPair.va(RcPair.TARGET), RcPair.TARGET);
                pair.a.engine.post(w);
                pair.a.engine.service(pair.now, 2);
                java.util.List<byte[]> sent = pair.a.out.drain();
                byte[] f = sent.get(setup == Setup.SEQUENCE_NAKED ? 1 : 0);
                BytesStore<?, Void> rx = BytesStore.nativeStoreWithFixedCapacity(f.length);
                rx.write(0, f, 0, f.length);
                pair.b.engine.receive(rx, 0, f.length, pair.now);
            }
            case REQUESTS_IN_FLIGHT -> {
                w.reset(SendOpcode.RDMA_WRITE, 1, true).add(RcPair.va(RcPair.SOURCE), 5000, RcPair.SOURCE);
                w.remote(RcPair.va(RcPair.TARGET), RcPair.TARGET);
                pair.b.engine.post(w);
                w.reset(SendOpcode.RDMA_READ, 2, true).add(RcPair.va(RcPair.SINK), 5000, RcPair.SINK);
                w.remote(RcPair.va(RcPair.EXPOSED), RcPair.EXPOSED);
                pair.b.engine.post(w);
                pair.b.engine.service(pair.now, 64);
            }
            case ERROR -> pair.b.engine.modify(RcState.ERROR, 0);
            default -> {
            }
        }
        pair.b.out.drain();
        return pair;
    }

    /** Builds one hostile frame into {@code frame}; answers its length. */
    private static int hostile(SplittableRandom r, RoceFrameBuilder b, BytesStore<?, Void> frame,
                               BytesStore<?, Void> payload, RcPair pair) {
        RcEngine e = pair.b.engine;
        int code = r.nextInt(10) < 8 ? OPCODES[r.nextInt(OPCODES.length)].code() : r.nextInt(256);
        BthOpcode op = BthOpcode.lookup(code).orElse(BthOpcode.RC_SEND_ONLY);
        int psn = switch (r.nextInt(4)) {
            case 0 -> e.expectedPsn() + (r.nextBoolean() ? 0 : r.nextInt(-4, 5));
            case 1 -> e.nextPsn() + r.nextInt(-12, 4);
            case 2 -> e.expectedPsn() + (r.nextBoolean() ? 1 : -1) * r.nextInt(1 << 23);
            default -> r.nextInt(1 << 24);
        };
        int n = !op.carriesPayload() ? 0 : switch (r.nextInt(6)) {
            case 0 -> 0;
            case 1 -> 1024;
            case 2 -> 1023 + r.nextInt(3);
            case 3 -> r.nextInt(64);
            case 4 -> 4096 + r.nextInt(200);
            default -> r.nextInt(3000);
        };
        int[] keys = {RcPair.TARGET, RcPair.EXPOSED, RcPair.SINK, r.nextInt()};
        int key = keys[r.nextInt(keys.length)];
        long va = RcPair.va(key) + (r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(RcPair.REGION));
        int dma = switch (r.nextInt(4)) {
            case 0 -> n;
            case 1 -> n + 1 + r.nextInt(5000);
            case 2 -> r.nextInt();
            default -> r.nextInt(RcPair.REGION);
        };
        b.reset();
        pair.b.path.applyTo(b);
        b.ethernet(0x02_00_00_00_00_0bL, 0x02_00_00_00_00_0aL).ipv4(0x0a00_0001, 0x0a00_0002)
                .bth(op, r.nextInt(10) == 0 ? r.nextInt(1 << 24) : pair.b.path.localQpn(), psn)
                .flags(r.nextBoolean(), false, r.nextBoolean()).partitionKey(r.nextInt(20) == 0 ? r.nextInt(1 << 16)
                        : 0xffff).reth(va, key, dma).aeth(r.nextInt(256), r.nextInt(1 << 24)).immediate(r.nextInt())
                .invalidate(keys[r.nextInt(keys.length)]).deth(r.nextInt(), r.nextInt(1 << 24))
                .ecn(r.nextBoolean(), r.nextBoolean());
        int length = b.build(frame, 0, payload, 0, n);
        switch (r.nextInt(7)) {
            case 0 -> patch(frame, length, BTH + Bth.OFF_FLAGS, (frame.readUnsignedByte(BTH + 1) & ~Bth.PAD_MASK)
                    | r.nextInt(4) << 4);
            case 1 -> patch(frame, length, BTH + Bth.OFF_OPCODE, r.nextInt(256));
            case 2 -> patch(frame, length, BTH + Bth.OFF_FLAGS, frame.readUnsignedByte(BTH + 1) | 1 + r.nextInt(15));
            case 3 -> {
                long at = r.nextInt(length);
                frame.writeByte(at, (byte) (frame.readByte(at) ^ 1 << r.nextInt(8)));
            }
            case 4 -> length = 1 + r.nextInt(length);
            default -> {
            }
        }
        return length;
    }

    /** Writes {@code value} at {@code at} and a fresh ICRC, so the frame reaches the transport's checks. */
    private static void patch(BytesStore<?, Void> frame, int length, long at, int value) {
        frame.writeByte(at, (byte) value);
        Icrc.write(frame, length - Icrc.LENGTH, Icrc.compute(frame, IP, 20, false, length - Icrc.LENGTH));
    }
}
