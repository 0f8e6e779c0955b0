package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.fw.elf.Elf64Object;
import java.io.IOException;

/**
 * siw with MPA CRCs asked for, for the like-for-like comparison of {@code rping-throughput}: a copy of the kit's
 * siw module with its {@code mpa_crc_required} set. siw_main.c defines {@code mpa_crc_required} as a compile-time
 * {@code const bool} (false), not a module parameter; siw_cm.c reads it when it sends an MPA request (the CRC
 * flag) and when it checks the reply, from another translation unit, so the value lives in the module's
 * {@code .rodata} and one byte there decides. With it set, two in-guest siw endpoints compute CRC32c over every
 * FPDU, as the guest's siw does toward the model (whose CM, as irdma's, always asks for CRC).
 *
 * <p>The module is an ELF64 little-endian relocatable object (ET_REL: a symbol's value is its offset in its
 * section). Every offset and size read from it is checked against the file before use; anything unexpected (not
 * ELF64 LE REL, no symbol table, no such symbol, a symbol that is not one byte of file-backed data, a value other
 * than 0 or 1) is an {@link IOException} naming it, and the caller boots without the variant.
 */
public final class SiwCrcModule {
    static final String SYMBOL = "mpa_crc_required";
    /** Where the guest's init looks for it (the kit's modules lie in /usr/lib/modules, /lib links there). */
    public static final String OVERLAY_PATH = "usr/lib/modules/siw-p2p-crc.ko";

    private SiwCrcModule() {
    }

    /** A copy of {@code module} with {@value #SYMBOL} true; {@code module} is not changed. */
    public static byte[] withCrcRequired(byte[] module) throws IOException {
        byte[] out = module.clone();
        out[checked(fileOffsetOf(module, SYMBOL), module)] = 1;
        return out;
    }

    private static int checked(long offset, byte[] module) throws IOException {
        int v = module[(int) offset];
        if (v != 0 && v != 1) {
            throw new IOException("siw module: " + SYMBOL + " holds " + v + ", not a bool");
        }
        return (int) offset;
    }

    /** The file offset of the one-byte data symbol {@code name} (read through {@link Elf64Object}). */
    static long fileOffsetOf(byte[] module, String name) throws IOException {
        Elf64Object elf = new Elf64Object(module);
        Elf64Object.Status status = elf.validate();
        if (!status.accepted()) {
            throw new IOException("siw module: " + status.describe());
        }
        if (elf.type() != Elf64Object.ET_REL) {
            throw new IOException("siw module: not a relocatable object");
        }
        for (int table = 0; table < elf.sectionCount(); table++) {
            if (elf.sectionType(table) != Elf64Object.SHT_SYMTAB) {
                continue;
            }
            int strings = elf.sectionLink(table);
            if (!elf.sectionInFile(table) || !elf.sectionInFile(strings)) {
                throw new IOException("siw module: symbol table out of the file");
            }
            if (elf.sectionType(strings) != Elf64Object.SHT_STRTAB) {
                throw new IOException("siw module: string table out of the file");
            }
            for (int k = 0; k < elf.symbols(table); k++) {
                if (!elf.nameIs(strings, elf.symbolNameOffset(table, k), name)) {
                    continue;
                }
                int section = elf.symbolSection(table, k);
                long value = elf.symbolValue(table, k);
                if (elf.symbolSize(table, k) != 1 || section == 0 || section >= elf.sectionCount()) {
                    throw new IOException("siw module: " + name + " is not a one-byte defined symbol");
                }
                if (elf.sectionType(section) != Elf64Object.SHT_PROGBITS || !elf.sectionInFile(section)
                        || value < 0 || value >= elf.sectionSize(section)) {
                    throw new IOException("siw module: " + name + " is not in file-backed data");
                }
                return elf.sectionOffset(section) + value;
            }
        }
        throw new IOException("siw module: no symbol " + name);
    }
}
