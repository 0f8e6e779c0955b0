package dev.irdmaemu.fw.aq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Known bytes for the AQ buffer codecs, and no input that makes a parser throw. */
class AqBufferCodecsTest {

    @Test
    void txQueueContextPacksFieldsAtTheirBitPositions() {
        // ice_common.c ice_tlan_ctx_fields: base 57@0 (128-byte units), pf_num 3@65, src_vsi 10@80, qlen 13@135.
        byte[] raw = new byte[TxQueueContext.SIZE];
        TxQueueContext c = new TxQueueContext().wrap(BytesStore.wrap(raw), 0);
        c.ringBase(0x80).pfNum(1).sourceVsi(3).queueLength(512).queueInFunction(0x3FFF);
        assertEquals(0x01, raw[0]);
        assertEquals(0x02, raw[8], "pf_num 1 -> bit 66");
        assertEquals(0x03, raw[10], "src_vsi 3 -> bits 80, 81");
        assertEquals(0x01, raw[18] & 0x01, "qlen 512 -> bit 144");
        // qnum_in_func 14 bits at 114: bits 114..127 -> byte 14 bits 2..7, byte 15 all
        assertEquals((byte) 0xFC, raw[14]);
        assertEquals((byte) 0xFF, raw[15]);
        assertEquals(0x80, c.ringBase());
        assertEquals(512, c.queueLength());
        assertEquals(3, c.sourceVsi());
        assertEquals(1, c.pfNum());
        assertEquals(0x3FFF, c.queueInFunction());
        assertEquals(0, c.portNum());
    }

    @Test
    void switchRuleSizeFollowsItsType() {
        byte[] raw = new byte[64];
        BytesStore<?, ?> s = BytesStore.wrap(raw);
        SwitchRule r = new SwitchRule().wrap(s, 0, 64);
        s.writeShort(0, (short) SwitchRule.T_LKUP_RX);
        s.writeShort(14, (short) 16);
        assertEquals(32, r.size());
        s.writeShort(0, (short) SwitchRule.T_LG_ACT);
        s.writeShort(6, (short) 3);
        assertEquals(20, r.size());
        s.writeShort(0, (short) SwitchRule.T_VSI_LIST_SET);
        assertEquals(14, r.size());
        assertEquals(3, r.numberVsi());
        s.writeShort(6, (short) 40);
        assertEquals(SwitchRule.Status.BODY_BEYOND_BUFFER, r.validate());
    }

    @Test
    void disableItemPadsAnEvenCount() {
        byte[] raw = new byte[16];
        DisableTxqItem d = new DisableTxqItem().wrap(BytesStore.wrap(raw), 0, 16).write(0x20, 1, 2);
        assertEquals(12, d.size(), "6 + 2 * 2 + 2 bytes of padding");
        d.write(0x20, 1);
        assertEquals(8, d.size());
        d.write(0x20, 1, 2, 3);
        assertEquals(12, d.size());
    }

    @Test
    void pkgBufferRules() {
        byte[] raw = new byte[PkgBuffer.SIZE];
        BytesStore<?, ?> s = BytesStore.wrap(raw);
        PkgBuffer b = new PkgBuffer().wrap(s, 0, PkgBuffer.SIZE);
        s.writeShort(0, (short) 1);
        s.writeShort(2, (short) 48);
        s.writeInt(4, PkgBuffer.SID_METADATA);
        s.writeShort(8, (short) 12);
        s.writeShort(10, (short) 36);
        s.writeByte(12, (byte) 1);
        s.writeByte(13, (byte) 3);
        s.writeByte(14, (byte) 41);
        assertEquals(PkgBuffer.Status.ACCEPTED, b.validate());
        assertEquals(0x01032900, b.metaVersion(0));
        assertFalse(b.isMetadataBuffer());
        s.writeShort(2, (short) 47);
        assertEquals(PkgBuffer.Status.SECTION_BEYOND_DATA_END, b.validate());
        assertEquals(10, b.failedAt());
        assertEquals(PkgBuffer.Status.TRUNCATED, new PkgBuffer().wrap(s, 0, 4095).validate());
    }

    @Test
    void pkgInfoListEntryLayout() {
        byte[] raw = new byte[PkgInfoList.sizeFor(2)];
        PkgInfoList l = new PkgInfoList().wrap(BytesStore.wrap(raw), 0, raw.length).count(2);
        byte[] name = new byte[28];
        name[0] = 'I';
        l.entry(1, 0x01032900, name, 7, false, true, false, false);
        assertEquals(2, raw[0]);
        assertEquals(1, raw[4 + 40]);
        assertEquals(3, raw[4 + 41]);
        assertEquals(41, raw[4 + 42]);
        assertEquals('I', raw[4 + 44]);
        assertEquals(7, raw[4 + 72]);
        assertEquals(1, raw[4 + 77], "is_active");
        assertTrue(l.active(1));
        assertFalse(l.inNvm(1));
    }

    @Property(tries = 500)
    void noBytesMakeAParserThrow(@ForAll @Size(max = 4200) byte[] bytes) {
        BytesStore<?, ?> s = BytesStore.wrap(bytes);
        PkgBuffer p = new PkgBuffer().wrap(s, 0, bytes.length);
        if (p.validate().accepted()) {
            for (int i = 0; i < p.sectionCount(); i++) {
                p.metaVersion(i);
            }
        }
        DdpPackageFile f = new DdpPackageFile().wrap(s, 0, bytes.length);
        f.validate();
        f.findSegment(DdpPackageFile.SEGMENT_TYPE_SIGNING);
        new SwitchRule().wrap(s, 0, bytes.length).validate();
        new SchedGroup().wrap(s, 0, bytes.length).validate(SchedElement.SIZE);
        new TxQueueGroup().wrap(s, 0, bytes.length).validate();
        new RdmaQsetGroup().wrap(s, 0, bytes.length).validate();
        new DisableTxqItem().wrap(s, 0, bytes.length).validate();
        TxQueueContext c = new TxQueueContext().wrap(s, 0);
        c.ringBase();
        c.queueLength();
    }
}
