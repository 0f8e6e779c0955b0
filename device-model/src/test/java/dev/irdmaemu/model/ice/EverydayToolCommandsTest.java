package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.NvmChecksum;
import dev.irdmaemu.fw.aq.AqLayout.SetMacLoopback;
import dev.irdmaemu.fw.aq.AqLayout.SetPortIdLed;
import dev.irdmaemu.fw.aq.AqLayout.SffEeprom;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

/**
 * The admin queue commands behind {@code ethtool -p} (set_port_id_led 0x06E9), {@code ethtool -m} (sff_eeprom
 * 0x06EE) and {@code ethtool -t} (nvm_checksum 0x0706, set_mac_lb 0x0620), sent as ice 7.3 sends them
 * (ice_ethtool.c, ice_common.c, ice_nvm.c), then as a hostile driver would: bad lengths, bad buffers, wrong flags.
 */
class EverydayToolCommandsTest {
    private static final int PORT = 0;
    private final AqBench bench = new AqBench();
    private final AqRefusals refusals = new AqRefusals();
    private final List<Boolean> loopbackChanges = new ArrayList<>();
    private final PortIdentifyLed led = new PortIdentifyLed(PORT, refusals);
    private final QsfpModuleEeprom module = new QsfpModuleEeprom(refusals);
    private final MacLoopback loopback = new MacLoopback(refusals, loopbackChanges::add);

    EverydayToolCommandsTest() {
        led.registerWith(bench.handlers::put);
        module.registerWith(bench.handlers::put);
        loopback.registerWith(bench.handlers::put);
        new NvmCommands(new NvmImage()).registerWith(bench.handlers::put);
    }

    // ---- ethtool -p

    @Test
    void identifyBlinksOnActiveAndGoesBackOnInactive() {
        assertEquals(AqError.OK, bench.send(AqOpcode.SET_PORT_ID_LED,
                d -> d.paramU8(SetPortIdLed.IDENT_MODE, SetPortIdLed.IDENT_BLINK), null));
        assertTrue(led.blinking());
        assertEquals(AqError.OK, bench.send(AqOpcode.SET_PORT_ID_LED, null));
        assertFalse(led.blinking());
        assertEquals(1, led.blinks());
    }

    @Test
    void aHostileLedCommandIsRefusedAndChangesNothing() {
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.SET_PORT_ID_LED,
                d -> d.paramU8(SetPortIdLed.IDENT_MODE, 0x81), null));
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.SET_PORT_ID_LED, d -> d.paramU8(SetPortIdLed.IDENT_MODE,
                SetPortIdLed.IDENT_BLINK).paramU8(SetPortIdLed.LPORT_NUM_VALID, 1).paramU8(SetPortIdLed.LPORT_NUM, 3),
                null));
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.SET_PORT_ID_LED,
                d -> d.paramU8(SetPortIdLed.IDENT_MODE, SetPortIdLed.IDENT_BLINK), AqBench.buffer(16)));
        assertFalse(led.blinking());
        assertEquals(3, refusals.count());
        assertEquals(AqError.OK, bench.send(AqOpcode.SET_PORT_ID_LED, d -> d.paramU8(SetPortIdLed.IDENT_MODE,
                SetPortIdLed.IDENT_BLINK).paramU8(SetPortIdLed.LPORT_NUM_VALID, 1).paramU8(SetPortIdLed.LPORT_NUM,
                PORT), null));
        assertTrue(led.blinking());
    }

    // ---- ethtool -m

    private int sff(int bus, int address, int page, int setPage, Bytes<?> buf) {
        return bench.send(AqOpcode.SFF_EEPROM, d -> d.paramU16(SffEeprom.I2C_BUS_ADDR, bus
                | setPage << SffEeprom.SET_PAGE_S).paramU16(SffEeprom.I2C_MEM_ADDR, address)
                .paramU16(SffEeprom.EEPROM_PAGE, page << SffEeprom.PAGE_S), buf);
    }

    @Test
    void moduleInfoSeesAnSff8636Qsfp28AndTheDumpReadsPageZeroEightBytesAtATime() {
        Bytes<?> one = AqBench.buffer(1);
        assertEquals(AqError.OK, sff(SffEeprom.BUS_A0, 0, 0, 0, one));
        assertEquals(0x11, one.readUnsignedByte(0), "ICE_MODULE_TYPE_QSFP28");
        assertEquals(AqError.OK, sff(SffEeprom.BUS_A0, 1, 0, 0, one));
        assertTrue(one.readUnsignedByte(0) > 2, "revision > 2: ETH_MODULE_SFF_8636");
        byte[] map = new byte[256];
        for (int at = 0; at < 256; at += 8) {
            Bytes<?> block = AqBench.buffer(8);
            assertEquals(AqError.OK, sff(SffEeprom.BUS_A0, at, 0, 1, block), "offset " + at);
            for (int i = 0; i < 8; i++) {
                map[at + i] = block.readByte(i);
            }
        }
        assertTrue((map[2] & 4) != 0, "flat memory: ice reads no upper page");
        assertEquals(0x11, map[128] & 0xFF);
        assertEquals(0x23, map[130] & 0xFF, "no separable connector");
        assertEquals(0x0B, map[192] & 0xFF, "100GBASE-CR4");
        assertEquals(checkCode(map, 128, 190), map[191] & 0xFF, "CC_BASE");
        assertEquals(checkCode(map, 192, 222), map[223] & 0xFF, "CC_EXT");
        assertEquals(34, module.reads());
    }

    private static int checkCode(byte[] map, int from, int to) {
        int sum = 0;
        for (int i = from; i <= to; i++) {
            sum += map[i] & 0xFF;
        }
        return sum & 0xFF;
    }

    @Test
    void hostileModuleReadsAreRefusedWithTheirOwnErrors() {
        assertEquals(AqError.EINVAL, sff(SffEeprom.BUS_A0, 0, 0, 0, null), "no buffer");
        assertEquals(AqError.EACCES, sff(SffEeprom.BUS_A0 | SffEeprom.IS_WRITE, 0, 0, 0, AqBench.buffer(1)));
        assertEquals(AqError.EIO, sff(SffEeprom.BUS_A2, 0, 0, 0, AqBench.buffer(1)), "the SFP diagnostics address");
        assertEquals(AqError.EIO, sff(SffEeprom.BUS_A0 | SffEeprom.BUS_TYPE_10BIT, 0, 0, 0, AqBench.buffer(1)));
        assertEquals(AqError.EINVAL, sff(SffEeprom.BUS_A0, 252, 0, 1, AqBench.buffer(8)), "past byte 255");
        assertEquals(AqError.EINVAL, sff(SffEeprom.BUS_A0, 128, 3, 1, AqBench.buffer(8)), "no page 3");
        assertEquals(AqError.EINVAL, sff(SffEeprom.BUS_A0, 0, 0, 0, AqBench.buffer(0x10000 - 1)), "too long");
        assertEquals(0, module.reads());
        assertEquals(7, refusals.count());
    }

    // ---- ethtool -t: the EEPROM test and the loopback test's firmware side

    @Test
    void aChecksumVerifyAnswersBaba() {
        assertEquals(AqError.OK, bench.send(AqOpcode.NVM_CHECKSUM,
                d -> d.paramU8(NvmChecksum.FLAGS, NvmChecksum.VERIFY), null));
        assertEquals(NvmChecksum.CORRECT, bench.desc.paramU16(NvmChecksum.CHECKSUM));
    }

    @Test
    void aChecksumRecalcOrAMalformedChecksumCommandIsRefused() {
        assertEquals(AqError.EACCES, bench.send(AqOpcode.NVM_CHECKSUM,
                d -> d.paramU8(NvmChecksum.FLAGS, NvmChecksum.RECALC), null));
        for (int flags : new int[] {0, NvmChecksum.VERIFY | NvmChecksum.RECALC, 0x80}) {
            assertEquals(AqError.EINVAL, bench.send(AqOpcode.NVM_CHECKSUM,
                    d -> d.paramU8(NvmChecksum.FLAGS, flags), null), "flags " + flags);
        }
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.NVM_CHECKSUM,
                d -> d.paramU8(NvmChecksum.FLAGS, NvmChecksum.VERIFY), AqBench.buffer(2)));
        assertEquals(0, bench.desc.paramU16(NvmChecksum.CHECKSUM), "nothing answered");
    }

    @Test
    void macLoopbackGoesOnAndOffAsTheSelfTestAsks() {
        assertEquals(AqError.OK, bench.send(AqOpcode.SET_MAC_LB,
                d -> d.paramU8(SetMacLoopback.LB_MODE, SetMacLoopback.LB_EN), null));
        assertTrue(loopback.on());
        assertEquals(AqError.OK, bench.send(AqOpcode.SET_MAC_LB, null));
        assertFalse(loopback.on());
        assertEquals(List.of(true, false), loopbackChanges);
        loopback.macReset();
        assertFalse(loopback.on());
        assertEquals(2, loopback.changes());
    }

    @Test
    void aHostileLoopbackCommandIsRefusedAndLeavesTheMacAsItWas() {
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.SET_MAC_LB,
                d -> d.paramU8(SetMacLoopback.LB_MODE, SetMacLoopback.LB_EN | 0x4), null));
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.SET_MAC_LB,
                d -> d.paramU8(SetMacLoopback.LB_MODE, SetMacLoopback.LB_EN), AqBench.buffer(8)));
        assertFalse(loopback.on());
        assertTrue(loopbackChanges.isEmpty());
    }

    @Test
    void aDescriptorCarryingTheBufFlagWithoutABufferIsStillADirectCommandWithABuffer() {
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.SET_PORT_ID_LED,
                d -> d.flags(AqDescriptor.BUF).paramU8(SetPortIdLed.IDENT_MODE, SetPortIdLed.IDENT_BLINK), null));
        assertFalse(led.blinking());
    }
}
