package dev.irdmaemu.model.sw;

import java.util.Arrays;

/**
 * The adapter's destination-MAC table as the switch reads it per frame: a MAC to the functions its lookup rules
 * forward it to (a bit per function) and the rules' LB_ENABLE / LAN_ENABLE bits ORed together. Open addressing over
 * primitive arrays, rebuilt whole from the functions' rule tables when they change, never per frame; a lookup
 * allocates nothing and costs a probe or two however many rules a driver added (the rule tables are bounded by
 * SwitchRules.LOOKUP_ENTRIES per function).
 */
final class ForwardingTable {
    private static final int EMPTY = 0;

    private long[] keys = new long[16];
    /** Per slot: functions in bits 0..7, the action bits above them; EMPTY for a free slot. */
    private int[] values = new int[16];
    private int size;

    static final int FUNCTIONS_M = 0xFF;
    static final int LB_ENABLE = 1 << 8;
    static final int LAN_ENABLE = 1 << 9;

    void clear() {
        Arrays.fill(values, EMPTY);
        size = 0;
    }

    /** Adds {@code function} (and the action bits {@code actions}) to {@code mac}'s entry. */
    void add(long mac, int function, int actions) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int slot = find(mac);
        if (values[slot] == EMPTY) {
            keys[slot] = mac;
            size++;
        }
        values[slot] |= 1 << function | actions;
    }

    /** {@code mac}'s entry (functions and action bits), or 0 when no rule names it. */
    int lookup(long mac) {
        return values[find(mac)];
    }

    int size() {
        return size;
    }

    private int find(long mac) {
        int mask = keys.length - 1;
        int slot = Long.hashCode(mac * 0x9E3779B97F4A7C15L) & mask;
        while (values[slot] != EMPTY && keys[slot] != mac) {
            slot = slot + 1 & mask;
        }
        return slot;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldValues.length * 2];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldValues[i] != EMPTY) {
                int slot = find(oldKeys[i]);
                keys[slot] = oldKeys[i];
                values[slot] = oldValues[i];
            }
        }
    }
}
