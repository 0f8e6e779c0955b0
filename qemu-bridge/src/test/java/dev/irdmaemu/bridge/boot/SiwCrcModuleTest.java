package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The siw module's mpa_crc_required byte, found through the ELF symbol table of a hand-made relocatable object. */
class SiwCrcModuleTest {
    private static final int RODATA = 64;        // 16 bytes of .rodata
    private static final int SYMTAB = 80;        // 3 symbols of 24 bytes
    private static final int STRTAB = 152;       // names
    private static final int SECTIONS = 256;     // 5 section headers of 64 bytes
    private static final int SYMBOL_VALUE = 11;  // mpa_crc_required's offset in .rodata

    /**
     * An ELF64 LE ET_REL object: sections null, .rodata (PROGBITS), .symtab, .strtab, .bss (NOBITS); symbols null,
     * {@code mpa_crc_required} (1 byte at .rodata + 11, holding {@code value}), {@code in_bss} (1 byte in .bss).
     */
    static byte[] module(byte value) {
        byte[] m = new byte[SECTIONS + 5 * 64];
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, 0x464c457f).put(4, (byte) 2).put(5, (byte) 1).put(6, (byte) 1);
        b.putShort(16, (short) 1).putShort(18, (short) 62).putLong(0x28, SECTIONS).putShort(0x34, (short) 64)
                .putShort(0x3a, (short) 64).putShort(0x3c, (short) 5).putShort(0x3e, (short) 3);
        for (int i = 0; i < 16; i++) {
            m[RODATA + i] = (byte) (0x40 + i);
        }
        m[RODATA + SYMBOL_VALUE] = value;
        byte[] names = "\0mpa_crc_required\0in_bss\0".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(names, 0, m, STRTAB, names.length);
        symbol(b, 1, 1, 1, SYMBOL_VALUE);
        symbol(b, 2, 18, 4, 0);
        section(b, 1, 1, RODATA, 16, 0);
        section(b, 2, 2, SYMTAB, 72, 3);
        section(b, 3, 3, STRTAB, names.length, 0);
        section(b, 4, 8, 0, 64, 0);
        return m;
    }

    private static void symbol(ByteBuffer b, int index, int name, int section, long value) {
        int at = SYMTAB + index * 24;
        b.putInt(at, name).put(at + 4, (byte) 0x11).putShort(at + 6, (short) section).putLong(at + 8, value)
                .putLong(at + 16, 1);
    }

    private static void section(ByteBuffer b, int index, int type, long offset, long size, int link) {
        int at = SECTIONS + index * 64;
        b.putInt(at + 4, type).putLong(at + 24, offset).putLong(at + 32, size).putInt(at + 40, link);
    }

    @Test
    void setsTheOneByteOfTheSymbolAndNothingElse() throws IOException {
        byte[] original = module((byte) 0);
        byte[] before = original.clone();
        assertEquals(RODATA + SYMBOL_VALUE, SiwCrcModule.fileOffsetOf(original, SiwCrcModule.SYMBOL));
        byte[] patched = SiwCrcModule.withCrcRequired(original);
        assertArrayEquals(before, original, "the kit's module is not changed");
        assertEquals(1, patched[RODATA + SYMBOL_VALUE]);
        patched[RODATA + SYMBOL_VALUE] = 0;
        assertArrayEquals(before, patched, "one byte differs");
    }

    @Test
    void aSymbolAlreadyTrueStaysTrue() throws IOException {
        assertEquals(1, SiwCrcModule.withCrcRequired(module((byte) 1))[RODATA + SYMBOL_VALUE]);
    }

    @Test
    void refusesWhatIsNotTheExpectedModule() {
        assertThrows(IOException.class, () -> SiwCrcModule.withCrcRequired(module((byte) 7)), "not a bool");
        assertThrows(IOException.class, () -> SiwCrcModule.fileOffsetOf(module((byte) 0), "in_bss"),
                "a symbol in .bss has no byte in the file");
        assertThrows(IOException.class, () -> SiwCrcModule.fileOffsetOf(module((byte) 0), "peer_to_peer"));
        byte[] notElf = module((byte) 0);
        notElf[1] = 'X';
        assertThrows(IOException.class, () -> SiwCrcModule.withCrcRequired(notElf));
        byte[] elf32 = module((byte) 0);
        elf32[4] = 1;
        assertThrows(IOException.class, () -> SiwCrcModule.withCrcRequired(elf32));
        byte[] truncated = java.util.Arrays.copyOf(module((byte) 0), SECTIONS + 100);
        assertThrows(IOException.class, () -> SiwCrcModule.withCrcRequired(truncated), "section headers cut off");
        byte[] valueOut = module((byte) 0);
        ByteBuffer.wrap(valueOut).order(ByteOrder.LITTLE_ENDIAN).putLong(SYMTAB + 24 + 8, 1L << 40);
        assertThrows(IOException.class, () -> SiwCrcModule.withCrcRequired(valueOut), "value beyond .rodata");
        assertThrows(IOException.class, () -> SiwCrcModule.withCrcRequired(new byte[10]));
    }

    @Test
    void corruptedModulesAreRefusedNeverThrownOn() {
        SplittableRandom random = new SplittableRandom(17);
        byte[] good = module((byte) 0);
        int refused = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] m = good.clone();
            for (int k = 1 + random.nextInt(4); k > 0; k--) {
                m[random.nextInt(m.length)] = (byte) random.nextInt(256);
            }
            try {
                byte[] patched = SiwCrcModule.withCrcRequired(m);
                assertEquals(m.length, patched.length);
            } catch (IOException e) {
                refused++;
            }
        }
        assertTrue(refused > 0, "some corruptions are caught");
    }
}
