package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.reg.Bits;
import org.junit.jupiter.api.Test;

/** A STag splits as the WQE's IRDMA_CQPSQ_STAG_IDX / _KEY fields do (verbs.c irdma_create_stag). */
class StagFieldsTest {
    @Test
    void aStagIsItsIndexAboveItsKey() {
        int stag = StagFields.stag(0x12_3456, 0x1ab);
        assertEquals(0x1234_56ab, stag, "the key keeps its low byte only");
        assertEquals(0x12_3456, StagFields.stagIndexOf(stag));
        assertEquals(0xab, StagFields.stagKeyOf(stag));
        assertEquals(Bits.get(stag & 0xffff_ffffL, CqpWqe.STAG_IDX), StagFields.stagIndexOf(stag));
        assertEquals(Bits.get(stag, CqpWqe.STAG_KEY), StagFields.stagKeyOf(stag));
        assertEquals(0xff_ffff, StagFields.stagIndexOf(StagFields.stag(0xff_ffff, 0)), "a 24-bit index, unsigned");
    }
}
