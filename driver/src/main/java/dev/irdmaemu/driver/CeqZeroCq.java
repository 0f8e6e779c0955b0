package dev.irdmaemu.driver;

import dev.irdmaemu.fw.cqp.CqOpFields;

/**
 * The Create CQ fields every CQ of this driver starts from: its id, size, ring and shadow area, on CEQ 0 (the one
 * CEQ this port of irdma sets up; hw.c irdma_create_ccq, puda.c irdma_puda_cq_create and verbs.c irdma_create_cq
 * all name it), the rest cleared. Each caller adds what is its own (overflow check, CEQE mask, read threshold, a
 * page list).
 */
public final class CeqZeroCq {
    private CeqZeroCq() {
    }

    /** Fills {@code f} for CQ {@code id} of {@code size} CQEs at {@code ring}, its shadow area at {@code shadow}. */
    public static CqOpFields fields(CqOpFields f, int id, long size, long ring, long shadow) {
        f.clear();
        f.cqId = id;
        f.cqSize = size;
        f.cqAddress = ring;
        f.shadowAreaAddress = shadow;
        f.ceqId = 0;
        f.ceqIdValid = true;
        return f;
    }
}
