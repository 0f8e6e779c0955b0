package dev.irdmaemu.fw.aq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class AqDescriptorTest {
    private final BytesStore<?, Void> store = BytesStore.nativeStoreWithFixedCapacity(64);

    @Test
    void fieldsSitWhereLibieAqDescPutsThem() {
        store.zeroOut(0, 64);
        AqDescriptor d = new AqDescriptor().wrap(store, 8);
        d.flags(0x3001).opcode(0x0701).datalen(0x1000).retval(14).cookieHigh(0xAABBCCDDL).cookieLow(0x11223344L);
        d.paramU16(0, 0x1234).paramU8(2, 0x56).paramU8(3, 0x80).paramU32(4, 0xFEDCBA98L);
        d.bufferAddress(0x0000_0001_2345_6000L);
        assertEquals(0x3001, store.readUnsignedShort(8));
        assertEquals(0x0701, store.readUnsignedShort(10));
        assertEquals(0x1000, store.readUnsignedShort(12));
        assertEquals(14, store.readUnsignedShort(14));
        assertEquals(0xAABBCCDDL, store.readUnsignedInt(16));
        assertEquals(0x11223344L, store.readUnsignedInt(20));
        assertEquals(0x1234, store.readUnsignedShort(24));
        assertEquals(0x56, store.readUnsignedByte(26));
        assertEquals(0xFEDCBA98L, store.readUnsignedInt(28));
        assertEquals(1, store.readUnsignedInt(32), "addr_high at params byte 8");
        assertEquals(0x2345_6000L, store.readUnsignedInt(36), "addr_low at params byte 12");
        assertEquals(0x0000_0001_2345_6000L, d.bufferAddress());
        assertEquals(0xFEDCBA98_80561234L, d.paramU64(0));
        assertEquals(0x80, d.paramU8(3));
    }

    @Test
    void paramOffsetsOutsideTheParamsAreaThrow() {
        AqDescriptor d = new AqDescriptor().wrap(store, 0);
        assertThrows(IndexOutOfBoundsException.class, () -> d.paramU8(16));
        assertThrows(IndexOutOfBoundsException.class, () -> d.paramU16(15));
        assertThrows(IndexOutOfBoundsException.class, () -> d.paramU32(13, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> d.paramU64(9));
        assertThrows(IndexOutOfBoundsException.class, () -> d.paramU8(-1));
    }

    @Test
    void aTruncatedWrapReadsZeroAndReportsTruncated() {
        AqDescriptor d = new AqDescriptor().wrap(store, 48);
        assertEquals(AqDescriptorCheck.TRUNCATED, d.validate());
        assertEquals(0, d.paramU32(8));
        d.paramU64(8, -1L);
        assertEquals(0, d.paramU64(8), "a write outside the store is dropped");
    }

    @Test
    void validateRulesFollowIceSqSendCmd() {
        AqDescriptor d = new AqDescriptor().wrap(store, 0).clear();
        d.opcode(AqOpcode.GET_VER).flags(AqDescriptor.SI);
        assertEquals(AqDescriptorCheck.ACCEPTED, d.validate());
        d.flags(AqDescriptor.SI | 0x20);
        assertEquals(AqDescriptorCheck.RESERVED_FLAGS, d.validate());
        d.flags(AqDescriptor.SI | AqDescriptor.VFE);
        assertEquals(AqDescriptorCheck.VF_FLAGS, d.validate());
        d.flags(AqDescriptor.SI | AqDescriptor.CMP);
        assertEquals(AqDescriptorCheck.FIRMWARE_FLAGS, d.validate());
        d.flags(AqDescriptor.SI | AqDescriptor.BUF).datalen(0);
        assertEquals(AqDescriptorCheck.BUFFER_WITHOUT_LENGTH, d.validate());
        d.datalen(4097);
        assertEquals(AqDescriptorCheck.BUFFER_TOO_LARGE, d.validate());
        d.datalen(4096).flags(AqDescriptor.SI | AqDescriptor.BUF | AqDescriptor.LB | AqDescriptor.RD);
        assertEquals(AqDescriptorCheck.ACCEPTED, d.validate());
        d.flags(AqDescriptor.SI);
        assertEquals(AqDescriptorCheck.LENGTH_WITHOUT_BUFFER, d.validate());
        assertEquals(4, d.failedAt());
    }

    @Test
    void errorAndOpcodeNamesComeFromTheHeaders() {
        assertEquals("EINVAL", AqError.name(14));
        assertEquals("ESRCH", AqError.name(AqError.ESRCH));
        assertEquals("EBADBUF", AqError.name(28));
        assertEquals("UNKNOWN", AqError.name(4));
        assertEquals("UNKNOWN", AqError.name(-1));
        assertFalse(AqError.defined(29));
        assertEquals("get_ver", AqOpcode.name(0x0001));
        assertEquals("list_dev_caps", AqOpcode.name(0x000B));
        assertEquals("nvm_read", AqOpcode.name(0x0701));
        assertEquals("fw_logs_event", AqOpcode.name(0xFF33));
        assertEquals("unknown", AqOpcode.name(0x7777));
        assertTrue(AqOpcode.known(AqOpcode.ADD_RDMA_QSET));
        assertTrue(AqOpcode.all().length > 100);
    }
}
