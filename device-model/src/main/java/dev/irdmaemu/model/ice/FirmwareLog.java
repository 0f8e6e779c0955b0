package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.FwLog;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.FwLogModules;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The firmware's own log as libie/fwlog.c drives it (include/linux/net/intel/libie/adminq.h struct
 * libie_aqc_fw_log): query (0xFF32) reports the configuration, the log resolution and a level for every one of the
 * 32 firmware modules, which is how ice's __fwlog_init (ice_common.c, PF 0 only) decides that the NVM supports
 * firmware logging and creates its debugfs {@code fwlog/} directory; config (0xFF30) sets levels, resolution and
 * the UART/ARQ outputs; register (0xFF31) subscribes the PF to log events over the ARQ, or unsubscribes it
 * (libie_fwlog_deinit sends config with ARQ off and then unregister at unload).
 *
 * <p>The model's firmware writes no log lines, so no 0xFF33 event is ever posted (and 0xFF33 sent as a command stays
 * unknown, {@link BasicCommands}); the configuration is kept and
 * answered back as a real card does. It starts as a card leaves the factory: every module at level NONE,
 * resolution {@value #DEFAULT_RESOLUTION}, neither output on, no PF registered. The configuration is device state
 * (a PF reset keeps it); the registration belongs to the PF's driver and a PF reset drops it.
 */
final class FirmwareLog {
    /** The log resolution reported before ice sets one (lines per event; 1..128). */
    static final int DEFAULT_RESOLUTION = 10;

    private final int[] levels = new int[FwLog.MODULES];
    private final FwLogModules modules = new FwLogModules();
    private int resolution = DEFAULT_RESOLUTION;
    private int outputs;
    private boolean registered;

    void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.FW_LOGS_CONFIG, this::config);
        r.accept(AqOpcode.FW_LOGS_REGISTER, this::register);
        r.accept(AqOpcode.FW_LOGS_QUERY, this::query);
    }

    /** 0xFF32: flags, resolution and 32 module entries in a buffer that must hold them all. */
    private int query(AqDescriptor d, Bytes<?> b) {
        long len = CommandBuffer.length(d, b);
        modules.wrap(b, CommandBuffer.start(b), len);
        if (b == null || !modules.holds(FwLog.MODULES)) {
            return AqError.EINVAL;
        }
        for (int i = 0; i < FwLog.MODULES; i++) {
            modules.entry(i, i, levels[i]);
        }
        d.paramU8(FwLog.CMD_FLAGS, outputs | (registered ? FwLog.QUERY_REGISTERED : 0))
                .paramU16(FwLog.LOG_RESOLUTION, resolution).paramU16(FwLog.MDL_CNT, FwLog.MODULES)
                .datalen(FwLog.MODULES * FwLogModules.ENTRY_SIZE);
        return AqError.OK;
    }

    /** 0xFF30: SET_VALID, a resolution in range, mdl_cnt valid entries; nothing changes unless all are valid. */
    private int config(AqDescriptor d, Bytes<?> b) {
        int flags = d.paramU8(FwLog.CMD_FLAGS);
        int count = d.paramU16(FwLog.MDL_CNT);
        int res = d.paramU16(FwLog.LOG_RESOLUTION);
        long len = CommandBuffer.length(d, b);
        modules.wrap(b, CommandBuffer.start(b), len);
        if (b == null || (flags & FwLog.CONF_SET_VALID) == 0 || count == 0 || count > FwLog.MODULES
                || !modules.holds(count) || res < FwLog.MIN_RESOLUTION || res > FwLog.MAX_RESOLUTION) {
            return AqError.EINVAL;
        }
        for (int i = 0; i < count; i++) {
            if (modules.moduleId(i) >= FwLog.MODULES || modules.logLevel(i) >= FwLog.LEVEL_INVALID) {
                return AqError.EINVAL;
            }
        }
        for (int i = 0; i < count; i++) {
            levels[modules.moduleId(i)] = modules.logLevel(i);
        }
        resolution = res;
        outputs = flags & (FwLog.CONF_UART_EN | FwLog.CONF_AQ_EN);
        return AqError.OK;
    }

    /** 0xFF31: direct; AQ_REGISTER set subscribes the PF, clear unsubscribes it. */
    private int register(AqDescriptor d, Bytes<?> b) {
        if (b != null) {
            return AqError.EINVAL;
        }
        registered = (d.paramU8(FwLog.CMD_FLAGS) & FwLog.AQ_REGISTER) != 0;
        return AqError.OK;
    }

    /** A PF reset: the PF's driver is gone, so is its subscription. */
    void pfReset() {
        registered = false;
    }

    boolean registered() {
        return registered;
    }

    int resolution() {
        return resolution;
    }

    int outputs() {
        return outputs;
    }

    int level(int module) {
        return levels[module];
    }
}
