package dev.irdmaemu.fw.elf;

import dev.irdmaemu.fw.Check;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * An ELF64 little-endian object file as the guest kit reads a kernel module (the ELF specification's Elf64_Ehdr,
 * Elf64_Shdr and Elf64_Sym): the header's type and section header table, each section's type, offset, size and
 * link, and the symbol tables' entries with their names. Everything read from the file is bounds-checked against
 * it: {@link #validate()} says whether the header and the section header table are there, and the section and
 * symbol accessors answer only for entries {@link #sectionInFile} and {@link #symbols} found inside the file.
 */
public final class Elf64Object {
    public static final int ET_REL = 1;
    public static final int SHT_PROGBITS = 1;
    public static final int SHT_SYMTAB = 2;
    public static final int SHT_STRTAB = 3;
    public static final int SECTION_HEADER_SIZE = 64;
    public static final int SYMBOL_SIZE = 24;
    private static final int HEADER_SIZE = 64;
    private static final int MAGIC = 0x464c457f;
    private static final int EI_CLASS = 4;
    private static final int EI_DATA = 5;
    private static final int ELFCLASS64 = 2;
    private static final int ELFDATA2LSB = 1;
    private static final int E_TYPE = 16;
    private static final int E_SHOFF = 0x28;
    private static final int E_SHENTSIZE = 0x3a;
    private static final int E_SHNUM = 0x3c;
    private static final int SH_TYPE = 4;
    private static final int SH_OFFSET = 24;
    private static final int SH_SIZE = 32;
    private static final int SH_LINK = 40;
    private static final int ST_NAME = 0;
    private static final int ST_SHNDX = 6;
    private static final int ST_VALUE = 8;
    private static final int ST_SIZE = 16;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        NOT_ELF("not an ELF file"),
        NOT_ELF64_LE("not ELF64 little-endian"),
        SECTION_HEADERS_OUTSIDE("section headers out of the file");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    private final byte[] file;
    private final ByteBuffer b;

    public Elf64Object(byte[] file) {
        this.file = file;
        this.b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    }

    public Status validate() {
        if (file.length < HEADER_SIZE || b.getInt(0) != MAGIC) {
            return Status.NOT_ELF;
        }
        if (file[EI_CLASS] != ELFCLASS64 || file[EI_DATA] != ELFDATA2LSB) {
            return Status.NOT_ELF64_LE;
        }
        long shoff = b.getLong(E_SHOFF);
        if ((b.getShort(E_SHENTSIZE) & 0xffff) != SECTION_HEADER_SIZE
                || !within(shoff, (long) sectionCount() * SECTION_HEADER_SIZE)) {
            return Status.SECTION_HEADERS_OUTSIDE;
        }
        return Status.ACCEPTED;
    }

    /** e_type (valid after {@link #validate()} accepted). */
    public int type() {
        return b.getShort(E_TYPE) & 0xffff;
    }

    public int sectionCount() {
        return b.getShort(E_SHNUM) & 0xffff;
    }

    private int sectionHeader(int i) {
        return (int) (b.getLong(E_SHOFF) + (long) i * SECTION_HEADER_SIZE);
    }

    public int sectionType(int i) {
        return b.getInt(sectionHeader(i) + SH_TYPE);
    }

    public long sectionOffset(int i) {
        return b.getLong(sectionHeader(i) + SH_OFFSET);
    }

    public long sectionSize(int i) {
        return b.getLong(sectionHeader(i) + SH_SIZE);
    }

    public int sectionLink(int i) {
        return b.getInt(sectionHeader(i) + SH_LINK);
    }

    /** Whether section {@code i} exists and its bytes lie inside the file. */
    public boolean sectionInFile(int i) {
        return i > 0 && i < sectionCount() && within(sectionOffset(i), sectionSize(i));
    }

    /** The symbols of symbol table section {@code i}: how many whole entries lie inside it. */
    public int symbols(int i) {
        return sectionInFile(i) ? (int) (sectionSize(i) / SYMBOL_SIZE) : 0;
    }

    private int symbol(int table, int k) {
        return (int) (sectionOffset(table) + (long) k * SYMBOL_SIZE);
    }

    public long symbolNameOffset(int table, int k) {
        return b.getInt(symbol(table, k) + ST_NAME) & 0xffff_ffffL;
    }

    public int symbolSection(int table, int k) {
        return b.getShort(symbol(table, k) + ST_SHNDX) & 0xffff;
    }

    public long symbolValue(int table, int k) {
        return b.getLong(symbol(table, k) + ST_VALUE);
    }

    public long symbolSize(int table, int k) {
        return b.getLong(symbol(table, k) + ST_SIZE);
    }

    /**
     * Whether the NUL-terminated string at {@code offset} of string table section {@code strings} is {@code name}
     * (false when it would run past the table).
     */
    public boolean nameIs(int strings, long offset, String name) {
        byte[] wanted = name.getBytes(StandardCharsets.US_ASCII);
        long at = sectionOffset(strings) + offset;
        long end = sectionOffset(strings) + sectionSize(strings);
        if (offset < 0 || at + wanted.length >= end) {
            return false;
        }
        for (int i = 0; i < wanted.length; i++) {
            if (file[(int) at + i] != wanted[i]) {
                return false;
            }
        }
        return file[(int) (at + wanted.length)] == 0;
    }

    private boolean within(long offset, long size) {
        return offset >= 0 && size >= 0 && offset <= file.length && size <= file.length - offset;
    }
}
