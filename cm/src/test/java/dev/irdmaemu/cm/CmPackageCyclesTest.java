package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.irdmaemu.fw.arch.PackageCycles;
import org.junit.jupiter.api.Test;

/** The connection manager's packages (the CM, its MPA rules, its hardware ports, the tools' peers) form no cycle. */
class CmPackageCyclesTest {
    @Test
    void theCmsPackagesFormNoCycle() {
        JavaClasses classes = PackageCycles.mainClasses("dev.irdmaemu.cm");
        assertTrue(classes.contain(ConnectionManager.class), "the import sees the CM");
        assertFalse(classes.contain(CmPackageCyclesTest.class), "test classes are not imported");
        PackageCycles.noPackageCycle("dev.irdmaemu").check(classes);
    }
}
