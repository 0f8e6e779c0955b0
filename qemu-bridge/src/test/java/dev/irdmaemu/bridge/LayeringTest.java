package dev.irdmaemu.bridge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.irdmaemu.bridge.layeringfixture.bridge.BridgeThing;
import dev.irdmaemu.bridge.layeringfixture.cm.CmThing;
import dev.irdmaemu.bridge.layeringfixture.cm.CmUsesBridge;
import dev.irdmaemu.bridge.layeringfixture.cm.CmUsesModel;
import dev.irdmaemu.bridge.layeringfixture.driver.DriverThing;
import dev.irdmaemu.bridge.layeringfixture.driver.DriverUsesCm;
import dev.irdmaemu.bridge.layeringfixture.fw.FwClean;
import dev.irdmaemu.bridge.layeringfixture.fw.FwUsesBridge;
import dev.irdmaemu.bridge.layeringfixture.model.ModelThing;
import dev.irdmaemu.bridge.layeringfixture.model.ModelUsesCm;
import dev.irdmaemu.bridge.layeringfixture.model.ModelUsesDriver;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The layering of the modules, on their compiled main classes: device-model and cm never see each other (they
 * meet only through firmware-iface), the driver sees neither the model nor the CM above it, the model's main
 * classes never see the driver (its tests do), and firmware-iface sees none of the layers above it. The Maven enforcer
 * keeps the module dependencies so; this keeps the packages so (e.g. against a class put in the wrong module).
 */
class LayeringTest {
    /** Main classes only: not test classes (target/test-classes) nor test jars (firmware-iface's -tests.jar). */
    private static final ImportOption MAIN_CLASSES_ONLY = (Location location) ->
            new ImportOption.DoNotIncludeTests().includes(location) && !location.contains("-tests.jar");

    /**
     * The layering rules over a tree of packages {@code root.fw}, {@code root.model}, {@code root.driver},
     * {@code root.cm}, {@code root.bridge}.
     */
    static List<ArchRule> rules(String root) {
        String fw = root + ".fw..";
        String model = root + ".model..";
        String driver = root + ".driver..";
        String cm = root + ".cm..";
        String bridge = root + ".bridge..";
        return List.of(
                // the modules may still be empty: a rule over no classes passes rather than fails
                noClasses().that().resideInAPackage(model)
                        .should().dependOnClassesThat().resideInAPackage(cm)
                        .as("device-model does not depend on cm").allowEmptyShould(true),
                noClasses().that().resideInAPackage(model)
                        .should().dependOnClassesThat().resideInAPackage(driver)
                        .as("device-model's main classes do not depend on the driver").allowEmptyShould(true),
                noClasses().that().resideInAPackage(cm)
                        .should().dependOnClassesThat().resideInAPackage(model)
                        .as("cm does not depend on device-model").allowEmptyShould(true),
                noClasses().that().resideInAPackage(driver)
                        .should().dependOnClassesThat().resideInAnyPackage(model, cm)
                        .as("the driver depends on neither device-model nor cm").allowEmptyShould(true),
                noClasses().that().resideInAnyPackage(model, driver, cm)
                        .should().dependOnClassesThat().resideInAPackage(bridge)
                        .as("device-model, the driver and cm do not depend on qemu-bridge").allowEmptyShould(true),
                // firmware-iface is never empty (Check, the pcap codec): an empty import here is a broken test
                noClasses().that().resideInAPackage(fw)
                        .should().dependOnClassesThat().resideInAnyPackage(model, driver, cm, bridge)
                        .as("firmware-iface depends on none of device-model, the driver, cm, qemu-bridge"));
    }

    @Test
    void theModulesAreLayered() {
        JavaClasses classes = new ClassFileImporter().withImportOption(MAIN_CLASSES_ONLY)
                .importPackages("dev.irdmaemu");
        assertTrue(classes.contain("dev.irdmaemu.fw.Check"), "the import sees firmware-iface");
        assertTrue(classes.contain("dev.irdmaemu.bridge.cli.Main"), "the import sees qemu-bridge");
        assertTrue(classes.contain("dev.irdmaemu.driver.IrdmaDriver"), "the import sees the driver");
        assertFalse(classes.contain("dev.irdmaemu.fw.pcap.SampleFrames"), "test classes are not imported");
        assertFalse(classes.contain(LayeringTest.class), "test classes are not imported");
        for (ArchRule rule : rules("dev.irdmaemu")) {
            rule.check(classes);
        }
    }

    @Test
    void theRulesCatchAViolationOfEachKind() {
        JavaClasses bad = new ClassFileImporter().importClasses(ModelUsesCm.class, ModelUsesDriver.class,
                CmUsesModel.class, DriverUsesCm.class, CmUsesBridge.class, FwUsesBridge.class, ModelThing.class,
                DriverThing.class, CmThing.class, FwClean.class, BridgeThing.class);
        List<ArchRule> rules = rules("dev.irdmaemu.bridge.layeringfixture");
        String[] culprits = {ModelUsesCm.class.getName(), ModelUsesDriver.class.getName(), CmUsesModel.class.getName(),
            DriverUsesCm.class.getName(), CmUsesBridge.class.getName(), FwUsesBridge.class.getName()};
        assertEquals(rules.size(), culprits.length);
        for (int i = 0; i < rules.size(); i++) {
            EvaluationResult result = rules.get(i).evaluate(bad);
            assertTrue(result.hasViolation(), rules.get(i).getDescription());
            String report = result.getFailureReport().toString();
            assertTrue(report.contains(culprits[i]), report);
        }
    }

    @Test
    void theRulesPassAWellLayeredTree() {
        JavaClasses good = new ClassFileImporter().importClasses(ModelThing.class, DriverThing.class, CmThing.class,
                FwClean.class, BridgeThing.class);
        for (ArchRule rule : rules("dev.irdmaemu.bridge.layeringfixture")) {
            assertFalse(rule.evaluate(good).hasViolation(), rule.getDescription());
        }
    }
}
