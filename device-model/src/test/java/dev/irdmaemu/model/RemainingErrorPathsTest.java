package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.EqOpFields;
import dev.irdmaemu.fw.cqp.QhashFields;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import dev.irdmaemu.fw.cqp.CqpFault;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The error paths of the ops the other tests do not reach, one per op. */
class RemainingErrorPathsTest {
    /** The model as the driver brought it up; each op below is one the driver would never send as written. */
    private final DriverNode d = new DriverNode();
    private final EqOpFields eqf = new EqOpFields();
    private final CqOpFields cqf = new CqOpFields();
    private final QhashFields qhf = new QhashFields();

    @AfterEach
    void close() {
        d.close();
    }

    @Test
    void updateSdsWithItsBufferOutsideMemory() {
        long[] cmds = new long[4];
        long[] data = new long[4];
        for (int i = 0; i < 4; i++) {
            cmds[i] = SegmentDescriptor.command(10 + i);
            data[i] = SegmentDescriptor.setData(d.alloc(4096), false);
        }
        long scratch = d.alloc(4096);
        assertEquals(CqpFault.DMA_FAULT.minor(), d.op("UPDATE_PE_SDS", (o, v) -> CqpWqeWriter.updatePeSds(d.store(), o,
                0, cmds, data, 4, DriverNode.UNMAPPED, d.store(), d.off(scratch), v)).minor());
    }

    @Test
    void aeqRingOutsideMemory() {
        // the driver's AEQ is up: a second one is refused before its ring is looked at
        eqf.clear();
        eqf.elementCount = 16;
        eqf.address = DriverNode.UNMAPPED;
        assertEquals(CqpFault.OBJECT_IN_USE.minor(),
                d.op("CREATE_AEQ", (o, v) -> CqpWqeWriter.createAeq(d.store(), o, eqf, v)).minor());
        // without it (hw.c irdma_destroy_aeq, as at remove), the ring is checked
        eqf.clear();
        assertFalse(d.op("DESTROY_AEQ", (o, v) -> CqpWqeWriter.destroyAeq(d.store(), o, eqf, v)).error());
        eqf.clear();
        eqf.elementCount = 16;
        eqf.address = DriverNode.UNMAPPED;
        assertEquals(CqpFault.DMA_FAULT.minor(),
                d.op("CREATE_AEQ", (o, v) -> CqpWqeWriter.createAeq(d.store(), o, eqf, v)).minor());
        eqf.elementCount = 0;
        eqf.address = d.alloc(4096);
        assertEquals(CqpFault.INVALID_FIELD.minor(),
                d.op("CREATE_AEQ", (o, v) -> CqpWqeWriter.createAeq(d.store(), o, eqf, v)).minor());
    }

    @Test
    void modifyCqOfNothingOrIntoUnmappedMemory() {
        cqf.clear();
        cqf.cqId = 9;
        cqf.resize = true;
        cqf.cqSize = 32;
        cqf.cqAddress = d.alloc(4096);
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(),
                d.op("MODIFY_CQ", (o, v) -> CqpWqeWriter.modifyCq(d.store(), o, cqf, v)).minor());
        d.driver.cqp().createCq(9, 16);
        cqf.clear();
        cqf.cqId = 9;
        cqf.resize = true;
        cqf.cqSize = 32;
        cqf.cqAddress = DriverNode.UNMAPPED;
        assertEquals(CqpFault.DMA_FAULT.minor(),
                d.op("MODIFY_CQ", (o, v) -> CqpWqeWriter.modifyCq(d.store(), o, cqf, v)).minor());
        assertEquals(16, d.dev.cqs().get(9).size());
    }

    @Test
    void qhashAddTwiceModifyOfNothingAndApbvtRemove() {
        int local = BringUpTest.LOCAL;
        int remote = BringUpTest.REMOTE;
        assertFalse(qhash(CqpWqe.QHASH_MANAGE_ADD, local, 5000, remote, 6000, 1).error());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(),
                qhash(CqpWqe.QHASH_MANAGE_ADD, local, 5000, remote, 6000, 1).minor());
        assertFalse(qhash(CqpWqe.QHASH_MANAGE_MODIFY, local, 5000, remote, 6000, 2).error());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(),
                qhash(CqpWqe.QHASH_MANAGE_MODIFY, local, 5001, remote, 6000, 2).minor());
        assertFalse(apbvt(5000, true).error());
        assertFalse(apbvt(5000, false).error());
        assertFalse(d.dev.apbvt().contains(5000));
        // Removing a port not marked is harmless (the op returns 0: nothing changed).
        assertFalse(apbvt(5000, false).error());
    }

    private DriverNode.Completion apbvt(int port, boolean add) {
        return d.op("MANAGE_APBVT", (o, v) -> CqpWqeWriter.manageApbvt(d.store(), o, port, add, v));
    }

    /** An established IPv4 qhash entry, untagged, as the test writes it (the same entry twice, a modify of none). */
    private DriverNode.Completion qhash(int manage, int local, int localPort, int remote, int remotePort, int qpn) {
        qhf.clear();
        qhf.ipv4 = true;
        qhf.destIp[0] = local;
        qhf.destPort = localPort;
        qhf.entryType = CqpWqe.QHASH_TYPE_TCP_ESTABLISHED;
        qhf.srcIp[0] = remote;
        qhf.srcPort = remotePort;
        qhf.qpNumber = qpn;
        qhf.manage = manage;
        qhf.mac = d.driver.macAddress();
        return d.op("MANAGE_QHASH", (o, v) -> CqpWqeWriter.manageQhash(d.store(), o, qhf, v));
    }
}
