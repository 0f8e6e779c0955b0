package dev.irdmaemu.fw.aq;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The module table of the firmware-logging commands (libie adminq.h struct libie_aqc_fw_log_cfg_resp, 4 bytes per
 * module: module id le16, log level u8, one reserved byte): the buffer ice sends with set (0xFF30) and the one the
 * firmware fills for query (0xFF32), {@code mdl_cnt} entries long (libie/fwlog.c libie_aq_fwlog_set and
 * libie_aq_fwlog_get).
 */
public final class FwLogModules extends LeView {
    public static final int ENTRY_SIZE = 4;
    private static final int MODULE_ID = 0;
    private static final int LOG_LEVEL = 2;

    public FwLogModules wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        return this;
    }

    /** True when the window holds {@code count} whole entries. */
    public boolean holds(int count) {
        return count >= 0 && has(0, (long) count * ENTRY_SIZE);
    }

    public int moduleId(int i) {
        return u16((long) i * ENTRY_SIZE + MODULE_ID);
    }

    public int logLevel(int i) {
        return u8((long) i * ENTRY_SIZE + LOG_LEVEL);
    }

    public FwLogModules entry(int i, int moduleId, int logLevel) {
        long at = (long) i * ENTRY_SIZE;
        zero(at, ENTRY_SIZE);
        put16(at + MODULE_ID, moduleId);
        put8(at + LOG_LEVEL, logLevel);
        return this;
    }
}
