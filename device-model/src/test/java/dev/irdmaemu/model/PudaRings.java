package dev.irdmaemu.model;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.QueuePair;

/**
 * The rings of a PUDA QP the real driver created (ILQ or IEQ, its CQ of the same id), as the device sees them, for
 * a test that looks past the driver: the CQEs in the order the device wrote them (read with a cursor of the test's
 * own; the driver consumes the same CQEs from its interrupt handler, and writes the shadow area, this reads only),
 * the buffer each RQ WQE names, and the receive or send WQEs puda.c would never write (a buffer shorter than a
 * frame, a hostile AH index, L4LEN, length or address), written with the fw.queue codecs and rung through
 * PFPE_WQEALLOC. The rings are located from the device's own QP and CQ tables at construction.
 */
final class PudaRings {
    final DriverNode d;
    final int qpId;
    final long cqRing;
    final int cqSize;
    final long sq;
    final long rq;
    private int cqHead;
    private boolean cqPolarity = true;

    PudaRings(DriverNode d, int qpId) {
        this.d = d;
        this.qpId = qpId;
        CompletionQueue cq = d.dev.cqs().get(qpId);
        QueuePair qp = d.dev.qps().get(qpId);
        cqRing = cq.ringAddress();
        cqSize = cq.size();
        sq = qp.sqAddress();
        rq = qp.rqAddress();
    }

    /** The driver's ILQ. */
    static PudaRings ilq(DriverNode d) {
        return new PudaRings(d, IrdmaDriver.ILQ_QP);
    }

    /** The driver's IEQ. */
    static PudaRings ieq(DriverNode d) {
        return new PudaRings(d, IrdmaDriver.IEQ_QP);
    }

    /** The next CQE the device wrote (the extension, in the next slot, is skipped with it), or null. */
    Cqe poll() {
        Cqe cqe = new Cqe().wrap(d.store(), d.off(cqRing + (long) cqHead * Cqe.SIZE), Cqe.SIZE);
        if (cqe.valid() != cqPolarity) {
            return null;
        }
        int slots = cqe.extended() ? 2 : 1;
        for (int i = 0; i < slots; i++) {
            cqHead++;
            if (cqHead == cqSize) {
                cqHead = 0;
                cqPolarity = !cqPolarity;
            }
        }
        return cqe;
    }

    /** The extension of {@code cqe} (irdma_puda_poll_info reads it from the next slot). */
    CqeExtension extensionOf(Cqe cqe) {
        long slot = (cqe.offset() - d.off(cqRing)) / Cqe.SIZE + 1;
        return new CqeExtension().wrap(d.store(), d.off(cqRing) + (slot % cqSize) * Cqe.SIZE, Cqe.SIZE);
    }

    /** The buffer RQ WQE {@code i} names (the driver reposts each slot with its own buffer). */
    long rxBuffer(int i) {
        return new RqWqe().wrap(d.store(), d.off(rq + (long) i * RqWqe.MIN_SIZE), RqWqe.MIN_SIZE)
                .fragmentAddress(0);
    }

    /** Posts RQ slot {@code i} with {@code buf} of {@code size} bytes ({@code firstPass}: the valid bit of pass 1). */
    void postReceive(int i, long buf, int size, boolean firstPass) {
        new RqWqe().wrap(d.store(), d.off(rq + (long) i * RqWqe.MIN_SIZE), RqWqe.MIN_SIZE)
                .writePuda(buf, size, firstPass);
    }

    /**
     * The SQ slot the next send goes to and its valid bit, found from the ring itself (the driver's head is its
     * own): the first slot whose valid bit differs from slot 0's; none differing means a whole pass was written.
     */
    int sendSlot() {
        SqWqe w = new SqWqe();
        boolean first = w.wrap(d.store(), d.off(sq), SqWqe.QUANTUM).valid();
        for (int i = 1; i < IrdmaDriver.PUDA_SQ; i++) {
            if (w.wrap(d.store(), d.off(sq + (long) i * SqWqe.QUANTUM), SqWqe.QUANTUM).valid() != first) {
                return i;
            }
        }
        return 0;
    }

    /**
     * Writes a gen2 PUDA send (puda.c irdma_puda_send's layout) of {@code len} bytes at {@code buf} through address
     * handle {@code ahId} with L4LEN {@code tcpHeaderBytes}, whatever their values, and rings WQEALLOC. Answers
     * the SQ slot.
     */
    int send(long buf, int len, int tcpHeaderBytes, int ahId) {
        int idx = sendSlot();
        boolean polarity = idx == 0
                ? !new SqWqe().wrap(d.store(), d.off(sq), SqWqe.QUANTUM).valid()
                : new SqWqe().wrap(d.store(), d.off(sq), SqWqe.QUANTUM).valid();
        new SqWqe().wrap(d.store(), d.off(sq + (long) idx * SqWqe.QUANTUM), SqWqe.QUANTUM)
                .writePudaSend(polarity, buf, len, tcpHeaderBytes, ahId);
        d.write(Gen2Register.WQEALLOC, Gen2Registers.wqeAllocDoorbell(qpId));
        return idx;
    }

    /** The store offset of SQ slot {@code idx}. */
    long sqSlot(int idx) {
        return d.off(sq + (long) idx * SqWqe.QUANTUM);
    }
}
