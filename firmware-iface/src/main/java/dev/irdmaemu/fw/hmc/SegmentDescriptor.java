package dev.irdmaemu.fw.hmc;

import dev.irdmaemu.fw.reg.Bits;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One HMC segment-descriptor update: the (command, data) pair of {@code struct irdma_update_sd_entry} (hmc.h) that
 * irdma_set_sd_entry / irdma_clr_sd_entry (hmc.c) encode with the PFHMC_SD* field masks (irdma.h) and
 * cqp_sds_wqe_fill (ctrl.c) carries inline in an Update PE SDs WQE or, from the fourth entry on, in a host buffer
 * of 16-byte entries (command quadword, then data quadword).
 * <pre>
 *  command: bits 14:0 SD index, BIT(15) set by the driver (unnamed in hmc.c; the PMSDPARTSEL position of
 *           PFHMC_PDINV), bit 31 IRDMA_PFHMC_SDCMD_PMSDWR (write)
 *  data:    bit 0 PMSDVALID, bit 1 PMSDTYPE (0 paged, 1 direct), bits 11:2 PMSDBPCOUNT (512), bits 63:12 the
 *           backing address: a 4 KiB PD page (paged) or a 2 MiB backing page (direct)
 * </pre>
 * A cleared SD keeps type and BP count, with valid 0 and no address. All static: the values are quadwords.
 */
public final class SegmentDescriptor {
    private SegmentDescriptor() {
    }

    /** sizeof(struct irdma_update_sd_entry). */
    public static final int ENTRY_SIZE = 16;

    public static final long CMD_SD_INDEX = Bits.genmask(14, 0);
    /** BIT(15) of the command, always set by irdma_set_sd_entry / irdma_clr_sd_entry. */
    public static final long CMD_PART_SEL = Bits.bit(15);
    public static final long CMD_RESERVED = Bits.genmask(30, 16);
    /** IRDMA_PFHMC_SDCMD_PMSDWR. */
    public static final long CMD_WRITE = Bits.bit(31);

    /** IRDMA_PFHMC_SDDATALOW_PMSDVALID. */
    public static final long DATA_VALID = Bits.bit(0);
    /** IRDMA_PFHMC_SDDATALOW_PMSDTYPE: 0 paged, 1 direct. */
    public static final long DATA_TYPE_DIRECT = Bits.bit(1);
    /** IRDMA_PFHMC_SDDATALOW_PMSDBPCOUNT. */
    public static final long DATA_BP_COUNT = Bits.genmask(11, 2);
    /** IRDMA_PFHMC_SDDATALOW_PMSDDATALOW (31:12) and the high word: the backing address. */
    public static final long DATA_ADDRESS = Bits.genmask(63, 12);

    /** IRDMA_HMC_MAX_BP_COUNT: PDs per paged SD, 4 KiB pages per 2 MiB direct SD. */
    public static final int MAX_BP_COUNT = 512;
    /** IRDMA_HMC_DIRECT_BP_SIZE. */
    public static final long DIRECT_BP_SIZE = 0x20_0000L;
    /** IRDMA_HMC_PAGED_BP_SIZE. */
    public static final long PAGED_BP_SIZE = 4096;

    // --- writers (the driver's side)

    /** The command irdma_set_sd_entry / irdma_clr_sd_entry write for SD {@code sdIndex}. */
    public static long command(int sdIndex) {
        return (sdIndex & 0xffff_ffffL) | CMD_WRITE | CMD_PART_SEL;
    }

    /** irdma_set_sd_entry's data: {@code address} (PD page when paged, backing page when direct), BP count 512. */
    public static long setData(long address, boolean direct) {
        return address | Bits.prep(DATA_BP_COUNT, MAX_BP_COUNT) | Bits.prep(DATA_TYPE_DIRECT, direct) | DATA_VALID;
    }

    /** irdma_clr_sd_entry's data: type and BP count, not valid, no address. */
    public static long clearData(boolean direct) {
        return Bits.prep(DATA_BP_COUNT, MAX_BP_COUNT) | Bits.prep(DATA_TYPE_DIRECT, direct);
    }

    /** Writes one 16-byte buffer entry (command, data) at absolute {@code offset}, as cqp_sds_wqe_fill copies it. */
    public static void writeEntry(BytesStore<?, ?> dst, long offset, long command, long data) {
        dst.writeLong(offset, command);
        dst.writeLong(offset + 8, data);
    }

    // --- readers (the device's side)

    public static int sdIndex(long command) {
        return Bits.getInt(command, CMD_SD_INDEX);
    }

    public static boolean isWrite(long command) {
        return (command & CMD_WRITE) != 0;
    }

    public static boolean partSel(long command) {
        return (command & CMD_PART_SEL) != 0;
    }

    public static boolean valid(long data) {
        return (data & DATA_VALID) != 0;
    }

    public static boolean direct(long data) {
        return (data & DATA_TYPE_DIRECT) != 0;
    }

    public static int bpCount(long data) {
        return Bits.getInt(data, DATA_BP_COUNT);
    }

    /** The backing address: the PD page of a paged SD, the 2 MiB page of a direct one. */
    public static long address(long data) {
        return data & DATA_ADDRESS;
    }

    /** The command bits the driver may set: all but 30:16 and 63:32 (the command is a u32 register image). */
    public static final long CMD_USED = CMD_SD_INDEX | CMD_PART_SEL | CMD_WRITE;

    /** Validates one (command, data) pair as the device would before programming the SD. */
    public static SdCheck check(long command, long data) {
        if (!isWrite(command)) {
            return SdCheck.NOT_A_WRITE;
        }
        if ((command & ~CMD_USED) != 0) {
            return SdCheck.RESERVED_COMMAND_BITS;
        }
        int bp = bpCount(data);
        if (bp == 0 || bp > MAX_BP_COUNT) {
            return SdCheck.BAD_BP_COUNT;
        }
        long addr = address(data);
        if (!valid(data)) {
            return addr != 0 ? SdCheck.ADDRESS_ON_CLEAR : SdCheck.ACCEPTED;
        }
        if (direct(data) && (addr & (DIRECT_BP_SIZE - 1)) != 0) {
            return SdCheck.MISALIGNED_PAGE;
        }
        return SdCheck.ACCEPTED;
    }
}
