package dev.irdmaemu.model.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Timers, windows and closing: RTO back-off, persist probes, FIN both ways, RST. */
class OffloadedTcpLifecycleTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;

    private static TcpPair warmPair() {
        TcpPair pair = new TcpPair(11, FaultProfile.NONE, FaultProfile.NONE);
        pair.a.write(256 * 1024); // gives A's estimator RTT samples: its RTO sits at the 200 ms floor
        pair.b.write(16 * 1024);
        pair.runUntilQuiet(10 * SECOND);
        assertEquals(256 * 1024, pair.b.received);
        return pair;
    }

    @Test
    void eventsMapToTheAeCodesIrdmaHandles() {
        // irdma defs.h IRDMA_AE_LLP_*: the codes irdma_process_aeq acts on.
        assertEquals(AeCode.LLP_CONNECTION_RESET, TcpEvent.CONNECTION_RESET.aeCode());
        assertEquals(0x0502, TcpEvent.CONNECTION_RESET.aeCode().code());
        assertEquals(0x050a, TcpEvent.TOO_MANY_RETRIES.aeCode().code());
        assertEquals(0x0503, TcpEvent.FIN_RECEIVED.aeCode().code());
        assertEquals(0x0501, TcpEvent.CLOSE_COMPLETE.aeCode().code());
        assertEquals(11, TcpState.TIME_WAIT.hardwareCode()); // defs.h IRDMA_TCP_STATE_TIME_WAIT
    }

    @Test
    void retransmissionTimeoutDoublesThenTheConnectionGivesUp() {
        try (TcpPair pair = warmPair()) {
            OffloadedTcp a = pair.a.engine;
            assertEquals(TcpConnectionParams.DEFAULT_RTO_MIN, a.retransmissionTimeout());
            pair.a.cut = true; // the peer vanished
            long sentAt = pair.scheduler.now();
            pair.a.write(8 * 1024); // leaves at once (the transmit kick runs at the current instant)
            pair.scheduler.runFor(1 * MS);
            assertTrue(a.retransmitTimer().isPending());
            List<Long> intervals = new ArrayList<>();
            intervals.add(a.retransmitTimer().deadline() - sentAt);
            while (a.state() == TcpState.ESTABLISHED) {
                long deadline = a.retransmitTimer().deadline();
                pair.scheduler.runUntil(deadline);
                if (a.retransmitTimer().isPending()) {
                    intervals.add(a.retransmitTimer().deadline() - deadline);
                }
            }
            // RFC 6298 §5.5: each expiry doubles the RTO; rexmit_thresh (8, irdma cm.h) retransmissions, then the
            // ninth expiry gives up with LLP_TOO_MANY_RETRIES.
            long rto = TcpConnectionParams.DEFAULT_RTO_MIN;
            assertEquals(9, intervals.size(), intervals.toString());
            for (long interval : intervals) {
                assertEquals(rto, interval, intervals.toString());
                rto *= 2;
            }
            assertEquals(9, a.counters().timeouts());
            assertEquals(List.of(TcpEvent.TOO_MANY_RETRIES), pair.a.events);
            assertEquals(TcpState.CLOSED, a.state());
            assertFalse(a.retransmitTimer().isPending());
            assertEquals(8, a.counters().retransmittedSegments());
        }
    }

    @Test
    void backOffIsCappedAndForgottenOnProgress() {
        try (TcpPair pair = warmPair()) {
            OffloadedTcp a = pair.a.engine;
            pair.a.cut = true;
            pair.a.write(4 * 1024);
            pair.scheduler.runFor(200 * MS + 400 * MS + 1);
            assertEquals(2, a.counters().timeouts());
            assertEquals(800 * MS, a.retransmissionTimeout());
            pair.a.cut = false;
            pair.runUntilQuiet(10 * SECOND);
            assertEquals(256 * 1024 + 4 * 1024, pair.b.received);
            assertEquals(TcpConnectionParams.DEFAULT_RTO_MIN, a.retransmissionTimeout());
            assertEquals(0, a.consecutiveTimeouts());
            assertTrue(pair.a.events.isEmpty());
        }
    }

    @Test
    void zeroWindowIsProbedThenReopened() {
        try (TcpPair pair = warmPair()) {
            long start = pair.b.received;
            pair.b.hold = true;
            pair.b.receiveCapacity = 64 * 1024; // the upper layer keeps everything: window closes after 64 KiB
            pair.a.write(512 * 1024);
            pair.scheduler.runFor(3 * SECOND);
            OffloadedTcp a = pair.a.engine;
            assertEquals(64 * 1024, pair.b.received - start);
            assertEquals(0, a.sendWindow());
            assertTrue(a.persistTimer().isPending());
            // Probes 200, 400, 800 ms ... apart (the RTO, doubled each time): three or four in 3 s.
            assertTrue(a.counters().persistProbes() >= 3 && a.counters().persistProbes() <= 4, "probes " + a.counters().persistProbes());
            assertEquals(0, a.counters().timeouts(), "probes are not retransmissions");
            assertEquals(0, a.consecutiveTimeouts());
            assertTrue(pair.a.events.isEmpty());
            assertEquals(0, pair.b.mismatches);

            pair.b.release();
            pair.runUntilQuiet(10 * SECOND);
            assertEquals(512 * 1024, pair.b.received - start);
            assertEquals(0, pair.b.mismatches);
            assertFalse(a.persistTimer().isPending());
            assertTrue(a.sendWindow() > 0);
        }
    }

    @Test
    void zeroWindowReopensOnAProbeWhenTheUpdateIsLost() {
        try (TcpPair pair = warmPair()) {
            long start = pair.b.received;
            pair.b.hold = true;
            pair.b.receiveCapacity = 32 * 1024;
            pair.a.write(100 * 1024);
            pair.scheduler.runFor(100 * MS);
            assertEquals(0, pair.a.engine.sendWindow());
            pair.b.cut = true; // the window update B sends on release is lost
            pair.b.release();
            pair.b.cut = false;
            pair.runUntilQuiet(10 * SECOND);
            assertEquals(100 * 1024, pair.b.received - start);
            assertTrue(pair.a.engine.counters().persistProbes() >= 1);
        }
    }

    @Test
    void activeCloseThenPassiveClose() {
        try (TcpPair pair = warmPair()) {
            pair.a.write(10_000);
            pair.a.engine.close();
            assertEquals(TcpState.FIN_WAIT_1, pair.a.engine.state());
            assertFalse(pair.a.engine.send(pair.a.chunk, 0, 1), "no sending after close");
            pair.scheduler.runFor(100 * MS);
            assertEquals(256 * 1024 + 10_000, pair.b.received, "data before the FIN is delivered");
            assertEquals(TcpState.FIN_WAIT_2, pair.a.engine.state());
            assertEquals(TcpState.CLOSE_WAIT, pair.b.engine.state());
            assertEquals(List.of(TcpEvent.FIN_RECEIVED), pair.b.events);
            // CLOSE_WAIT still sends (half-close, RFC 9293 §3.6).
            pair.b.write(5_000);
            pair.scheduler.runFor(100 * MS);
            assertEquals(16 * 1024 + 5_000, pair.a.received);
            pair.b.engine.close();
            assertEquals(TcpState.LAST_ACK, pair.b.engine.state());
            pair.scheduler.runFor(100 * MS);
            assertEquals(TcpState.CLOSED, pair.b.engine.state());
            assertEquals(List.of(TcpEvent.FIN_RECEIVED, TcpEvent.CLOSE_COMPLETE), pair.b.events);
            assertEquals(TcpState.TIME_WAIT, pair.a.engine.state());
            assertEquals(List.of(TcpEvent.FIN_RECEIVED, TcpEvent.CLOSE_COMPLETE), pair.a.events);
            pair.scheduler.runFor(TcpConnectionParams.DEFAULT_TIME_WAIT + SECOND);
            assertEquals(TcpState.CLOSED, pair.a.engine.state());
            assertEquals(0, pair.a.mismatches + pair.b.mismatches);
        }
    }

    @Test
    void simultaneousCloseGoesThroughClosing() {
        try (TcpPair pair = warmPair()) {
            pair.a.engine.close();
            pair.b.engine.close();
            pair.scheduler.runFor(1 * MS);
            assertEquals(TcpState.TIME_WAIT, pair.a.engine.state());
            assertEquals(TcpState.TIME_WAIT, pair.b.engine.state());
            assertEquals(List.of(TcpEvent.FIN_RECEIVED, TcpEvent.CLOSE_COMPLETE), pair.a.events);
            assertEquals(List.of(TcpEvent.FIN_RECEIVED, TcpEvent.CLOSE_COMPLETE), pair.b.events);
        }
    }

    @Test
    void closeSurvivesALostFin() {
        try (TcpPair pair = warmPair()) {
            pair.a.cut = true;
            pair.a.engine.close();
            pair.scheduler.runFor(1 * MS);
            pair.a.cut = false;
            pair.scheduler.runFor(SECOND); // the FIN is resent on the RTO
            assertEquals(TcpState.FIN_WAIT_2, pair.a.engine.state());
            assertEquals(TcpState.CLOSE_WAIT, pair.b.engine.state());
            assertEquals(1, pair.a.engine.counters().timeouts());
        }
    }

    @Test
    void abortSendsResetAndThePeerReportsIt() {
        try (TcpPair pair = warmPair()) {
            pair.a.write(100_000);
            pair.scheduler.runFor(10_000); // some of it in flight
            pair.a.engine.abort();
            assertEquals(TcpState.CLOSED, pair.a.engine.state());
            pair.scheduler.runFor(100 * MS);
            assertEquals(List.of(TcpEvent.CONNECTION_RESET), pair.b.events);
            assertEquals(TcpState.CLOSED, pair.b.engine.state());
            assertEquals(1, pair.b.engine.counters().resetsReceived());
            assertTrue(pair.a.events.isEmpty(), "the side that aborts raises nothing");
            assertEquals(0, pair.scheduler.pendingTimers() - pair.link.framesInFlight());
        }
    }
}
