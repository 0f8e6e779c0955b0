package dev.irdmaemu.model;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;

/** Small CQP WQE helpers for tests that drive a {@link TestDriver} directly. */
final class CqpWriters {
    private CqpWriters() {
    }

    /** Manage ARP entry, add (ctrl.c irdma_sc_add_arp_cache_entry). */
    static void addArp(TestDriver d, long offset, int index, long mac, boolean valid) {
        CqpWqeWriter.addArpEntry(d.store(), offset, index, 0, mac, true, valid);
    }
}
