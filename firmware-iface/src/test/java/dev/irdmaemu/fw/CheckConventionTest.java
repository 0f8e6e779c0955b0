package dev.irdmaemu.fw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import dev.irdmaemu.fw.arch.PackageCycles;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@link Check#accepted()} reads the convention every codec's check enum keeps: ACCEPTED first, and only it. */
class CheckConventionTest {
    @Test
    void everyCheckEnumOpensWithAcceptedAndOnlyItIsAccepted() throws ClassNotFoundException {
        List<JavaClass> checks = PackageCycles.mainClasses("dev.irdmaemu.fw").stream()
                .filter(c -> c.isAssignableTo(Check.class) && c.isEnum())
                .collect(Collectors.toList());
        assertTrue(checks.size() > 30, "found " + checks.size() + " Check enums");
        for (JavaClass c : checks) {
            Object[] constants = Class.forName(c.getName()).getEnumConstants();
            assertEquals("ACCEPTED", ((Enum<?>) constants[0]).name(), c.getName());
            assertTrue(((Check) constants[0]).accepted(), c.getName());
            for (int i = 1; i < constants.length; i++) {
                assertFalse(((Check) constants[i]).accepted(), c.getName() + "." + constants[i]);
            }
        }
    }
}
