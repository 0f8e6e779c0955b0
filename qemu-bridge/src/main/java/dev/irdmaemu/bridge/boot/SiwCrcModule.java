package dev.irdmaemu.bridge.boot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

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

    private static final int ET_REL = 1;
    private static final int SHT_PROGBITS = 1;
    private static final int SHT_SYMTAB = 2;
    private static final int SHT_STRTAB = 3;
    private static final int SECTION_HEADER = 64;
    private static final int SYMBOL_ENTRY = 24;

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

    /** The file offset of the one-byte data symbol {@code name}. */
    static long fileOffsetOf(byte[] module, String name) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(module).order(ByteOrder.LITTLE_ENDIAN);
        if (module.length < 64 || b.getInt(0) != 0x464c457f) {
            throw new IOException("siw module: not an ELF file");
        }
        if (module[4] != 2 || module[5] != 1) {
            throw new IOException("siw module: not ELF64 little-endian");
        }
        if (b.getShort(16) != ET_REL) {
            throw new IOException("siw module: not a relocatable object");
        }
        long shoff = b.getLong(0x28);
        int shentsize = b.getShort(0x3a) & 0xffff;
        int shnum = b.getShort(0x3c) & 0xffff;
        if (shentsize != SECTION_HEADER || shoff < 0 || shoff + (long) shnum * SECTION_HEADER > module.length) {
            throw new IOException("siw module: section headers out of the file");
        }
        for (int i = 0; i < shnum; i++) {
            int sh = (int) (shoff + (long) i * SECTION_HEADER);
            if (b.getInt(sh + 4) != SHT_SYMTAB) {
                continue;
            }
            long symOff = b.getLong(sh + 24);
            long symSize = b.getLong(sh + 32);
            int strIndex = b.getInt(sh + 40);
            if (!within(symOff, symSize, module) || strIndex <= 0 || strIndex >= shnum) {
                throw new IOException("siw module: symbol table out of the file");
            }
            int str = (int) (shoff + (long) strIndex * SECTION_HEADER);
            long strOff = b.getLong(str + 24);
            long strSize = b.getLong(str + 32);
            if (b.getInt(str + 4) != SHT_STRTAB || !within(strOff, strSize, module)) {
                throw new IOException("siw module: string table out of the file");
            }
            byte[] wanted = name.getBytes(StandardCharsets.US_ASCII);
            for (long s = symOff; s + SYMBOL_ENTRY <= symOff + symSize; s += SYMBOL_ENTRY) {
                long nameAt = strOff + (b.getInt((int) s) & 0xffff_ffffL);
                if (!named(module, nameAt, strOff + strSize, wanted)) {
                    continue;
                }
                int section = b.getShort((int) s + 6) & 0xffff;
                long value = b.getLong((int) s + 8);
                long size = b.getLong((int) s + 16);
                if (size != 1 || section == 0 || section >= shnum) {
                    throw new IOException("siw module: " + name + " is not a one-byte defined symbol");
                }
                int target = (int) (shoff + (long) section * SECTION_HEADER);
                long secOff = b.getLong(target + 24);
                long secSize = b.getLong(target + 32);
                if (b.getInt(target + 4) != SHT_PROGBITS || !within(secOff, secSize, module)
                        || value < 0 || value >= secSize) {
                    throw new IOException("siw module: " + name + " is not in file-backed data");
                }
                return secOff + value;
            }
        }
        throw new IOException("siw module: no symbol " + name);
    }

    private static boolean within(long offset, long size, byte[] module) {
        return offset >= 0 && size >= 0 && offset <= module.length && size <= module.length - offset;
    }

    /** True when the NUL-terminated string at {@code at} (before {@code end}) is {@code wanted}. */
    private static boolean named(byte[] module, long at, long end, byte[] wanted) {
        if (at < 0 || at + wanted.length >= end) {
            return false;
        }
        for (int i = 0; i < wanted.length; i++) {
            if (module[(int) at + i] != wanted[i]) {
                return false;
            }
        }
        return module[(int) at + wanted.length] == 0;
    }
}
