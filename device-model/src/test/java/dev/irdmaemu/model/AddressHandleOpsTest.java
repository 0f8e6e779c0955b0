package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.model.ah.AddressHandle;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.trace.TraceKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CREATE / MODIFY / DESTROY_ADDR_HANDLE (uda.c irdma_sc_access_ah; utils.c irdma_puda_create_ah, cm.c
 * irdma_cm_create_ah / irdma_cm_free_ah): the table's contents field for field, op_ret_val 0 on success, and a CQP
 * error completion with nothing held for each hostile input.
 */
class AddressHandleOpsTest {
    private static final int[] V4_DEST = {0xc0a8_0102};
    private static final int[] V4_SRC = {0xc0a8_0101};

    /** The model as the driver brought it up, no AH live yet (the CM creates them per connection). */
    private final DriverNode d = new DriverNode();
    /** The FSIAV objects the driver committed (rf->max_ah). */
    private int fsiav;
    private LeakCheck.Held baseline;

    @BeforeEach
    void up() {
        fsiav = (int) d.driver.hmc().committedCount(HmcObjectType.FSIAV);
        assertEquals(0, d.dev.addressHandles().liveCount());
        baseline = LeakCheck.snapshot(d.dev);
    }

    @AfterEach
    void close() {
        d.close();
    }

    private DriverNode.Completion ah(CqpOpcode op, int index, long mac, int arp, boolean ipv4, int[] dest,
                                     int[] src) {
        return d.op(op.name(), (o, v) -> CqpWqeWriter.addressHandle(d.store(), o, op, index, mac, 0x12_3456, 0x28,
                0x2005, true, arp, 0xabcde, 64, ipv4, false, dest, src, v));
    }

    private DriverNode.Completion v4(CqpOpcode op, int index) {
        return ah(op, index, 0x0002_0304_0506L, 5, true, V4_DEST, V4_SRC);
    }

    private static void assertFault(CqpFault f, DriverNode.Completion c) {
        assertTrue(c.error(), "error completion expected");
        assertEquals(f.major(), c.major());
        assertEquals(f.minor(), c.minor());
    }

    @Test
    void createStoresTheIpv4AhAndAnswersZero() {
        DriverNode.Completion c = v4(CqpOpcode.CREATE_ADDR_HANDLE, 3);
        assertFalse(c.error());
        assertEquals(0, c.opReturn(), "op_ret_val 0: irdma_ilq_ah_cb marks the AH valid");
        AddressHandle a = d.dev.addressHandles().get(3);
        assertEquals(3, a.index());
        assertEquals(0x0002_0304_0506L, a.mac());
        assertEquals(0x12_3456, a.pdIndex());
        assertEquals(0x28, a.tcTos());
        assertEquals(0x2005, a.vlanTag());
        assertTrue(a.insertVlanTag());
        assertEquals(5, a.arpIndex());
        assertEquals(0xabcde, a.flowLabel());
        assertEquals(64, a.hopLimit());
        assertTrue(a.ipv4());
        assertFalse(a.loopback());
        assertEquals(0xc0a8_0102, a.destIp(0));
        assertEquals(0xc0a8_0101, a.srcIp(0));
        assertEquals(0, a.destIp(1));
        assertEquals(1, d.dev.addressHandles().liveCount());
        assertEquals("3", d.sink.of(TraceKind.CQP_OP).stream().filter(t -> "CREATE_ADDR_HANDLE".equals(t.get("op")))
                .findFirst().orElseThrow().get("ah"));
        assertFalse(v4(CqpOpcode.DESTROY_ADDR_HANDLE, 3).error());
        assertNull(d.dev.addressHandles().get(3));
        LeakCheck.assertNoLeak(baseline, d.dev, "AH ops");
    }

    @Test
    void ipv6AhKeepsAllFourWordsAndModifyReplacesThem() {
        int[] dest = {0xfe80_0000, 0, 0x0202_03ff, 0xfe04_0506};
        int[] src = {0xfe80_0000, 0, 0x0201_02ff, 0xfe03_0405};
        assertFalse(ah(CqpOpcode.CREATE_ADDR_HANDLE, fsiav - 1, 0x0002_0304_0506L, 1, false, dest, src).error());
        AddressHandle a = d.dev.addressHandles().get(fsiav - 1);
        for (int i = 0; i < 4; i++) {
            assertEquals(dest[i], a.destIp(i));
            assertEquals(src[i], a.srcIp(i));
        }
        assertFalse(a.ipv4());
        DriverNode.Completion m = ah(CqpOpcode.MODIFY_ADDR_HANDLE, fsiav - 1, 0x00aa_bbcc_ddeeL, 9, true, V4_DEST,
                V4_SRC);
        assertFalse(m.error());
        assertEquals(0, m.opReturn());
        assertEquals(0x00aa_bbcc_ddeeL, a.mac());
        assertEquals(9, a.arpIndex());
        assertTrue(a.ipv4());
        assertEquals(0, a.destIp(1), "the IPv6 words are gone");
        assertEquals(1, d.dev.addressHandles().liveCount());
        assertFalse(v4(CqpOpcode.DESTROY_ADDR_HANDLE, fsiav - 1).error());
        LeakCheck.assertNoLeak(baseline, d.dev, "AH ops");
    }

    @Test
    void hostileAhOpsAreErrorCompletionsAndHoldNothing() {
        // index at the committed FSIAV count (rf->max_ah) and far beyond (24-bit AVIDX)
        assertFault(CqpFault.INDEX_OUT_OF_RANGE, v4(CqpOpcode.CREATE_ADDR_HANDLE, fsiav));
        assertFault(CqpFault.INDEX_OUT_OF_RANGE, v4(CqpOpcode.CREATE_ADDR_HANDLE, 0xff_ffff));
        assertFault(CqpFault.INDEX_OUT_OF_RANGE, v4(CqpOpcode.DESTROY_ADDR_HANDLE, fsiav));
        // destroy / modify of an AH never created
        assertFault(CqpFault.NO_SUCH_OBJECT, v4(CqpOpcode.DESTROY_ADDR_HANDLE, 2));
        assertFault(CqpFault.NO_SUCH_OBJECT, v4(CqpOpcode.MODIFY_ADDR_HANDLE, 2));
        // double create keeps the first AH's fields
        assertFalse(v4(CqpOpcode.CREATE_ADDR_HANDLE, 2).error());
        assertFault(CqpFault.OBJECT_IN_USE, ah(CqpOpcode.CREATE_ADDR_HANDLE, 2, 0x1111_1111_1111L, 7, true, V4_DEST,
                V4_SRC));
        assertEquals(0x0002_0304_0506L, d.dev.addressHandles().get(2).mac());
        assertFalse(v4(CqpOpcode.DESTROY_ADDR_HANDLE, 2).error());
        // destroy twice
        assertFault(CqpFault.NO_SUCH_OBJECT, v4(CqpOpcode.DESTROY_ADDR_HANDLE, 2));
        assertEquals(0, d.dev.addressHandles().liveCount());
        d.driver.cqp().nop(); // the CQP keeps working (an error completion would throw)
        LeakCheck.assertNoLeak(baseline, d.dev, "AH ops");
    }
}
