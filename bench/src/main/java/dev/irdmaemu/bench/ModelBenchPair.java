package dev.irdmaemu.bench;

import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.cm.LocalAddress;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.cm.driver.ModelHardwarePort;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.E810RdmaFunction;
import java.util.List;

/**
 * Two E810 models, each brought up by the cm driver layer with a ModelHardwarePort and a ConnectionManager, on one
 * link (CmPair's addresses and MACs), tracing off: what the model benchmarks drive. (The bridge's ModelPair is
 * the same assembly; bench does not depend on qemu-bridge.)
 */
final class ModelBenchPair implements AutoCloseable {
    final SimScheduler scheduler = new SimScheduler(1);
    final Link link;
    final Node a;
    final Node b;

    static final class Node {
        final HostMemory memory;
        final HostRam ram;
        final IrdmaDriver driver;
        final E810RdmaFunction device;
        final ModelHardwarePort port;
        final ConnectionManager cm;

        Node(SimScheduler s, Link link, long mac, List<LocalAddress> addresses) {
            BenchNode node = BenchNode.bringUp(s, link, mac);
            memory = node.memory();
            ram = node.ram();
            driver = node.driver();
            device = node.device();
            port = new ModelHardwarePort(driver, mac, addresses);
            cm = new ConnectionManager(port);
        }
    }

    ModelBenchPair(FrameTap tap) {
        link = new Link(scheduler, tap);
        a = new Node(scheduler, link, CmPair.MAC_A, List.of(LocalAddress.of(CmPair.A_V4, 0xffff),
                LocalAddress.of(CmPair.A_V6, 0xffff)));
        b = new Node(scheduler, link, CmPair.MAC_B, List.of(LocalAddress.of(CmPair.B_V4, 0xffff),
                LocalAddress.of(CmPair.B_V6, 0xffff)));
        ModelHardwarePort.neighbours(a.port, b.port);
    }

    boolean runUntilIdle(long limitNanos) {
        return scheduler.runUntilIdle(scheduler.now() + limitNanos);
    }

    @Override
    public void close() {
        a.driver.tearDown();
        b.driver.tearDown();
        a.ram.close();
        b.ram.close();
    }
}
