package dev.irdmaemu.driver;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.irdmaemu.driver.cyclefixture.a.CallsUp;
import dev.irdmaemu.driver.cyclefixture.a.Layer;
import dev.irdmaemu.driver.cyclefixture.b.Above;
import dev.irdmaemu.driver.cyclefixture.c.AlsoAbove;
import org.junit.jupiter.api.Test;

/**
 * The driver module is one layer without package cycles (the driver and its verbs once imported each other, when
 * they lived in cm), and it sees neither the device model, nor the CM, nor qemu-bridge. qemu-bridge's
 * {@code LayeringTest} checks the modules against each other; this checks the packages inside the driver, on its
 * compiled main classes.
 */
class DriverLayeringTest {
    /** No cycle between the packages under {@code root} (each package, with its subpackages apart, is one slice). */
    static ArchRule noPackageCycle(String root) {
        return slices().matching(root + ".(**)").should().beFreeOfCycles()
                .as("no package cycle under " + root);
    }

    static ArchRule seesNothingAbove() {
        return noClasses().that().resideInAPackage("dev.irdmaemu.driver..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.irdmaemu.model..", "dev.irdmaemu.cm..",
                        "dev.irdmaemu.bridge..")
                .as("the driver depends on none of device-model, cm, qemu-bridge");
    }

    private static JavaClasses driverMainClasses() {
        return new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("dev.irdmaemu.driver");
    }

    @Test
    void theDriversPackagesFormNoCycle() {
        JavaClasses classes = driverMainClasses();
        assertTrue(classes.contain(IrdmaDriver.class), "the import sees the driver");
        assertTrue(classes.contain(dev.irdmaemu.driver.verbs.QueuePair.class), "the import sees the verbs");
        assertFalse(classes.contain(DriverLayeringTest.class), "test classes are not imported");
        noPackageCycle("dev.irdmaemu").check(classes);
    }

    @Test
    void theDriverSeesNothingAboveIt() {
        seesNothingAbove().check(driverMainClasses());
    }

    @Test
    void theCycleRuleReportsACycleAndPassesATree() {
        String root = "dev.irdmaemu.driver.cyclefixture";
        EvaluationResult tangled = noPackageCycle(root).evaluate(new ClassFileImporter().importClasses(Layer.class,
                CallsUp.class, Above.class, AlsoAbove.class));
        assertTrue(tangled.hasViolation());
        String report = tangled.getFailureReport().toString();
        assertTrue(report.contains(CallsUp.class.getName()) && report.contains(Above.class.getName()), report);
        assertFalse(report.contains(AlsoAbove.class.getName()), report);
        EvaluationResult tree = noPackageCycle(root).evaluate(new ClassFileImporter().importClasses(Layer.class,
                Above.class, AlsoAbove.class));
        assertFalse(tree.hasViolation(), tree.getFailureReport().toString());
    }
}
