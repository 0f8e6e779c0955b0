package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.IwarpTestDriver;
import dev.irdmaemu.model.IwarpTestDriver.Buffer;
import dev.irdmaemu.model.IwarpTestDriver.Completion;
import dev.irdmaemu.model.LeakCheck;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.trace.TraceKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * E810RdmaFunction.reset (issue 14, "a function reset that returns the whole block to power-on state"): two nodes
 * brought up as irdma's probe does, connected, a transfer in flight; both functions reset; then nothing is held
 * (LeakCheck from zero: no QP, CQ, STag, quad-hash entry, APBVT port, WS node, qs_handle, AH, timer), the PE
 * reads ready again, and the same two instances come up a second time and carry a Send.
 */
class FunctionResetTest {
    private static final int SEND_BYTES = 256 * 1024;
    private static final LeakCheck.Held NOTHING = new LeakCheck.Held(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    private final IwarpPair pair = new IwarpPair(64L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    @Test
    void aResetInTheMiddleOfATransferLeavesNothingHeldAndTheFunctionComesUpAgain() {
        IwarpPair.Conn c = pair.connect(5, 6, false);
        Buffer src = pair.a.buffer(SEND_BYTES, MemoryRegions.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(SEND_BYTES, MemoryRegions.LOCAL_WRITE);
        pair.b.postRecv(c.passive, new SgeList().add(dst.gpa(), SEND_BYTES, dst.stag()));
        pair.a.postSend(c.active, SqOpcode.RDMA_SEND, new SgeList().add(src.gpa(), SEND_BYTES, src.stag()),
                SqWqe.SIGNALED, 0);
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

        // The same instances, brought up again by a driver that starts over.
        pair.a.bringUpAgainAfterReset();
        pair.b.bringUpAgainAfterReset();
        assertTrue(pair.a.addArp(IwarpPair.ARP_INDEX, IwarpPair.MAC_B) && pair.b.addArp(IwarpPair.ARP_INDEX,
                IwarpPair.MAC_A));
        IwarpPair.Conn again = pair.connect(5, 6, false);
        Buffer s2 = pair.a.buffer(4096, MemoryRegions.LOCAL_WRITE);
        Buffer d2 = pair.b.buffer(4096, MemoryRegions.LOCAL_WRITE);
        pair.a.fill(s2.gpa(), 4096, 77);
        pair.b.postRecv(again.passive, new SgeList().add(d2.gpa(), 4096, d2.stag()));
        pair.a.postSend(again.active, SqOpcode.RDMA_SEND, new SgeList().add(s2.gpa(), 4096, s2.stag()),
                SqWqe.SIGNALED, 0);
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = pair.b.poll(again.bCq)) != null, 500_000_000L);
        assertFalse(got[0].error());
        assertEquals(4096, got[0].bytes());
        assertEquals(pair.a.checksum(s2.gpa(), 4096), pair.b.checksum(d2.gpa(), 4096));
    }
}
