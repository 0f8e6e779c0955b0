package dev.irdmaemu.driver;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import dev.irdmaemu.fw.arch.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * The driver module is one layer without package cycles (the driver and its verbs once imported each other, when
 * they lived in cm), and it sees neither the device model, nor the CM, nor qemu-bridge. qemu-bridge's
 * {@code LayeringTest} checks the modules against each other; this checks the packages inside the driver, on its
 * compiled main classes with the rule every module applies (firmware-iface's PackageCycles, proven on a planted
 * cycle there).
 */
class DriverLayeringTest {
    static ArchRule seesNothingAbove() {
        return noClasses().that().resideInAPackage("dev.irdmaemu.driver..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.irdmaemu.model..", "dev.irdmaemu.cm..",
                        "dev.irdmaemu.bridge..")
                .as("the driver depends on none of device-model, cm, qemu-bridge");
    }

    private static JavaClasses driverMainClasses() {
        return PackageCycles.mainClasses("dev.irdmaemu.driver");
    }

    @Test
    void theDriversPackagesFormNoCycle() {
        JavaClasses classes = driverMainClasses();
        assertTrue(classes.contain(IrdmaDriver.class), "the import sees the driver");
        assertTrue(classes.contain(dev.irdmaemu.driver.verbs.QueuePair.class), "the import sees the verbs");
        assertFalse(classes.contain(DriverLayeringTest.class), "test classes are not imported");
        PackageCycles.noPackageCycle("dev.irdmaemu").check(classes);
    }

    @Test
    void theDriverSeesNothingAboveIt() {
        seesNothingAbove().check(driverMainClasses());
    }
}
