package dev.irdmaemu.fw.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The rule every module's cycle test applies to its own compiled main classes: no cycle between its packages (each
 * package one slice, its subpackages apart, the module's root package one of them), so that a lower package never
 * reaches back up into one that uses it. {@link PackageCyclesTest} proves it reports a planted cycle.
 */
public final class PackageCycles {
    private PackageCycles() {
    }

    /**
     * No cycle between the packages below {@code parent}, each one slice: given {@code dev.irdmaemu} and a module's
     * classes, {@code dev.irdmaemu.model} and each of its subpackages are slices of their own.
     */
    public static ArchRule noPackageCycle(String parent) {
        return slices().matching(parent + ".(**)").should().beFreeOfCycles().as("no package cycle below " + parent);
    }

    /** The main classes (tests left out: test-jars on the classpath are left out by their path) of {@code pkg}. */
    public static JavaClasses mainClasses(String pkg) {
        return new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages(pkg);
    }
}
