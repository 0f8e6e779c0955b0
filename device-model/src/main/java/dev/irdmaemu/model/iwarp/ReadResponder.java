package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.model.mr.MemoryRegions;

/**
 * The Data Source side of RDMA Read (RFC 5040 §4.4-4.5, §5.3): the RDMA Read Requests the peer sent, queued up to
 * the QP's IRD (the inbound read queue), each answered in order with Read Response FPDUs (tagged, the peer's sink
 * STag and TO, L on the last) whose payload is gathered from the source STag with REMOTE_READ. The source range was
 * checked when the request arrived; a failure while gathering (the region was invalidated meanwhile) stops the QP
 * with the AE MemoryRegions names, source IRDMA_AE_SOURCE_OUT_RR. Fixed-size rings, allocation-free.
 */
final class ReadResponder {
    /** The hardware IRD entries at most (IRDMA_IRD_HW_SIZE_256). */
    static final int CAPACITY = 256;

    private final IwarpQp q;
    private final FpduTransmitter out;
    /** The QP's IRD: the ring's size, since no more requests are ever queued ({@link #full}). */
    private final int ird;
    private final int[] sinkStag;
    private final long[] sinkTo;
    private final long[] size;
    private final int[] sourceStag;
    private final long[] sourceTo;
    private final long[] sent;
    private int head;
    private int count;

    ReadResponder(IwarpQp q, QpEngineMemory m) {
        this.q = q;
        this.out = q.transmitter();
        this.ird = m.irdSlots;
        sinkStag = m.rSinkStag;
        sinkTo = m.rSinkTo;
        size = m.rSize;
        sourceStag = m.rSourceStag;
        sourceTo = m.rSourceTo;
        sent = m.rSent;
    }

    /** Requests waiting or being answered. */
    int queued() {
        return count;
    }

    boolean full() {
        return count >= ird;
    }

    /** Queues a request; the caller has checked it is not {@link #full}. */
    void accept(int sink, long sinkOffset, long bytes, int source, long sourceOffset) {
        int slot = (head + count) % ird;
        sinkStag[slot] = sink;
        sinkTo[slot] = sinkOffset;
        size[slot] = bytes;
        sourceStag[slot] = source;
        sourceTo[slot] = sourceOffset;
        sent[slot] = 0;
        count++;
    }

    void clear() {
        head = 0;
        count = 0;
    }

    /**
     * Sends the next Read Response FPDU and charges its cost to {@code cost}; otherwise why none went: no request
     * queued, no room in TCP, or a failed gather that stopped the QP.
     */
    StepOutcome step(ServiceCost cost) {
        if (count == 0) {
            return StepOutcome.IDLE;
        }
        int s = head;
        long remaining = size[s] - sent[s];
        int n = (int) Math.min(remaining, out.mulpdu() - DdpHeader.TAGGED_LENGTH);
        int ulpdu = DdpHeader.TAGGED_LENGTH + n;
        if (!out.roomFor(Fpdu.totalLengthFor(ulpdu))) {
            return StepOutcome.WAITING;
        }
        boolean last = n == remaining;
        long at = out.begin(ulpdu);
        at += DdpHeader.writeTagged(out.buffer(), at, RdmapOpcode.CODE_RDMA_READ_RESPONSE, last, sinkStag[s],
                sinkTo[s] + sent[s]);
        if (n > 0) {
            int r = q.regions().read(sourceStag[s], sourceTo[s] + sent[s], out.buffer(), at, n,
                    MemoryRegions.REMOTE_READ, q.pd());
            if (r != MemoryRegions.OK) {
                q.runState().fail(r, AeSource.OUT_RR, 0);
                return StepOutcome.STOPPED;
            }
        }
        out.send(n);
        sent[s] += n;
        if (last) {
            q.stats().readResponsesSent++;
            head = (head + 1) % ird;
            count--;
        }
        cost.charge(out.cost(n));
        return StepOutcome.MOVED;
    }
}
