package dev.irdmaemu.bridge;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.irdmaemu.fw.arch.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * qemu-bridge's packages form no cycle: the hosted node and its loop ({@code bridge.boot}) below the E810 host
 * ({@code bridge.e810}) that cables them, and {@code irdma-emu boot}'s run ({@code bridge.run}) above both.
 */
class BridgePackageCyclesTest {
    @Test
    void theBridgesPackagesFormNoCycle() {
        JavaClasses classes = PackageCycles.mainClasses("dev.irdmaemu.bridge");
        assertTrue(classes.contain(dev.irdmaemu.bridge.run.BootRun.class)
                && classes.contain(dev.irdmaemu.bridge.e810.E810Host.class), "the import sees the bridge");
        assertFalse(classes.contain(BridgePackageCyclesTest.class), "test classes are not imported");
        PackageCycles.noPackageCycle("dev.irdmaemu").check(classes);
    }
}
