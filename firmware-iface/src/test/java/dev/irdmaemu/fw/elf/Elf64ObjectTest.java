package dev.irdmaemu.fw.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A minimal ELF64 relocatable object built by hand (header, four sections: null, .data, .symtab, .strtab, one symbol),
 * read back; and each kind of broken file rejected with its status, nothing read outside the bytes.
 */
class Elf64ObjectTest {
    /** Layout: header 0..64, .data at 64 (8 bytes), .strtab at 72 (16), .symtab at 88 (2 entries), headers at 136. */
    static byte[] object() {
        ByteBuffer b = ByteBuffer.allocate(136 + 4 * 64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, 0x464c457f).put(4, (byte) 2).put(5, (byte) 1).putShort(16, (short) 1);
        b.putLong(0x28, 136).putShort(0x3a, (short) 64).putShort(0x3c, (short) 4);
        b.put(64 + 3, (byte) 1); // the flag in .data
        byte[] names = "\0flag_byte\0".getBytes(StandardCharsets.US_ASCII);
        b.put(72, names);
        int sym = 88 + 24; // entry 1 (entry 0 is the null symbol)
        b.putInt(sym, 1).putShort(sym + 6, (short) 1).putLong(sym + 8, 3).putLong(sym + 16, 1);
        section(b, 1, Elf64Object.SHT_PROGBITS, 64, 8, 0);
        section(b, 2, Elf64Object.SHT_SYMTAB, 88, 48, 3);
        section(b, 3, Elf64Object.SHT_STRTAB, 72, 16, 0);
        return b.array();
    }

    private static void section(ByteBuffer b, int i, int type, long offset, long size, int link) {
        int sh = 136 + 64 * i;
        b.putInt(sh + 4, type).putLong(sh + 24, offset).putLong(sh + 32, size).putInt(sh + 40, link);
    }

    @Test
    void readsSectionsAndSymbolsBack() {
        Elf64Object elf = new Elf64Object(object());
        assertEquals(Elf64Object.Status.ACCEPTED, elf.validate());
        assertEquals(Elf64Object.ET_REL, elf.type());
        assertEquals(4, elf.sectionCount());
        assertEquals(Elf64Object.SHT_SYMTAB, elf.sectionType(2));
        assertEquals(3, elf.sectionLink(2));
        assertEquals(2, elf.symbols(2));
        assertTrue(elf.nameIs(3, elf.symbolNameOffset(2, 1), "flag_byte"));
        assertFalse(elf.nameIs(3, elf.symbolNameOffset(2, 1), "flag_bytes"));
        assertEquals(1, elf.symbolSection(2, 1));
        assertEquals(3, elf.symbolValue(2, 1));
        assertEquals(1, elf.symbolSize(2, 1));
    }

    @Test
    void brokenFilesAreRejectedWithTheirStatus() {
        assertEquals(Elf64Object.Status.NOT_ELF, new Elf64Object(new byte[10]).validate());
        byte[] notElf = object();
        notElf[0] = 0;
        assertEquals(Elf64Object.Status.NOT_ELF, new Elf64Object(notElf).validate());
        byte[] elf32 = object();
        elf32[4] = 1;
        assertEquals(Elf64Object.Status.NOT_ELF64_LE, new Elf64Object(elf32).validate());
        byte[] cut = Arrays.copyOf(object(), 200);
        assertEquals(Elf64Object.Status.SECTION_HEADERS_OUTSIDE, new Elf64Object(cut).validate());
        byte[] lying = object();
        ByteBuffer.wrap(lying).order(ByteOrder.LITTLE_ENDIAN).putLong(136 + 64 * 3 + 32, 1L << 40);
        Elf64Object e = new Elf64Object(lying);
        assertEquals(Elf64Object.Status.ACCEPTED, e.validate());
        assertFalse(e.sectionInFile(3), "a section reaching past the file");
        assertFalse(e.nameIs(3, 1L << 40, "x"), "a name far outside is no match, not an exception");
    }
}
