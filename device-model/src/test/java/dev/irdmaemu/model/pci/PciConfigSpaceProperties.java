package dev.irdmaemu.model.pci;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * No sequence of guest configuration writes throws, and the read-only bytes (the IDs, class, header type, every
 * capability's id and next pointer, the MSI-X geometry, the extended-capability headers, the DSN, the BAR type
 * bits, the ROM BAR) never change; BAR sizing still answers the BAR's size afterwards.
 */
class PciConfigSpaceProperties {
    /** [offset, length] of the bytes no guest write may change. */
    private static final int[][] READ_ONLY = {
        {0x00, 4}, {0x08, 4}, {0x0e, 1}, {0x2c, 4}, {0x30, 4}, {0x34, 1}, {0x3d, 1},
        {0x40, 2}, {0x42, 2}, {0x70, 2}, {0x74, 8}, {0xa0, 8}, {0xac, 4}, {0xb2, 2}, {0xc4, 4}, {0xcc, 4},
        {0x100, 4}, {0x150, 12},
    };

    record Write(int offset, int size, int value) {
    }

    @Provide
    Arbitrary<List<Write>> writes() {
        // Half the offsets land in the header and the standard capabilities, where the fields are.
        Arbitrary<Integer> offset = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.integers().between(0, 0xdf)),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0x100, 0x15f)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(-8, 4200)));
        Arbitrary<Integer> size = Arbitraries.of(1, 2, 4, 4, 4, 0, 3, 8, -1);
        Arbitrary<Integer> value = Arbitraries.oneOf(Arbitraries.integers(), Arbitraries.of(-1, 0, 0x8000));
        return Combinators.combine(offset, size, value).as(Write::new).list().ofMaxSize(40);
    }

    @Property(tries = 200)
    void noWriteSequenceThrowsOrChangesAReadOnlyByte(@ForAll("writes") List<Write> writes) {
        PciTestRig rig = new PciTestRig();
        E810PciFunction pci = rig.pci;
        byte[][] before = snapshot(pci);
        int bar0Type = pci.configRead(0x10, 4) & 0xf;
        int bar3Type = pci.configRead(0x1c, 4) & 0xf;
        for (Write w : writes) {
            pci.configWrite(w.offset(), w.size(), w.value());
        }
        byte[][] after = snapshot(pci);
        for (int i = 0; i < READ_ONLY.length; i++) {
            assertArrayEquals(before[i], after[i], "read-only bytes at 0x" + Integer.toHexString(READ_ONLY[i][0])
                    + " after " + writes);
        }
        assertEquals(bar0Type, pci.configRead(0x10, 4) & 0xf);
        assertEquals(bar3Type, pci.configRead(0x1c, 4) & 0xf);
        pci.configWrite(0x10, 4, -1);
        pci.configWrite(0x14, 4, -1);
        long mask = (pci.configRead(0x14, 4) & 0xffff_ffffL) << 32 | (pci.configRead(0x10, 4) & 0xffff_fff0L);
        assertEquals(pci.barSize(0), ~mask + 1);
    }

    private static byte[][] snapshot(E810PciFunction pci) {
        byte[][] s = new byte[READ_ONLY.length][];
        for (int i = 0; i < READ_ONLY.length; i++) {
            s[i] = new byte[READ_ONLY[i][1]];
            pci.configRead(READ_ONLY[i][0], s[i], 0, s[i].length);
        }
        return s;
    }
}
