package dev.irdmaemu.model.port;

/**
 * The device's quad-hash table (Manage Quad-Hash Table Entry, ctrl.c irdma_sc_manage_qhash_table_entry): two kinds
 * of entry, each steering to a QP number (1 = the ILQ, cm.c):
 * <ul>
 *   <li>TCP established: local address and port, remote address and port, VLAN: one connection;</li>
 *   <li>TCP SYN (listen): local address and port, VLAN: every segment to a listener.</li>
 * </ul>
 * Entries come from the CQP op, and from the device itself: Modify / Create QP to RTS with a TCP context installs
 * (or re-points) the established entry of the QP's four-tuple, and REMOVEHASHENTRY drops it
 * ({@link dev.irdmaemu.model.cqp.CqpOperations}). Addresses in the {@code (hi, lo)} form of {@link dev.irdmaemu.fw.frame.IpAddress} (IPv4 mapped); VLAN {@link #UNTAGGED} for
 * untagged. Open addressing with linear probing and tombstones over fixed arrays: lookups allocate nothing.
 */
public final class QuadHashTable {
    /** enum irdma_quad_entry_type (type.h). */
    public static final int TYPE_ESTABLISHED = 1;
    public static final int TYPE_SYN = 2;

    /**
     * The VLAN key of an entry for frames without an 802.1Q tag: what {@link dev.irdmaemu.fw.frame.TcpPacket#vlanId()}
     * answers for an untagged frame, so the receive classifier looks up with the frame's own value. Entries from
     * the CQP say whether they are tagged; {@link #vlanKey} turns that into the key.
     */
    public static final int UNTAGGED = -1;

    /** Result of a change. */
    public enum Change {
        OK, EXISTS, NOT_FOUND, FULL
    }

    private static final byte EMPTY = 0;
    private static final byte USED = 1;
    private static final byte DELETED = 2;

    private final int capacity;
    private final int mask;
    private final byte[] slot;
    private final int[] type;
    private final long[] lHi;
    private final long[] lLo;
    private final int[] lPort;
    private final long[] rHi;
    private final long[] rLo;
    private final int[] rPort;
    private final int[] vlan;
    private final int[] qpn;
    private int size;
    private int established;
    private int listens;
    private long lookups;
    private int lastFound;

    /** {@code capacity}: a power of two; at most 3/4 of it can be used. */
    public QuadHashTable(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is not a power of two");
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        slot = new byte[capacity];
        type = new int[capacity];
        lHi = new long[capacity];
        lLo = new long[capacity];
        lPort = new int[capacity];
        rHi = new long[capacity];
        rLo = new long[capacity];
        rPort = new int[capacity];
        vlan = new int[capacity];
        qpn = new int[capacity];
    }

    private static int hash(int t, long lh, long ll, int lp, long rh, long rl, int rp, int v) {
        long h = t * 0x9E3779B97F4A7C15L;
        h = (h ^ lh) * 0xBF58476D1CE4E5B9L;
        h = (h ^ ll) * 0x94D049BB133111EBL;
        h = (h ^ lp) * 0x9E3779B97F4A7C15L;
        h = (h ^ rh) * 0xBF58476D1CE4E5B9L;
        h = (h ^ rl) * 0x94D049BB133111EBL;
        h = (h ^ ((long) rp << 16 ^ v)) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ h >>> 31);
    }

    /**
     * Whether the table holds the entry; if so its slot is {@link #lastFound}. Allocation-free: the classifier looks
     * up every received segment.
     */
    private boolean find(int t, long lh, long ll, int lp, long rh, long rl, int rp, int v) {
        // The entry found last, compared in full before the hash is computed: a connection's segments come in
        // runs. Only a hint: a removed or reused slot fails the comparison like any other.
        if (matches(lastFound, t, lh, ll, lp, rh, rl, rp, v)) {
            return true;
        }
        int i = hash(t, lh, ll, lp, rh, rl, rp, v) & mask;
        for (int n = 0; n < capacity; n++) {
            byte s = slot[i];
            if (s == EMPTY) {
                return false;
            }
            if (s == USED && matches(i, t, lh, ll, lp, rh, rl, rp, v)) {
                lastFound = i;
                return true;
            }
            i = (i + 1) & mask;
        }
        return false;
    }

    /** The VLAN key of an entry: {@code vlanId} when it is {@code tagged}, else {@link #UNTAGGED}. */
    public static int vlanKey(boolean tagged, int vlanId) {
        return tagged ? vlanId : UNTAGGED;
    }

    /** Adds ({@code replace} false) or modifies ({@code replace} true) an entry. */
    private boolean matches(int i, int t, long lh, long ll, int lp, long rh, long rl, int rp, int v) {
        return slot[i] == USED && type[i] == t && lPort[i] == lp && rPort[i] == rp && vlan[i] == v && lLo[i] == ll
                && lHi[i] == lh && rLo[i] == rl && rHi[i] == rh;
    }

    public Change put(int t, long lh, long ll, int lp, long rh, long rl, int rp, int v, int qp, boolean replace) {
        if (t == TYPE_SYN) {
            rh = 0;
            rl = 0;
            rp = 0;
        }
        if (find(t, lh, ll, lp, rh, rl, rp, v)) {
            if (!replace) {
                return Change.EXISTS;
            }
            qpn[lastFound] = qp;
            return Change.OK;
        }
        if (replace) {
            return Change.NOT_FOUND;
        }
        if ((size + 1) * 4 > capacity * 3) {
            return Change.FULL;
        }
        int i = hash(t, lh, ll, lp, rh, rl, rp, v) & mask;
        while (slot[i] == USED) {
            i = (i + 1) & mask;
        }
        slot[i] = USED;
        type[i] = t;
        lHi[i] = lh;
        lLo[i] = ll;
        lPort[i] = lp;
        rHi[i] = rh;
        rLo[i] = rl;
        rPort[i] = rp;
        vlan[i] = v;
        qpn[i] = qp;
        size++;
        if (t == TYPE_SYN) {
            listens++;
        } else {
            established++;
        }
        return Change.OK;
    }

    public Change remove(int t, long lh, long ll, int lp, long rh, long rl, int rp, int v) {
        if (t == TYPE_SYN) {
            rh = 0;
            rl = 0;
            rp = 0;
        }
        if (!find(t, lh, ll, lp, rh, rl, rp, v)) {
            return Change.NOT_FOUND;
        }
        slot[lastFound] = DELETED;
        size--;
        if (t == TYPE_SYN) {
            listens--;
        } else {
            established--;
        }
        return Change.OK;
    }

    /**
     * Whether an established entry for this 4-tuple and VLAN is there; if so {@link #foundQpn()} answers its QP.
     * Allocation-free: the receive classifier asks per segment.
     */
    public boolean findEstablished(long lh, long ll, int lp, long rh, long rl, int rp, int v) {
        lookups++;
        return find(TYPE_ESTABLISHED, lh, ll, lp, rh, rl, rp, v);
    }

    /** Whether a listen entry for this local address, port and VLAN is there; if so {@link #foundQpn()} answers its QP. */
    public boolean findListen(long lh, long ll, int lp, int v) {
        lookups++;
        return find(TYPE_SYN, lh, ll, lp, 0, 0, 0, v);
    }

    /**
     * The QP of the entry the last {@link #findEstablished} or {@link #findListen} found (asked right after one
     * that answered true).
     */
    public int foundQpn() {
        return qpn[lastFound];
    }

    public int size() {
        return size;
    }

    public int establishedCount() {
        return established;
    }

    public int listenCount() {
        return listens;
    }

    public long lookups() {
        return lookups;
    }
}
