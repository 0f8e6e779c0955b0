package dev.irdmaemu.bridge.vhost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Named.named;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The event-index rule (virtio 1.x §2.7.7.2 for used_event, §2.7.10 for avail_event): notify when the index moved
 * from old to new past the event index, i.e. event in [old, new), every index a free-running 16-bit counter. The
 * cases that go wrong in an off-by-one or a missing modulo are the boundaries and the wrap from 0xffff to 0.
 */
class SplitVirtqueueEventIndexTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(named("event at old: the first new entry crosses it", 5), 6, 5, true),
                Arguments.of(named("event one before new: the last new entry crosses it", 7), 8, 5, true),
                Arguments.of(named("event at new: not reached yet", 8), 8, 5, false),
                Arguments.of(named("event before old: already passed, the driver is polling", 4), 8, 5, false),
                Arguments.of(named("nothing new: never", 5), 5, 5, false),
                Arguments.of(named("wrap: event 0xffff, old 0xfffe, new 1", 0xffff), 1, 0xfffe, true),
                Arguments.of(named("wrap: event 0, old 0xffff, new 0", 0), 0, 0xffff, false),
                Arguments.of(named("wrap: event 0, old 0xffff, new 1", 0), 1, 0xffff, true),
                Arguments.of(named("wrap: event 1, old 0xfff0, new 1", 1), 1, 0xfff0, false),
                Arguments.of(named("wrap: event 0xfff0, old 0xfff0, new 0x10", 0xfff0), 0x10, 0xfff0, true),
                Arguments.of(named("wrap: event 0xffef just before old 0xfff0", 0xffef), 0x10, 0xfff0, false),
                Arguments.of(named("a whole ring of 32768 new entries", 0x9000), 0x8000, 0, false),
                Arguments.of(named("event in a span of 32768 across the wrap", 0x2000), 0x4000, 0xc000, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void notifiesExactlyWhenTheEventIndexLiesInTheSpan(int event, int newIdx, int oldIdx, boolean expected) {
        assertEquals(expected, SplitVirtqueue.needEvent(event, newIdx, oldIdx));
    }

    /** Every event index against a span crossing the wrap: exactly the span's indices notify. */
    @org.junit.jupiter.api.Test
    void exactlyTheSpansIndicesNotifyAcrossTheWrap() {
        int oldIdx = 0xfffa;
        int newIdx = 0x0006; // 12 entries: 0xfffa..0xffff, 0..5
        int notified = 0;
        for (int event = 0; event <= 0xffff; event++) {
            boolean inSpan = event >= 0xfffa || event < 6;
            assertEquals(inSpan, SplitVirtqueue.needEvent(event, newIdx, oldIdx), "event 0x" + Integer.toHexString(event));
            notified += inSpan ? 1 : 0;
        }
        assertEquals(12, notified);
    }
}
