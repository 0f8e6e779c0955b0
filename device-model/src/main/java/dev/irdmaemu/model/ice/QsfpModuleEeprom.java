package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.SffEeprom;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The QSFP28 module in the port's cage as the firmware reads it over I2C for sff_eeprom (indirect 0x06EE, struct
 * ice_aqc_sff_eeprom in ice_adminq_cmd.h): {@code ethtool -m DEV} makes ice_ethtool.c ice_get_module_info read the
 * identifier (byte 0) and revision (byte 1), then ice_get_module_eeprom reads the map 8 bytes at a time from bus
 * address 0xA0 (sent as the 7-bit 0x50) with the QSFP page-select bits set.
 *
 * <p>The module matches the port's 100GBASE-CR4 PHY type ({@link PortLink}): a 1 m passive copper QSFP28 cable
 * assembly. Its map follows SFF-8636 rev 2.10a: identifier 0x11 (QSFP28), revision compliance 0x08 (SFF-8636 rev
 * 2.8 to 2.11, so ice reports ETH_MODULE_SFF_8636), flat memory (byte 2 bit 2: a passive cable has no upper pages,
 * so ice reads page 00h only), the upper page 00h with connector 0x23 (no separable connector), extended compliance
 * 0x0B (100GBASE-CR4), copper length 1 m, transmitter technology 0xA0 (copper, unequalized), the vendor fields, and
 * the CC_BASE and CC_EXT check codes as SFF-8636 defines them. The vendor fields name the model, not a real part.
 *
 * <p>Refused: no buffer or a length of 0 (EINVAL); a write (EACCES: the model's module map is read-only); a 10-bit
 * bus address or a bus other than 0x50 (EIO: no such device answers on the module's I2C bus, as with the SFP-only
 * 0xA2); a read past byte 255, or of a page other than 00h (EINVAL: a flat-memory module has no other page).
 */
final class QsfpModuleEeprom {
    static final int SIZE = 256;
    static final int IDENTIFIER_QSFP28 = 0x11;
    static final int REVISION_SFF8636_2_8 = 0x08;
    static final int STATUS_FLAT_MEM = 1 << 2;

    private final byte[] map = new byte[SIZE];
    private final AqRefusals refusals;
    private long reads;

    QsfpModuleEeprom(AqRefusals refusals) {
        this.refusals = refusals;
        map[0] = IDENTIFIER_QSFP28;
        map[1] = REVISION_SFF8636_2_8;
        map[2] = STATUS_FLAT_MEM;
        map[128] = IDENTIFIER_QSFP28;
        map[129] = 0;            // ext. identifier: power class 1, no CDR
        map[130] = 0x23;         // connector: no separable connector (a cable assembly)
        map[131] = (byte) 0x80;      // specification compliance: extended (byte 192)
        map[139] = 0x05;         // encoding: 64B/66B
        map[140] = (byte) 0xFF;  // nominal bit rate: see byte 222
        map[146] = 1;            // length, copper: 1 m
        map[147] = (byte) 0xA0;  // device technology: copper cable, unequalized
        ascii(148, 16, "IRDMA-EMU");
        map[165] = 0x00;         // vendor OUI: none (the model is no vendor)
        ascii(168, 16, "QSFP28-CR4-1M");
        ascii(184, 2, "A");
        map[192] = 0x0B;         // extended compliance: 100GBASE-CR4
        ascii(196, 16, "EMU0000000000001");
        ascii(212, 8, "26010100");
        map[222] = (byte) 103;   // nominal bit rate in 250 Mb/s units: 25.78 Gb/s per lane
        map[191] = checkCode(128, 190);
        map[223] = checkCode(192, 222);
    }

    private void ascii(int at, int width, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < width; i++) {
            map[at + i] = i < b.length ? b[i] : (byte) ' ';
        }
    }

    /** SFF-8636's check code: the low 8 bits of the sum of bytes {@code from} through {@code to}. */
    private byte checkCode(int from, int to) {
        int sum = 0;
        for (int i = from; i <= to; i++) {
            sum += map[i] & 0xFF;
        }
        return (byte) sum;
    }

    void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.SFF_EEPROM, this::read);
    }

    private int read(AqDescriptor d, Bytes<?> b) {
        long length = CommandBuffer.length(d, b);
        if (b == null || length == 0) {
            return refusals.refuse("sff_eeprom", "no buffer", AqError.EINVAL);
        }
        int bus = d.paramU16(SffEeprom.I2C_BUS_ADDR);
        if ((bus & SffEeprom.IS_WRITE) != 0) {
            return refusals.refuse("sff_eeprom", "a write to the module map", AqError.EACCES);
        }
        if ((bus & SffEeprom.BUS_TYPE_10BIT) != 0 || (bus & SffEeprom.BUS_7BIT_M) != SffEeprom.BUS_A0) {
            return refusals.refuse("sff_eeprom", "no device at I2C address 0x"
                    + Integer.toHexString(bus & 0x3FF), AqError.EIO);
        }
        int address = d.paramU16(SffEeprom.I2C_MEM_ADDR);
        int page = d.paramU16(SffEeprom.EEPROM_PAGE) >>> SffEeprom.PAGE_S;
        if (address + length > SIZE) {
            return refusals.refuse("sff_eeprom", "bytes " + address + "+" + length + " past the map", AqError.EINVAL);
        }
        if (page != 0) {
            return refusals.refuse("sff_eeprom", "page " + page + " of a flat-memory module", AqError.EINVAL);
        }
        long start = CommandBuffer.start(b);
        for (int i = 0; i < length; i++) {
            b.writeByte(start + i, map[address + i]);
        }
        reads++;
        return AqError.OK;
    }

    /** Byte {@code i} of the module map (page 00h). */
    int byteAt(int i) {
        return map[i] & 0xFF;
    }

    long reads() {
        return reads;
    }
}
