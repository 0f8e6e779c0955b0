package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class FrameMailboxTest {
    private static BytesStore<?, Void> frame(int length, int fill) {
        BytesStore<?, Void> b = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, length));
        for (int i = 0; i < length; i++) {
            b.writeByte(i, (byte) (fill + i));
        }
        return b;
    }

    @Test
    void framesComeOutInOrderWithTheirBytesAcrossTheWrap() {
        try (FrameMailbox m = new FrameMailbox(3)) {
            List<String> seen = new ArrayList<>();
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 2; i++) {
                    BytesStore<?, Void> f = frame(60 + i, round * 10 + i);
                    assertTrue(m.offer(f, 0, 60 + i));
                    f.releaseLast();
                }
                assertEquals(2, m.pending());
                assertEquals(2, m.drain((s, o, l) -> seen.add(l + ":" + s.readByte(o) + ":" + s.readByte(o + l - 1)),
                        8));
            }
            assertEquals(10, seen.size());
            assertEquals("61:41:" + (byte) (41 + 60), seen.get(9), "the last frame, length and first/last bytes");
            assertEquals(10, m.frames());
        }
    }

    @Test
    void aFullMailboxAndAnOversizedOrEmptyFrameAreDroppedAndCounted() {
        try (FrameMailbox m = new FrameMailbox(2)) {
            BytesStore<?, Void> f = frame(FrameMailbox.MAX_FRAME + 1, 0);
            assertTrue(m.offer(f, 0, 64));
            assertTrue(m.offer(f, 0, FrameMailbox.MAX_FRAME));
            assertFalse(m.offer(f, 0, 64), "both slots taken");
            assertFalse(m.offer(f, 0, FrameMailbox.MAX_FRAME + 1), "longer than the E810's largest frame");
            assertFalse(m.offer(f, 0, 0), "empty");
            assertEquals(1, m.dropsFull());
            assertEquals(2, m.dropsOversize());
            assertEquals(1, m.drain((s, o, l) -> { }, 1), "the budget holds");
            assertEquals(1, m.pending());
            f.releaseLast();
        }
    }

    @Test
    void aClosedMailboxTakesNothingAndGivesNothing() {
        FrameMailbox m = new FrameMailbox(4);
        BytesStore<?, Void> f = frame(64, 1);
        assertTrue(m.offer(f, 0, 64));
        m.close();
        m.close();
        assertFalse(m.offer(f, 0, 64));
        assertEquals(0, m.drain((s, o, l) -> { throw new AssertionError("nothing after close"); }, 4));
        f.releaseLast();
    }

    /** One producer and one consumer thread, as two model loops: every frame arrives once, in order, intact. */
    @Test
    void aProducerAndAConsumerThreadLoseNothingThatWasAccepted() throws Exception {
        int n = 200_000;
        try (FrameMailbox m = new FrameMailbox(64)) {
            AtomicLong accepted = new AtomicLong();
            Thread producer = new Thread(() -> {
                BytesStore<?, Void> f = frame(128, 0);
                for (int i = 0; i < n; i++) {
                    f.writeInt(0, i);
                    f.writeInt(124, ~i);
                    while (!m.offer(f, 0, 128)) {
                        Thread.onSpinWait();
                    }
                    accepted.incrementAndGet();
                }
                f.releaseLast();
            });
            producer.start();
            int[] next = {0};
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (next[0] < n && System.nanoTime() < deadline) {
                m.drain((s, o, l) -> {
                    assertEquals(next[0], s.readInt(o), "in order");
                    assertEquals(~next[0], s.readInt(o + 124), "intact");
                    next[0]++;
                }, 32);
            }
            producer.join(10_000);
            assertEquals(n, next[0]);
            assertEquals(n, accepted.get());
        }
    }
}
