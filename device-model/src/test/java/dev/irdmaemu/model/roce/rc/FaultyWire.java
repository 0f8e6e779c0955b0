package dev.irdmaemu.model.roce.rc;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One direction of an in-memory cable with a seeded fault injector: each frame may be lost, duplicated, held back
 * behind the next ones (reordering) or have one byte flipped (the receiver's ICRC check must catch it). Frames are
 * copied when sent; {@link #drain} hands them over in wire order.
 */
final class FaultyWire implements RcWire {
    private final SplittableRandom random;
    double loss;
    double duplication;
    double reordering;
    double corruption;
    boolean cut;
    private final List<byte[]> queue = new ArrayList<>();
    private final List<byte[]> held = new ArrayList<>();
    long sent;
    long corrupted;

    FaultyWire(long seed) {
        random = new SplittableRandom(seed);
    }

    FaultyWire faults(double lossP, double duplicationP, double reorderingP, double corruptionP) {
        loss = lossP;
        duplication = duplicationP;
        reordering = reorderingP;
        corruption = corruptionP;
        return this;
    }

    @Override
    public void transmit(BytesStore<?, ?> frame, long offset, int length) {
        sent++;
        byte[] copy = new byte[length];
        frame.read(offset, copy, 0, length);
        if (cut || random.nextDouble() < loss) {
            return;
        }
        if (random.nextDouble() < corruption) {
            // past the Ethernet header: the IP, UDP, transport headers or payload
            int at = 14 + random.nextInt(Math.max(1, length - 14));
            copy[at] ^= (byte) (1 << random.nextInt(8));
            corrupted++;
        }
        if (random.nextDouble() < reordering) {
            held.add(copy);
            return;
        }
        queue.add(copy);
        if (random.nextDouble() < duplication) {
            queue.add(copy.clone());
        }
        if (!held.isEmpty() && random.nextDouble() < 0.5) {
            queue.addAll(held);
            held.clear();
        }
    }

    /** The frames on the wire now, held-back ones last; the wire is empty afterwards. */
    List<byte[]> drain() {
        List<byte[]> out = new ArrayList<>(queue);
        out.addAll(held);
        queue.clear();
        held.clear();
        return out;
    }

    boolean empty() {
        return queue.isEmpty() && held.isEmpty();
    }
}
