package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.Nvm;
import dev.irdmaemu.fw.aq.AqLayout.NvmChecksum;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * NVM read (0x0701, struct ice_aqc_nvm) over {@link NvmImage}, as ice_nvm.c ice_aq_read_nvm sends it: module 0 with
 * ICE_AQC_NVM_FLASH_ONLY reads the flat flash, module 0 without it the Shadow RAM. Answers:
 * <ul>
 *   <li>a range past the end of the flash or Shadow RAM: EINVAL (ice_discover_flash_size takes exactly this as
 *       "past the end");</li>
 *   <li>a Shadow RAM read crossing a 4 KiB sector (ice_read_flat_nvm never sends one), a length of 0, or a length
 *       larger than the buffer: EINVAL;</li>
 *   <li>a module other than 0 (named modules such as the Tx topology one, 0x14B): ENOENT.</li>
 * </ul>
 * Reads are not refused without the NVM lock: ice always holds it around ice_read_flat_nvm, and its PTP code reads
 * the Shadow RAM without it.
 *
 * <p>NVM checksum (direct 0x0706, struct ice_aqc_nvm_checksum; ice_nvm.c ice_nvm_validate_checksum, the EEPROM test of
 * {@code ethtool -t}): VERIFY answers ICE_AQC_NVM_CHECKSUM_CORRECT (0xBABA) in the checksum field, the model's Shadow
 * RAM being consistent by construction. RECALC is refused with EACCES (the model's NVM is read-only: nothing is ever
 * written that would need a new checksum); a buffer, no flag, both flags or reserved bits with EINVAL.
 */
public final class NvmCommands {
    private final NvmImage nvm;
    private long reads;
    private long pastEnd;
    private long checksums;

    public NvmCommands(NvmImage nvm) {
        this.nvm = nvm;
    }

    public void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.NVM_READ, this::read);
        r.accept(AqOpcode.NVM_CHECKSUM, this::checksum);
    }

    private int read(AqDescriptor d, Bytes<?> b) {
        if (b == null) {
            return AqError.EINVAL;
        }
        long offset = d.paramU16(Nvm.OFFSET_LOW) | (long) d.paramU8(Nvm.OFFSET_HIGH) << 16;
        int flags = d.paramU8(Nvm.CMD_FLAGS);
        int module = d.paramU16(Nvm.MODULE_TYPEID);
        int length = d.paramU16(Nvm.LENGTH);
        if (length == 0 || length > b.readRemaining()) {
            return AqError.EINVAL;
        }
        if (module != Nvm.START_POINT) {
            return AqError.ENOENT;
        }
        reads++;
        boolean flat = (flags & Nvm.FLASH_ONLY) != 0;
        if (flat ? !nvm.inFlash(offset, length) : !nvm.inShadowRam(offset, length)) {
            pastEnd++;
            d.datalen(0);
            return AqError.EINVAL;
        }
        if (!flat && offset / Nvm.SECTOR_UNIT != (offset + length - 1) / Nvm.SECTOR_UNIT) {
            d.datalen(0);
            return AqError.EINVAL;
        }
        byte[] src = flat ? nvm.flash() : nvm.shadowRam();
        for (int i = 0; i < length; i++) {
            b.writeByte(i, src[(int) offset + i]);
        }
        d.datalen(length);
        return AqError.OK;
    }

    private int checksum(AqDescriptor d, Bytes<?> b) {
        int flags = d.paramU8(NvmChecksum.FLAGS);
        if (b != null || d.flag(AqDescriptor.BUF) || flags != NvmChecksum.VERIFY && flags != NvmChecksum.RECALC) {
            return AqError.EINVAL;
        }
        if (flags == NvmChecksum.RECALC) {
            return AqError.EACCES;
        }
        checksums++;
        d.paramU16(NvmChecksum.CHECKSUM, NvmChecksum.CORRECT);
        return AqError.OK;
    }

    /** Checksum verifications answered (one per {@code ethtool -t DEV offline}). */
    public long checksums() {
        return checksums;
    }

    public long reads() {
        return reads;
    }

    /** Reads refused as past the end (the flash-size bisection makes about 12 of them). */
    public long pastEnd() {
        return pastEnd;
    }
}
