package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.irdmaemu.fw.arch.PackageCycles;
import org.junit.jupiter.api.Test;

/**
 * The device model's packages form no cycle: the timing below everything, the port below the PUDA queues and the
 * iWARP data path it hands segments to (through interfaces of its own), the firmware below the LAN rings it fronts,
 * the PCI function below the blocks it dispatches to, the physical function and the RDMA block on top.
 */
class ModelPackageCyclesTest {
    @Test
    void theModelsPackagesFormNoCycle() {
        JavaClasses classes = PackageCycles.mainClasses("dev.irdmaemu.model");
        assertTrue(classes.contain(E810PhysicalFunction.class) && classes.contain(
                dev.irdmaemu.model.port.EthernetPort.class), "the import sees the model");
        assertFalse(classes.contain(ModelPackageCyclesTest.class), "test classes are not imported");
        PackageCycles.noPackageCycle("dev.irdmaemu").check(classes);
    }
}
