package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.reg.IceRegister;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The functions of one served adapter share its core, global and EMP resets, as an E810's PFs do. */
class E810HostResetTest {
    @TempDir
    Path dir;

    @Test
    void aCoreResetTriggeredOnOnePfResetsEveryPfOfTheAdapter() throws Exception {
        try (E810Host host = E810Host.startAdapter(List.of(dir.resolve("a.sock"), dir.resolve("b.sock")),
                0x02005e100001L, 1, i -> null, i -> null)) {
            long[] before = host.loop().call(() -> new long[] {host.pf(0).rdma().resets(), host.pf(1).rdma().resets()},
                    Duration.ofSeconds(10));
            host.loop().call(() -> {
                host.pf(0).pci().barWrite(0, IceRegister.GLGEN_RTRIG, 4, IceRegister.GLGEN_RTRIG_CORER_M);
                return null;
            }, Duration.ofSeconds(10));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            long[] after;
            do {
                Thread.sleep(20);
                after = host.loop().call(() -> new long[] {host.pf(0).rdma().resets(), host.pf(1).rdma().resets(),
                        host.pf(0).pci().barRead(0, IceRegister.GLGEN_RTRIG, 4)}, Duration.ofSeconds(10));
            } while (after[2] != 0 && System.nanoTime() < deadline);
            assertEquals(0, after[2], "the trigger clears itself when the reset is done");
            assertEquals(before[0] + 1, after[0], "PF 0 reset");
            assertEquals(before[1] + 1, after[1], "PF 1, on the same adapter, reset too");
        }
    }
}
