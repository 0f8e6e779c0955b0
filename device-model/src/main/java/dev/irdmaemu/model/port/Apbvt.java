package dev.irdmaemu.model.port;

/**
 * The Accelerated Port Bit Vector Table: one bit per TCP port, set for the local ports owned by RDMA (Manage
 * APBVT, ctrl.c irdma_sc_manage_apbvt_entry; cm.c adds the port of every listener and active connection).
 */
public final class Apbvt {
    private final long[] bits = new long[65536 / 64];
    private int ports;

    /** Marks {@code port}; false if it was already marked. */
    public boolean add(int port) {
        int p = port & 0xffff;
        long m = 1L << p;
        if ((bits[p >>> 6] & m) != 0) {
            return false;
        }
        bits[p >>> 6] |= m;
        ports++;
        return true;
    }

    /** Clears {@code port}; false if it was not marked. */
    public boolean remove(int port) {
        int p = port & 0xffff;
        long m = 1L << p;
        if ((bits[p >>> 6] & m) == 0) {
            return false;
        }
        bits[p >>> 6] &= ~m;
        ports--;
        return true;
    }

    public boolean contains(int port) {
        int p = port & 0xffff;
        return (bits[p >>> 6] & 1L << p) != 0;
    }

    public int size() {
        return ports;
    }
}
