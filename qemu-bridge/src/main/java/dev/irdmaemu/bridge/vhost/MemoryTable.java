package dev.irdmaemu.bridge.vhost;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SET_MEM_TABLE (QEMU docs/interop/vhost-user.rst "Memory regions description" and "Memory access"): checks the
 * region count, the size and the descriptor count, maps the new table ({@link GuestMemory}), re-resolves the
 * rings' user addresses in it and only then unmaps the table it replaces. Holds the connection's current table.
 */
final class MemoryTable implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryTable.class);

    private final String name;
    private final SplitVirtqueue[] queues;
    private final FeatureNegotiation features;
    private GuestMemory current;

    MemoryTable(String name, SplitVirtqueue[] queues, FeatureNegotiation features) {
        this.name = name;
        this.queues = queues;
        this.features = features;
    }

    /** The mapped table, or null before the first SET_MEM_TABLE (and after close). */
    GuestMemory current() {
        return current;
    }

    /** SET_MEM_TABLE: on any refusal the table in use stays as it was. */
    void set(FrontEndMessage msg) throws VhostUserException {
        int n = regionCount(msg);
        long[] gpa = new long[n];
        long[] len = new long[n];
        long[] ua = new long[n];
        long[] off = new long[n];
        for (int i = 0; i < n; i++) {
            int at = VhostUserRequest.MEM_TABLE_HEADER + i * VhostUserRequest.MEM_REGION_SIZE;
            gpa[i] = msg.u64(at);
            len[i] = msg.u64(at + 8);
            ua[i] = msg.u64(at + 16);
            off[i] = msg.u64(at + 24);
        }
        GuestMemory fresh = GuestMemory.map(gpa, len, ua, off, msg.fds());
        rebindRings(fresh);
        GuestMemory old = current;
        current = fresh;
        if (old != null) {
            old.close();
        }
        LOG.info("{}: memory table of {} regions", name, n);
    }

    /** The number of regions, 1..8, with a payload of exactly that many and one descriptor each. */
    private static int regionCount(FrontEndMessage msg) throws VhostUserException {
        int size = (int) msg.size();
        if (size < VhostUserRequest.MEM_TABLE_HEADER) {
            throw new VhostUserException(VhostUserFailure.WRONG_SIZE, "SET_MEM_TABLE size " + size);
        }
        int n = msg.u32(0);
        if (n < 1 || n > VhostUserRequest.MAX_REGIONS) {
            throw new VhostUserException(VhostUserFailure.TOO_MANY_REGIONS, "SET_MEM_TABLE with "
                    + Integer.toUnsignedString(n) + " regions");
        }
        int want = VhostUserRequest.MEM_TABLE_HEADER + n * VhostUserRequest.MEM_REGION_SIZE;
        if (size != want) {
            throw new VhostUserException(VhostUserFailure.WRONG_SIZE, "SET_MEM_TABLE of " + n + " regions size "
                    + size + ", expected " + want);
        }
        msg.expectFds(n);
        return n;
    }

    /** The rings keep their user addresses: re-resolves them in the new table before the old one goes away. */
    private void rebindRings(GuestMemory fresh) throws VhostUserException {
        try {
            for (SplitVirtqueue q : queues) {
                if (q.addressesSet) {
                    q.bind(fresh, features.eventIdx(), features.indirect(), false);
                }
            }
        } catch (VhostUserException e) {
            fresh.close();
            throw e;
        }
    }

    /** Unmaps the table; the caller guarantees no ring reads it any more. */
    @Override
    public void close() {
        if (current != null) {
            current.close();
            current = null;
        }
    }
}
