package dev.irdmaemu.model.port;

import java.util.stream.IntStream;

/**
 * The device's ARP cache (Manage ARP Entry, ctrl.c irdma_sc_add_arp_cache_entry / irdma_sc_del_arp_cache_entry):
 * index -> MAC, referenced by a QP context's ARP index for the next-hop MAC of offloaded transmit. The size is the
 * committed HMC ARP count.
 */
public final class ArpTable {
    private final long[] mac;
    private final boolean[] valid;
    private final boolean[] permanent;
    private int limit;

    public ArpTable(int capacity) {
        mac = new long[capacity];
        valid = new boolean[capacity];
        permanent = new boolean[capacity];
        limit = 0;
    }

    /** The usable index range (the committed ARP object count, at most the capacity). */
    public void setLimit(long committed) {
        limit = (int) Math.min(committed, mac.length);
    }

    public int limit() {
        return limit;
    }

    public boolean inRange(int index) {
        return index >= 0 && index < limit;
    }

    public void set(int index, long mac48, boolean perm) {
        mac[index] = mac48;
        valid[index] = true;
        permanent[index] = perm;
    }

    public void clear(int index) {
        valid[index] = false;
        mac[index] = 0;
    }

    /**
     * Forgets every entry: the cache lives in the HMC's ARP object area, so a new FPM layout (COMMIT_FPM_VAL) or the
     * loss of every SD behind the HMC (irdma's teardown, hmc.c irdma_del_hmc_objects) leaves none of them.
     */
    public void clearAll() {
        java.util.Arrays.fill(valid, false);
        java.util.Arrays.fill(permanent, false);
        java.util.Arrays.fill(mac, 0);
    }

    /** Entries irdma has added (MANAGE_ARP_CACHE add) and not deleted. */
    public int validCount() {
        return (int) IntStream.range(0, valid.length).filter(i -> valid[i]).count();
    }

    public boolean valid(int index) {
        return inRange(index) && valid[index];
    }

    public long mac(int index) {
        return mac[index];
    }

    public boolean permanent(int index) {
        return permanent[index];
    }
}
