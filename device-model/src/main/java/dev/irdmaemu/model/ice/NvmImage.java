package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqLayout.ShadowRam;

import java.nio.charset.StandardCharsets;

/**
 * A synthetic E810 NVM: a flat flash of {@link #FLASH_SIZE} bytes and a Shadow RAM of 2^{@value
 * IceFirmware#SR_SIZE_LOG2_KB} KiB, laid out the way ice_nvm.c ice_init_nvm walks it:
 * <pre>
 *  SR word 0x00      control word: bits 7:6 = 01b (valid), bit 5 set = the 2nd NVM bank is active
 *  SR 0x18, 0x2D/2E  dev starter version, EETRACK
 *  SR 0x40           PFA pointer -> a TLV area holding the PBA block (type 0x16)
 *  SR 0x42..0x47     NVM / OROM / netlist bank pointers (4 KiB units) and sizes (4 KiB units)
 *  flash 0x000000    a copy of the Shadow RAM
 *  flash 0x010000    NVM bank 1 and, 128 KiB on, bank 2: each a CSS header (length words 2/3, in dwords) then
 *                    a Shadow RAM copy at roundup(hdr_len * 2 + 8, 32) words with its own version words
 *  flash 0x050000    Option ROM banks (64 KiB each), a "$CIV" block with a zero checksum at 0x800
 *                    (ice_get_orom_civd_data)
 *  flash 0x070000    netlist banks (64 KiB each): link topology module id 0x11B, length, 0 nodes, ID block
 * </pre>
 * ice discovers the flash size by bisection over 24 bits (ice_discover_flash_size): a flat read at or past
 * {@link #FLASH_SIZE} must fail with EINVAL, so the size it finds is exactly {@link #FLASH_SIZE}.
 */
public final class NvmImage {
    public static final int FLASH_SIZE = 0x20_0000;
    public static final int SR_BYTES = (1 << IceFirmware.SR_SIZE_LOG2_KB) * 1024;
    public static final int NVM_BANK_PTR = 0x1_0000;
    public static final int NVM_BANK_SIZE = 0x2_0000;
    public static final int OROM_BANK_PTR = 0x5_0000;
    public static final int OROM_BANK_SIZE = 0x1_0000;
    public static final int NETLIST_BANK_PTR = 0x7_0000;
    public static final int NETLIST_BANK_SIZE = 0x1_0000;
    /** CSS header length in dwords (words 2/3 of the NVM bank). */
    public static final int CSS_HDR_DWORDS = 0x80;
    /** Word offset of the Shadow RAM copy in an NVM bank: roundup(0x80 * 2 + 8, 32). */
    public static final int SR_COPY_WORD = (CSS_HDR_DWORDS * 2 + ShadowRam.AUTH_HEADER_LEN + 31) / 32 * 32;
    /** Active bank's dev starter version: major 4 (bits 15:12), minor 0x28 (bits 7:0). */
    public static final int DEV_STARTER_VER = 0x4028;
    public static final int INACTIVE_DEV_STARTER_VER = 0x4014;
    public static final long EETRACK = 0x8001_A5E1L;
    public static final int PFA_WORD = 0x1000;
    public static final String PBA = "K91258-000";
    /** Option ROM combo version in the CIVD block: major 1, build 3316, patch 0 (ICE_OROM_VER_*). */
    public static final long OROM_COMBO_VER = 1L << 24 | 3316L << 8;
    public static final int OROM_CIVD_OFFSET = 0x800;
    public static final int NETLIST_MAJOR = 0x0003;
    public static final int NETLIST_MINOR = 0x0040;

    private final byte[] flash = new byte[FLASH_SIZE];
    private final byte[] sr = new byte[SR_BYTES];

    public NvmImage() {
        word(sr, ShadowRam.CTRL_WORD,
                ShadowRam.CTRL_WORD_VALID << ShadowRam.CTRL_WORD_1_S | ShadowRam.CTRL_WORD_NVM_BANK);
        word(sr, ShadowRam.DEV_STARTER_VER, NvmImage.DEV_STARTER_VER);
        word(sr, ShadowRam.WOL_CFG, 0);
        word(sr, ShadowRam.EETRACK_LO, (int) (EETRACK & 0xFFFF));
        word(sr, ShadowRam.EETRACK_HI, (int) (EETRACK >>> 16));
        word(sr, ShadowRam.PFA_PTR, PFA_WORD);
        word(sr, ShadowRam.FIRST_NVM_BANK_PTR, ShadowRam.PTR_4KB_UNITS | NVM_BANK_PTR / 4096);
        word(sr, ShadowRam.NVM_BANK_SIZE, NVM_BANK_SIZE / 4096);
        word(sr, ShadowRam.FIRST_OROM_BANK_PTR, ShadowRam.PTR_4KB_UNITS | OROM_BANK_PTR / 4096);
        word(sr, ShadowRam.OROM_BANK_SIZE, OROM_BANK_SIZE / 4096);
        word(sr, ShadowRam.NETLIST_BANK_PTR, ShadowRam.PTR_4KB_UNITS | NETLIST_BANK_PTR / 4096);
        word(sr, ShadowRam.NETLIST_BANK_SIZE, NETLIST_BANK_SIZE / 4096);
        // PFA: length word (counts itself, the TLVs and one final word), then the PBA TLV (ice_read_pba_string)
        byte[] pba = PBA.getBytes(StandardCharsets.US_ASCII);
        int pbaWords = (pba.length + 1) / 2;
        int tlvLen = pbaWords + 1;
        word(sr, PFA_WORD, 1 + 2 + tlvLen + 1);
        word(sr, PFA_WORD + 1, ShadowRam.PBA_BLOCK_PTR);
        word(sr, PFA_WORD + 2, tlvLen);
        word(sr, PFA_WORD + 3, pbaWords + 1);
        for (int i = 0; i < pbaWords; i++) {
            int hi = pba[2 * i] & 0xFF;
            int lo = 2 * i + 1 < pba.length ? pba[2 * i + 1] & 0xFF : 0;
            word(sr, PFA_WORD + 4 + i, hi << 8 | lo);
        }
        System.arraycopy(sr, 0, flash, 0, SR_BYTES);
        boolean second = true;
        writeNvmBank(NVM_BANK_PTR + (second ? NVM_BANK_SIZE : 0), NvmImage.DEV_STARTER_VER);
        writeNvmBank(NVM_BANK_PTR + (second ? 0 : NVM_BANK_SIZE), INACTIVE_DEV_STARTER_VER);
        writeOrom(OROM_BANK_PTR);
        writeOrom(OROM_BANK_PTR + OROM_BANK_SIZE);
        writeNetlist(NETLIST_BANK_PTR);
        writeNetlist(NETLIST_BANK_PTR + NETLIST_BANK_SIZE);
    }

    private void writeNvmBank(int at, int version) {
        word(flash, at / 2 + ShadowRam.CSS_HDR_LEN_L, CSS_HDR_DWORDS & 0xFFFF);
        word(flash, at / 2 + ShadowRam.CSS_HDR_LEN_H, CSS_HDR_DWORDS >>> 16);
        int copy = at + SR_COPY_WORD * 2;
        System.arraycopy(sr, 0, flash, copy, Math.min(SR_BYTES, NVM_BANK_SIZE - SR_COPY_WORD * 2));
        word(flash, copy / 2 + ShadowRam.DEV_STARTER_VER, version);
    }

    /** struct ice_orom_civd_info (ice_nvm.h): "$CIV", checksum, combo_ver, name length, UTF-16 name; sum 0. */
    private void writeOrom(int at) {
        int c = at + OROM_CIVD_OFFSET;
        flash[c] = '$';
        flash[c + 1] = 'C';
        flash[c + 2] = 'I';
        flash[c + 3] = 'V';
        for (int i = 0; i < 4; i++) {
            flash[c + 5 + i] = (byte) (OROM_COMBO_VER >>> 8 * i);
        }
        String name = "1.3316.0";
        flash[c + 9] = (byte) name.length();
        for (int i = 0; i < name.length(); i++) {
            flash[c + 10 + 2 * i] = (byte) name.charAt(i);
        }
        int sum = 0;
        for (int i = 0; i < 74; i++) {
            sum += flash[c + i];
        }
        flash[c + 4] = (byte) -sum;
    }

    /** ice_get_netlist_info: module id, module length >= 0x30, node count 0, the ID block at word 6. */
    private void writeNetlist(int at) {
        int w = at / 2;
        word(flash, w, ShadowRam.NETLIST_LINK_TOPO_MOD_ID);
        word(flash, w + 2, ShadowRam.NETLIST_ID_BLK_SIZE + 8);
        word(flash, w + 3, 0);
        int id = w + 6;
        word(flash, id + 2, NETLIST_MAJOR);
        word(flash, id + 3, 0);
        word(flash, id + 4, NETLIST_MINOR);
        word(flash, id + 5, 0);
        word(flash, id + 6, 1);
        word(flash, id + 8, 1);
        word(flash, id + 0x2F, 0x11);
    }

    private static void word(byte[] a, int wordOffset, int value) {
        a[wordOffset * 2] = (byte) value;
        a[wordOffset * 2 + 1] = (byte) (value >>> 8);
    }

    /** True when {@code [offset, offset + length)} lies in the flat flash. */
    public boolean inFlash(long offset, long length) {
        return offset >= 0 && length >= 0 && offset + length <= FLASH_SIZE;
    }

    public boolean inShadowRam(long offset, long length) {
        return offset >= 0 && length >= 0 && offset + length <= SR_BYTES;
    }

    /** Flash byte at {@code offset} (caller checked {@link #inFlash}). */
    public int flashByte(int offset) {
        return flash[offset] & 0xFF;
    }

    public int srByte(int offset) {
        return sr[offset] & 0xFF;
    }

    public int srWord(int word) {
        return srByte(word * 2) | srByte(word * 2 + 1) << 8;
    }

    public int flashWord(int byteOffset) {
        return flashByte(byteOffset) | flashByte(byteOffset + 1) << 8;
    }

    byte[] flash() {
        return flash;
    }

    byte[] shadowRam() {
        return sr;
    }
}
