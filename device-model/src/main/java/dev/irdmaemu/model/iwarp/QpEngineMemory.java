package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.model.tcp.RecordEnds;

/**
 * The tables one iWARP QP engine keeps on the heap, sized by its context at Modify QP to RTS: the {@link SendQueue}'s
 * WQEs started and not completed (one slot per SQ quantum), its RDMA Read Requests outstanding (ORD) and the
 * {@link ReadResponder}'s inbound ones (IRD), the offloaded TCP's {@link RecordEnds}, and the two FPDU codecs with
 * their CRC32c state. The E810 keeps such state per function (the QP context in HMC; siw keeps it in its per-QP
 * struct siw_qp, siw.h), not made anew for each connection: {@link SpareEngineMemory} hands a released engine's
 * tables to the next engine of the same sizes. Every table is a ring whose slots are written before they are read
 * and each codec is wrapped over a frame before it is used, so nothing a previous engine left is ever seen. (The
 * engine's off-heap rings and buffers are its own, freed at Destroy QP.)
 */
final class QpEngineMemory {
    final RecordEnds records = new RecordEnds();
    // SendQueue: work started and not yet completed, one slot per SQ quantum.
    final int sqSlots;
    final int[] cIndex;
    final int[] cOpcode;
    final int[] cState;
    final long[] cEndSeq;
    final int[] cReads;
    final boolean[] cSignaled;
    final int[] cLocalInvalidate;
    // SendQueue: RDMA Read Requests sent and not yet answered.
    final int ordSlots;
    final int[] oSlot;
    final int[] oSinkStag;
    final long[] oSinkTo;
    final long[] oSize;
    final long[] oPlaced;
    // ReadResponder: the peer's RDMA Read Requests queued.
    final int irdSlots;
    final int[] rSinkStag;
    final long[] rSinkTo;
    final long[] rSize;
    final int[] rSourceStag;
    final long[] rSourceTo;
    final long[] rSent;
    final Fpdu txFpdu = new Fpdu();
    final Fpdu rxFpdu = new Fpdu();

    private QpEngineMemory(int sqQuanta, int ord, int ird) {
        sqSlots = sqSlots(sqQuanta);
        cIndex = new int[sqSlots];
        cOpcode = new int[sqSlots];
        cState = new int[sqSlots];
        cEndSeq = new long[sqSlots];
        cReads = new int[sqSlots];
        cSignaled = new boolean[sqSlots];
        cLocalInvalidate = new int[sqSlots];
        ordSlots = ordSlots(ord);
        oSlot = new int[ordSlots];
        oSinkStag = new int[ordSlots];
        oSinkTo = new long[ordSlots];
        oSize = new long[ordSlots];
        oPlaced = new long[ordSlots];
        irdSlots = irdSlots(ird);
        rSinkStag = new int[irdSlots];
        rSinkTo = new long[irdSlots];
        rSize = new long[irdSlots];
        rSourceStag = new int[irdSlots];
        rSourceTo = new long[irdSlots];
        rSent = new long[irdSlots];
    }

    /** New tables for an engine of these sizes. */
    static QpEngineMemory of(int sqQuanta, int ord, int ird) {
        return new QpEngineMemory(sqQuanta, ord, ird);
    }

    /** Whether an engine of these sizes would have made exactly these tables. */
    boolean fits(int sqQuanta, int ord, int ird) {
        return sqSlots == sqSlots(sqQuanta) && ordSlots == ordSlots(ord) && irdSlots == irdSlots(ird);
    }

    /** Never more WQEs are outstanding than the SQ has quanta. */
    static int sqSlots(int sqQuanta) {
        return Math.max(1, sqQuanta);
    }

    /** The context's ORD (8 bits), at most {@link SendQueue#ORD_CAPACITY}: never more Read Requests are out. */
    static int ordSlots(int ord) {
        return Math.max(1, Math.min(ord, SendQueue.ORD_CAPACITY));
    }

    /** The context's IRD, at most {@link ReadResponder#CAPACITY}: more are refused with an AE. */
    static int irdSlots(int ird) {
        return Math.max(1, Math.min(ReadResponder.CAPACITY, ird));
    }
}
