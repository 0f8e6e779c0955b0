package dev.irdmaemu.fw.arch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.irdmaemu.fw.arch.cyclefixture.a.CallsUp;
import dev.irdmaemu.fw.arch.cyclefixture.a.Layer;
import dev.irdmaemu.fw.arch.cyclefixture.b.Above;
import dev.irdmaemu.fw.arch.cyclefixture.c.AlsoAbove;
import org.junit.jupiter.api.Test;

/**
 * The cycle rule the modules' tests apply ({@link PackageCycles}) reports a planted cycle and passes a tree; and
 * firmware-iface's own packages form none.
 */
class PackageCyclesTest {
    @Test
    void theRuleReportsAPlantedCycleAndPassesATree() {
        String root = "dev.irdmaemu.fw.arch.cyclefixture";
        EvaluationResult tangled = PackageCycles.noPackageCycle(root).evaluate(new ClassFileImporter()
                .importClasses(Layer.class, CallsUp.class, Above.class, AlsoAbove.class));
        assertTrue(tangled.hasViolation());
        String report = tangled.getFailureReport().toString();
        assertTrue(report.contains(CallsUp.class.getName()) && report.contains(Above.class.getName()), report);
        assertFalse(report.contains(AlsoAbove.class.getName()), report);
        EvaluationResult tree = PackageCycles.noPackageCycle(root).evaluate(new ClassFileImporter()
                .importClasses(Layer.class, Above.class, AlsoAbove.class));
        assertFalse(tree.hasViolation(), tree.getFailureReport().toString());
    }

    @Test
    void firmwareIfacesPackagesFormNoCycle() {
        var classes = PackageCycles.mainClasses("dev.irdmaemu.fw");
        assertTrue(classes.contain(dev.irdmaemu.fw.frame.TcpHeader.class), "the import sees the codecs");
        assertFalse(classes.contain(PackageCyclesTest.class), "test classes are not imported");
        PackageCycles.noPackageCycle("dev.irdmaemu").check(classes);
    }
}
