package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The order of a {@link ModelLoop}'s round under a controlled wall clock, the threads not started ({@link
 * ModelLoop#round()} run by hand): a retransmission timer whose deadline passed while a loop was not running must
 * not fire before the peer's ACK that was already on its way. The loops stand for the emulated E810 (a 5 ms RTO, as
 * the context's RTOMIN gives it) and the hosted node answering its data.
 */
class ModelLoopPacingTest {
    private static final long MS = 1_000_000L;
    /** A wall clock away from 0 (a kick's arrival is never 0). */
    private final long[] wall = {1_000 * MS};

    /** One end of the cable: a loop, its inbox of frames (each a runnable) and a log of what happened when. */
    private final class End {
        final SimScheduler scheduler = new SimScheduler(1);
        final ArrayDeque<Runnable> inbox = new ArrayDeque<>();
        final List<String> log = new ArrayList<>();
        final ModelLoop loop = new ModelLoop("end", scheduler, () -> wall[0], () -> {
            for (Runnable r; (r = inbox.poll()) != null; ) {
                r.run();
            }
            return false;
        });

        void note(String what) {
            log.add(what + "@" + scheduler.now() / MS);
        }
    }

    @Test
    void anAckQueuedBeforeTheDeadlineIsTakenBeforeTheOverdueTimer() {
        End e810 = new End();
        e810.loop.pace();
        SimTimer rto = e810.scheduler.newTimer("tcp-rto", () -> e810.note("rto"));
        rto.scheduleIn(5 * MS);
        // the peer's ACK reaches the mailbox 3 ms on; the E810's thread gets the CPU only 10 ms on
        wall[0] += 3 * MS;
        e810.inbox.add(() -> {
            e810.note("ack");
            rto.cancel();
        });
        e810.loop.kick();
        wall[0] += 7 * MS;
        e810.loop.round();
        assertEquals(List.of("ack@3"), e810.log, "the old order (timers, then frames) fired the RTO at 5 ms");
        assertEquals(10 * MS, e810.scheduler.now());
    }

    @Test
    void aFarEndThatHasNotRunHoldsTheTimersBackAndItsAckArrivesAtItsSimulatedTime() {
        End e810 = new End();
        End node = new End();
        e810.loop.keepBehind(node.loop);
        node.loop.keepBehind(e810.loop);
        e810.loop.pace();
        node.loop.pace();
        SimTimer rto = e810.scheduler.newTimer("tcp-rto", () -> e810.note("rto"));
        // the E810 sends a segment and arms its RTO; the node, kicked, answers with an ACK on its own thread
        rto.scheduleIn(5 * MS);
        e810.loop.round();
        node.inbox.add(() -> {
            node.note("data");
            e810.inbox.add(() -> {
                e810.note("ack");
                rto.cancel();
            });
            e810.loop.kickFromFarEnd(); // on the node's thread
        });
        node.loop.kickFromFarEnd(); // on the E810's thread
        // the host runs neither thread for 10 ms, then the E810's first
        wall[0] += 10 * MS;
        e810.loop.round();
        assertEquals(List.of(), e810.log, "held at the node's horizon: its kick not yet taken");
        assertEquals(0, e810.scheduler.now());
        assertTrue(e810.loop.horizon(wall[0]) <= wall[0]);
        node.loop.round();
        assertEquals(List.of("data@0"), node.log, "the data arrives when the E810 sent it");
        e810.loop.round();
        assertEquals(List.of("ack@0"), e810.log, "the ACK arrives at the node's simulated time, before the RTO");
        assertFalse(rto.isPending());
        assertEquals(10 * MS, e810.scheduler.now(), "and time catches up with the wall clock");
    }

    @Test
    void twoLoopsHoldingEachOtherBackStillReachThePresent() {
        End a = new End();
        End b = new End();
        a.loop.keepBehind(b.loop);
        b.loop.keepBehind(a.loop);
        a.loop.pace();
        b.loop.pace();
        a.scheduler.newTimer("a", () -> a.note("a")).scheduleIn(5 * MS);
        b.scheduler.newTimer("b", () -> b.note("b")).scheduleIn(7 * MS);
        a.loop.round();
        b.loop.round();
        wall[0] += 10 * MS;
        for (int i = 0; i < 3; i++) {
            a.loop.round();
            b.loop.round();
        }
        assertEquals(List.of("a@5"), a.log);
        assertEquals(List.of("b@7"), b.log);
        assertEquals(10 * MS, a.scheduler.now());
        assertEquals(10 * MS, b.scheduler.now());
    }

    @Test
    void anAckKickedWhileTheRoundRunsItsTasksStopsTheRoundBeforeTheTimer() {
        End e810 = new End();
        End node = new End();
        e810.loop.keepBehind(node.loop);
        node.loop.keepBehind(e810.loop);
        e810.loop.pace();
        node.loop.pace();
        SimTimer rto = e810.scheduler.newTimer("tcp-rto", () -> e810.note("rto"));
        rto.scheduleIn(15 * MS);
        wall[0] += 10 * MS;
        node.scheduler.runUntil(12 * MS);
        e810.loop.execute(() -> {
            // a guest access keeps the E810's round busy while the node, at 12 ms, acknowledges
            wall[0] += 10 * MS;
            e810.inbox.add(() -> {
                e810.note("ack");
                rto.cancel();
            });
            e810.loop.kickFromFarEnd(); // on the node's thread
        });
        e810.loop.round();
        assertEquals(List.of(), e810.log, "the round stops at the ACK's arrival, before the RTO at 15 ms");
        assertEquals(12 * MS, e810.scheduler.now());
        e810.loop.round();
        assertEquals(List.of("ack@12"), e810.log);
        assertEquals(20 * MS, e810.scheduler.now());
    }

    @Test
    void aLoopThatSendsToTheFarEndStopsThereForItsReply() {
        End e810 = new End();
        End node = new End();
        e810.loop.keepBehind(node.loop);
        node.loop.keepBehind(e810.loop);
        e810.loop.pace();
        node.loop.pace();
        SimTimer rto = e810.scheduler.newTimer("tcp-rto", () -> e810.note("rto"));
        // at 1 ms the E810 sends (a doorbell's work), arming a 5 ms RTO; the node answers at once
        e810.scheduler.newTimer("send", () -> {
            e810.note("send");
            rto.scheduleIn(5 * MS);
            node.inbox.add(() -> {
                node.note("data");
                e810.inbox.add(() -> {
                    e810.note("ack");
                    rto.cancel();
                });
                e810.loop.kickFromFarEnd(); // on the node's thread
            });
            node.loop.kickFromFarEnd(); // on the E810's thread
        }).scheduleIn(MS);
        wall[0] += 10 * MS;
        e810.loop.round();
        assertEquals(List.of("send@1"), e810.log, "the old single step ran on to 10 ms and fired the RTO at 6");
        assertEquals(MS, e810.scheduler.now());
        node.loop.round();
        e810.loop.round();
        assertEquals(List.of("send@1", "ack@1"), e810.log);
        assertEquals(List.of("data@1"), node.log);
        assertEquals(10 * MS, e810.scheduler.now());
    }
}
