package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Flyweight;

/**
 * The get_pkg_info_list (0x0C43) reply (ice_adminq_cmd.h struct ice_aqc_get_pkg_info_resp): count le32, then
 * count struct ice_aqc_get_pkg_info of 40 bytes: ver (major, minor, update, draft), char name[28]
 * (ICE_SEG_NAME_SIZE), track_id le32, is_in_nvm, is_active, is_active_at_boot, is_modified (u8 each).
 * ice_ddp.c ice_chk_pkg_compat reads the first is_in_nvm entry (major equal, minor not below the file's ice segment
 * format); ice_get_pkg_info copies the is_active entry's version and name, which ice_get_ddp_pkg_state compares with
 * the file's metadata section.
 */
public final class PkgInfoList extends LeView implements Flyweight<PkgInfoList> {
    public static final int HEADER = 4;
    public static final int ENTRY_SIZE = 40;
    public static final int NAME_SIZE = 28;

    /** Bytes a reply of {@code entries} entries takes. */
    public static int sizeFor(int entries) {
        return HEADER + entries * ENTRY_SIZE;
    }

    public PkgInfoList count(int n) {
        put32(0, n);
        return this;
    }

    public long count() {
        return u32(0);
    }

    /**
     * Writes entry {@code i}. {@code version} packs major..draft from bit 31 down; {@code name} holds at least
     * {@link #NAME_SIZE} bytes.
     */
    public PkgInfoList entry(int i, int version, byte[] name, long trackId, boolean inNvm, boolean active,
            boolean activeAtBoot, boolean modified) {
        long at = HEADER + (long) i * ENTRY_SIZE;
        put8(at, version >>> 24);
        put8(at + 1, version >>> 16);
        put8(at + 2, version >>> 8);
        put8(at + 3, version);
        copyIn(at + 4, name, NAME_SIZE);
        put32(at + 32, trackId);
        put8(at + 36, inNvm ? 1 : 0);
        put8(at + 37, active ? 1 : 0);
        put8(at + 38, activeAtBoot ? 1 : 0);
        put8(at + 39, modified ? 1 : 0);
        return this;
    }

    public int version(int i) {
        long at = HEADER + (long) i * ENTRY_SIZE;
        return u8(at) << 24 | u8(at + 1) << 16 | u8(at + 2) << 8 | u8(at + 3);
    }

    public void name(int i, byte[] dst) {
        copyOut(HEADER + (long) i * ENTRY_SIZE + 4, dst, NAME_SIZE);
    }

    public long trackId(int i) {
        return u32(HEADER + (long) i * ENTRY_SIZE + 32);
    }

    public boolean inNvm(int i) {
        return u8(HEADER + (long) i * ENTRY_SIZE + 36) != 0;
    }

    public boolean active(int i) {
        return u8(HEADER + (long) i * ENTRY_SIZE + 37) != 0;
    }
}
