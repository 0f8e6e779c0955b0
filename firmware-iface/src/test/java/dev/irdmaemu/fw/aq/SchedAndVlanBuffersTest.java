package dev.irdmaemu.fw.aq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The move, suspend/resume and VLAN mode buffers: known bytes, and what a short buffer reads as. */
class SchedAndVlanBuffersTest {
    @Test
    void moveElementsHeaderAndTeids() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[20]);
        SchedMoveElements m = new SchedMoveElements().wrap(s, 0, 20);
        assertEquals(20, m.write(0x1000_0001L, 0x2000_0002L, 0x31, 0x32));
        // struct ice_aqc_txsched_move_grp_info_hdr: le32 src, le32 dest, le16 num_elems
        assertEquals(0x01, s.readUnsignedByte(0));
        assertEquals(0x10, s.readUnsignedByte(3));
        assertEquals(2, s.readUnsignedByte(8));
        assertEquals(0x31, s.readUnsignedByte(12));
        assertTrue(m.complete());
        assertEquals(0x1000_0001L, m.sourceParent());
        assertEquals(0x2000_0002L, m.destinationParent());
        assertEquals(0x32, m.teid(1));
        SchedMoveElements shortOne = new SchedMoveElements().wrap(s, 0, 19);
        assertFalse(shortOne.complete(), "the second TEID reaches past a 19-byte buffer");
        assertEquals(0, shortOne.teid(1), "and reads as 0, never throws");
    }

    @Test
    void teidListHoldsWhatFits() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[8]);
        TeidList t = new TeidList().wrap(s, 0, 8).teid(0, 7).teid(1, 0xFFFF_FFFFL);
        assertTrue(t.holds(2));
        assertFalse(t.holds(3));
        assertEquals(0xFFFF_FFFFL, t.teid(1));
        assertEquals(0, t.teid(2));
    }

    @Test
    void vlanModeSetAndGet() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[VlanModeParameters.SIZE]);
        VlanModeParameters v = new VlanModeParameters().wrap(s, 0, VlanModeParameters.SIZE)
                .writeSet(2, VlanModeParameters.DVM_RDMA_PACKET, VlanModeParameters.MNG_PROT_INNER);
        assertEquals(2, s.readUnsignedByte(1));
        assertEquals(0x1A, s.readUnsignedByte(66));
        assertEquals(0x11, s.readUnsignedByte(69));
        assertEquals(VlanModeParameters.DVM_RDMA_PACKET, v.rdmaPacket());
        v.writeGet(true);
        assertEquals(1, v.vlanMode());
        assertEquals(0, v.rdmaPacket(), "the reply is zeroes but the mode");
        assertFalse(new VlanModeParameters().wrap(s, 0, 99).complete());
    }
}
