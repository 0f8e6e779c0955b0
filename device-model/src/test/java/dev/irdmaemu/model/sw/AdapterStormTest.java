package dev.irdmaemu.model.sw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810PhysicalFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.port.EthernetPort;
import dev.irdmaemu.model.trace.Trace;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two whole functions on one switch, as ice programs them, and a guest that floods: frames toward a function's own
 * MAC (or the other's) faster than the receive side takes them cost one receive-FIFO slot each; the rest are dropped
 * and counted, the model's thread never loops and the functions receive again once the flood has drained. A
 * function reset rebuilds its port, and the switch reaches the new one.
 */
class AdapterStormTest {
    private static final long MAC0 = 0x02_00_5E_10_00_01L;
    private static final long MAC1 = 0x02_00_5E_10_00_02L;
    private static final int FLOOD = 10_000;

    private final SimScheduler scheduler = new SimScheduler(3);
    private HostRam ram;
    private E810PhysicalFunction pf0;
    private E810PhysicalFunction pf1;
    private AdapterSwitch fabric;
    private long uplinkFrames;

    @BeforeEach
    void twoFunctionsOnOneSwitch() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 4L << 20);
        pf0 = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler), new LatencyTable(), 0, MAC0, 7,
                InterruptSink.NONE);
        pf1 = new E810PhysicalFunction(scheduler, ram.memory(), new Trace(scheduler), new LatencyTable(), 1, MAC1, 7,
                InterruptSink.NONE);
        fabric = new AdapterSwitch(scheduler);
        pf0.attachTo(fabric);
        pf1.attachTo(fabric);
        fabric.uplink((s, o, l) -> uplinkFrames++);
        SwitchBench ice = new SwitchBench(scheduler, fabric, List.of(pf0.switchAndScheduler(),
                pf1.switchAndScheduler()));
        int vsi0 = ice.addPfVsi(0, dev.irdmaemu.fw.aq.VsiCommand.SW_FLAG_ALLOW_LB);
        int vsi1 = ice.addPfVsi(1, dev.irdmaemu.fw.aq.VsiCommand.SW_FLAG_ALLOW_LB);
        ice.addMacRule(0, MAC0, vsi0, SwitchBench.UNICAST_ACT);
        ice.addMacRule(1, MAC1, vsi1, SwitchBench.UNICAST_ACT);
    }

    @AfterEach
    void release() {
        ram.close();
    }

    @Test
    void aFloodTowardTheOwnMacIsBoundedByTheReceiveFifoAndCounted() {
        BytesStore<?, ?> frame = SwitchBench.frameTo(MAC0, MAC0);
        EthernetPort port = pf0.rdma().port();
        for (int i = 0; i < FLOOD; i++) {
            port.transmit(frame, 0, 64);
        }
        assertEquals(FLOOD, fabric.counters().switched(), "every frame went back into the adapter");
        assertEquals(0, uplinkFrames, "none reached the cable");
        assertEquals(EthernetPort.RX_SLOTS, port.rxQueued(), "the receive FIFO holds what it can");
        assertEquals(FLOOD - EthernetPort.RX_SLOTS, port.rxOverflow(), "the rest is dropped and counted");
        assertTrue(scheduler.runUntilIdle(1_000_000_000L));
        assertEquals(0, port.rxQueued(), "the FIFO drains");
        port.transmit(frame, 0, 64);
        assertTrue(scheduler.runUntilIdle(1_000_000_000L));
        assertEquals(FLOOD + 1, port.rxFrames(), "and takes frames again");
        assertEquals(FLOOD - EthernetPort.RX_SLOTS, port.rxOverflow());
    }

    @Test
    void aFloodTowardTheOtherFunctionDoesNotTouchTheSender() {
        BytesStore<?, ?> frame = SwitchBench.frameTo(MAC1, MAC0);
        for (int i = 0; i < FLOOD; i++) {
            pf0.rdma().port().transmit(frame, 0, 64);
        }
        assertEquals(FLOOD - EthernetPort.RX_SLOTS, pf1.rdma().port().rxOverflow());
        assertEquals(0, pf0.rdma().port().rxFrames(), "the sender receives nothing of it");
        assertTrue(scheduler.runUntilIdle(1_000_000_000L), "the flood drains");
    }

    @Test
    void afterAFunctionResetTheSwitchReachesItsNewPort() {
        EthernetPort before = pf1.rdma().port();
        pf1.rdma().reset();
        EthernetPort after = pf1.rdma().port();
        assertTrue(before != after, "a reset rebuilds the port");
        pf0.rdma().port().transmit(SwitchBench.frameTo(MAC1, MAC0), 0, 64);
        assertEquals(1, after.rxFrames(), "the new port gets the frame");
        assertEquals(0, before.rxFrames());
        after.transmit(SwitchBench.frameTo(MAC0, MAC1), 0, 64);
        assertEquals(1, pf0.rdma().port().rxFrames(), "and its frames still go through the switch");
    }
}
