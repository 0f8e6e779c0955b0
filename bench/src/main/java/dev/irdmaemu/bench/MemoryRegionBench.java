package dev.irdmaemu.bench;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.mr.MemoryRegions;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A 4 KiB tagged write (and read) through a level-1 memory region, as the iWARP data path places an RDMA Write's
 * payload: STag lookup and checks, two PBLE reads through the HMC PBLE object (the write straddles a page
 * boundary), two host-memory copies. The model is brought up by the cm driver layer; the region is registered
 * with a Register MR WQE as verbs.c irdma_hwreg_mr fills it, over four scattered 4 KiB pages.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MemoryRegionBench {
    private static final int PD = 3;
    private static final long VA = 0x7f00_1234_0000L;
    private static final int INDEX = 5;

    private HostRam ram;
    private MemoryRegions mrs;
    private final BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(4096);
    private int stag;

    @Setup(Level.Trial)
    public void setUp() {
        SimScheduler s = new SimScheduler(1);
        BenchNode node = BenchNode.bringUp(s, null, 0);
        HostMemory memory = node.memory();
        ram = node.ram();
        IrdmaDriver driver = node.driver();
        E810RdmaFunction device = node.device();
        // four scattered pages as PBLEs 0..3; the driver writes them through its own backing of the PBLE object,
        // whose addresses the bench borrows from the model's HMC (the cm driver layer has no PBLE allocator)
        for (int i = 0; i < 4; i++) {
            long page = ram.allocate(2 * 4096) + 4096;
            memory.writeLong(device.hmc().resolve(HmcObjectType.PBLE, i), page);
        }
        stag = 0x155 << 22 | INDEX << 8 | 0x9c; // irdma_create_stag: driver key above 14 index bits
        StagFields f = new StagFields();
        f.stagIndex = stag >>> 8;
        f.stagKey = stag & 0xff;
        f.pdId = PD;
        f.length = 4 * 4096;
        f.accessRights = MemoryRegions.LOCAL_READ | MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_READ
                | MemoryRegions.REMOTE_WRITE;
        f.remoteAccess = true;
        f.vaBased = true;
        f.vaOrFbo = VA;
        f.pblChunkSize = 1;
        f.firstPmPblIndex = 0;
        f.mr = true;
        driver.cqp().op("reg_mr", (o, v) -> CqpWqeWriter.registerMr(driver.store(), o, f, v));
        mrs = device.memoryRegions();
        for (int i = 0; i < 4096; i++) {
            payload.writeByte(i, (byte) i);
        }
        if (write4KiB() != MemoryRegions.OK) {
            throw new IllegalStateException("the bench region refuses the write");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        payload.releaseLast();
        ram.close();
    }

    /** 4 KiB at VA + 2 KiB: pages 0 and 1. */
    @Benchmark
    public int write4KiB() {
        return mrs.write(stag, VA + 2048, payload, 0, 4096, MemoryRegions.REMOTE_WRITE, PD);
    }

    @Benchmark
    public int read4KiB() {
        return mrs.read(stag, VA + 2048, payload, 0, 4096, MemoryRegions.REMOTE_READ, PD);
    }

    /** The checks alone, without the copy. */
    @Benchmark
    public int check4KiB() {
        return mrs.check(stag, VA + 2048, 4096, MemoryRegions.REMOTE_WRITE, PD);
    }
}
