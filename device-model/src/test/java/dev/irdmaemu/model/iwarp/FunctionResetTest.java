package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.LeakCheck;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import dev.irdmaemu.model.trace.TraceKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * E810RdmaFunction.reset (issue 14, "a function reset that returns the whole block to power-on state"): two nodes
 * brought up by the real driver, connected, a transfer in flight; the drivers removed (irdma_remove), both
 * functions reset; then nothing is held
 * (LeakCheck from zero: no QP, CQ, STag, quad-hash entry, APBVT port, WS node, qs_handle, AH, timer), the PE
 * reads ready again, and the same two instances come up a second time under a new driver and carry a Send.
 */
class FunctionResetTest {
    private static final int SEND_BYTES = 256 * 1024;
    private static final LeakCheck.Held NOTHING = new LeakCheck.Held(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    private final DriverPair pair = new DriverPair(64L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    @Test
    void aResetInTheMiddleOfATransferLeavesNothingHeldAndTheFunctionComesUpAgain() {
        DriverPair.Conn c = pair.connect(false);
        Buffer src = pair.a.buffer(SEND_BYTES, Access.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(SEND_BYTES, Access.LOCAL_WRITE);
        pair.b.postRecv(c.passive, dst.gpa(), SEND_BYTES, dst.stag());
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa(), SEND_BYTES, src.stag()));
        pair.run(20_000); // 20 us: segments on the wire, retransmission and delayed-ACK timers armed
        E810RdmaFunction a = pair.a.dev();
        E810RdmaFunction b = pair.b.dev();
        assertTrue(a.iwarp().liveEngines() > 0 && a.qps().liveCount() > 0 && a.stags().liveCount() > 0
                && a.quadHash().establishedCount() > 0 && a.apbvt().size() > 0, "the transfer holds objects");
        assertTrue(pair.scheduler.pendingTimers() > 0, "timers armed mid-transfer");

        // And a CQP teardown (PFPE_CCQPLOW = 0, irdma_sc_cqp_destroy) the engine has not served yet: its timer is
        // armed when the reset comes.
        a.write32(Gen2Register.CCQPLOW.offset(), 0);
        assertTrue(pair.scheduler.describePending().contains("cqp-create"), pair.scheduler.describePending());
        dev.irdmaemu.model.port.FrameTransmitter wire = a.port().transmitter();
        dev.irdmaemu.model.port.LanSink lan = a.port().lanSink();
        dev.irdmaemu.model.port.EthernetPort oldPort = a.port();
        pair.a.removeDriver();
        pair.b.removeDriver();
        a.reset();
        b.reset();
        assertTrue(a.port() != oldPort, "a new port");
        assertTrue(a.port().transmitter() == wire && a.port().lanSink() == lan, "the host's wiring stays");
        // Only frames already on the wire are left: every engine, TCP, CQP, port and interrupt timer is disarmed.
        String pending = pair.scheduler.describePending();
        for (String event : pending.isEmpty() ? new String[0] : pending.split(", ")) {
            assertTrue(event.startsWith("link-delivery@"), "still armed after the reset: " + pending);
        }
        // Frames still on the wire reach the new ports and find no QP; nothing is re-armed.
        assertTrue(pair.scheduler.runUntilIdle(pair.scheduler.now() + 1_000_000_000L), "the model goes idle");
        for (E810RdmaFunction dev : new E810RdmaFunction[] {a, b}) {
            LeakCheck.assertNoLeak(NOTHING, dev, "a function reset");
            assertEquals(0, dev.iwarp().liveEngines());
            assertFalse(dev.cqp().created(), "the CQP is gone");
            assertEquals(0x80, dev.read32(Gen2Register.GLPE_CPUSTATUS0.offset()));
            assertEquals(0, dev.read32(Gen2Register.GLINT_DYN_CTL.at(1)), "DYN_CTL back to power-on");
            assertEquals(0, dev.hmc().count(HmcObjectType.QP), "no HMC committed");
            assertEquals(1, dev.resets());
        }
        assertTrue(pair.a.traceSink().events().stream().anyMatch(e -> e.kind() == TraceKind.FUNCTION_RESET));

        // The same instances, brought up again by a new driver (irdma's probe after the reset).
        pair.a.probeAgain();
        pair.b.probeAgain();
        pair.a.driver().cqp().manageArp(DriverPair.ARP_INDEX, DriverPair.MAC_B, true);
        pair.b.driver().cqp().manageArp(DriverPair.ARP_INDEX, DriverPair.MAC_A, true);
        DriverPair.Conn again = pair.connect(false);
        Buffer s2 = pair.a.buffer(4096, Access.LOCAL_WRITE);
        Buffer d2 = pair.b.buffer(4096, Access.LOCAL_WRITE);
        pair.a.fill(s2.gpa(), 4096, 77);
        pair.b.postRecv(again.passive, d2.gpa(), 4096, d2.stag());
        pair.a.post(again.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(s2.gpa(), 4096, s2.stag()));
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = pair.b.poll(again.bCq)) != null, 500_000_000L);
        assertFalse(got[0].error());
        assertEquals(4096, got[0].bytes());
        assertEquals(pair.a.checksum(s2.gpa(), 4096), pair.b.checksum(d2.gpa(), 4096));
    }
}
