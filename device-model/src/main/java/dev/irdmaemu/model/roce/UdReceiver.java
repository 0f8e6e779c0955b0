package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.WqeCheck;
import dev.irdmaemu.fw.roce.Bth;
import dev.irdmaemu.fw.roce.RoceFrame;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.CompletionQueue;
import dev.irdmaemu.model.qp.CqTable;
import dev.irdmaemu.model.qp.QueuePair;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The UD / QP1 receive side: a checked UD SEND for a UD QP goes into the next posted RQ WQE as irdma's UD receive
 * reads it back (uk.c irdma_uk_cq_poll_cmpl, verbs.c irdma_process_cqe and ib_init_ah_attr_from_wc): the first 40
 * bytes of the buffer are the network header slot (IPv6: the IPv6 header; IPv4: 20 zero bytes, then the IPv4
 * header: include/rdma/ib_verbs.h union rdma_network_hdr), the payload after it; the CQE carries IRDMACQ_PAYLDLEN
 * = 40 + payload (mad.c subtracts the 40), the QP's completion context, IRDMACQ_QPID, IRDMACQ_UDSRCQPN = the DETH
 * source QP, IRDMACQ_IPV4, the WQE index, the low five opcode bits in IRDMACQ_OP (SEND ONLY, never the
 * write-with-immediate codes verbs.h set_ib_wc_op_rq looks for), SOEVENT for a solicited packet, and the extended
 * CQE with the source MAC, the VLAN TCI when tagged and the immediate when there is one. Every buffer is written
 * through its STag (or physically for a privileged QP's STag 0, {@link LocalBuffers}). Allocation-free.
 */
final class UdReceiver {
    /** include/rdma/ib_verbs.h: sizeof(union rdma_network_hdr), the GRH slot of every UD receive. */
    static final int NETWORK_HEADER_SLOT = 40;
    private static final int IPV4_HEADER = 20;

    private final HostMemory memory;
    private final CqTable cqs;
    private final LocalBuffers buffers;
    private final RqWqe rqWqe = new RqWqe();
    private final Cqe cqe = new Cqe();
    private final CqeExtension ext = new CqeExtension();
    private final BytesStore<?, Void> staging =
            BytesStore.nativeStoreWithFixedCapacity(NETWORK_HEADER_SLOT + UdSender.MAX_PAYLOAD);

    UdReceiver(HostMemory memory, CqTable cqs, LocalBuffers buffers) {
        this.memory = memory;
        this.cqs = cqs;
        this.buffers = buffers;
    }

    /** Places the accepted UD packet {@code f} for {@code qp}; answers null when placed, else why it was dropped. */
    RoceDrop place(QueuePair qp, RoceQp q, RoceFrame f) {
        CompletionQueue cq = cqs.get(qp.rxCq());
        if (cq == null || !cq.hasRoom(2)) {
            if (cq != null) {
                cq.overflow();
            }
            return RoceDrop.NO_CQ_ROOM;
        }
        RingCursor rq = qp.rqCursor();
        long offset = (long) rq.index() * RqWqe.MIN_SIZE;
        if (!qp.rqRing().holds(offset)) {
            return RoceDrop.NO_RQ_WQE;
        }
        long gpa = qp.rqRing().address(offset);
        int wqeBytes = Math.max(RqWqe.MIN_SIZE, q.rqWqeBytes);
        int r = memory.find(gpa, wqeBytes);
        if (r < 0) {
            return RoceDrop.NO_RQ_WQE;
        }
        rqWqe.wrap(memory.store(r), memory.offset(r, gpa), wqeBytes);
        WqeCheck c = rqWqe.validate(rq.polarity(), wqeBytes);
        if (c == WqeCheck.NOT_POSTED) {
            return RoceDrop.NO_RQ_WQE;
        }
        if (!c.accepted()) {
            return RoceDrop.BAD_RQ_WQE;
        }
        int payload = f.payloadLength();
        int total = NETWORK_HEADER_SLOT + payload;
        if (rqWqe.totalLength() < total) {
            return RoceDrop.TOO_LONG;
        }
        stage(f);
        if (!scatter(q, total)) {
            return RoceDrop.BUFFER_FAULT;
        }
        RoceDrop written = complete(qp, cq, f, total, rq.index());
        if (written != null) {
            return written;
        }
        int quanta = Math.max(1, wqeBytes / RqWqe.MIN_SIZE);
        for (int i = 0; i < quanta; i++) {
            rq.advance();
        }
        return null;
    }

    /** The 40-byte network header slot and the payload, in {@link #staging}. */
    private void stage(RoceFrame f) {
        BytesStore<?, ?> in = f.store();
        long ip = f.offset() + f.ethernet().payloadOffset();
        if (f.isIpv6()) {
            staging.write(0, in, ip, NETWORK_HEADER_SLOT);
        } else {
            staging.zeroOut(0, IPV4_HEADER);
            staging.write(IPV4_HEADER, in, ip, IPV4_HEADER);
        }
        if (f.payloadLength() > 0) {
            staging.write(NETWORK_HEADER_SLOT, in, f.offset() + f.payloadOffset(), f.payloadLength());
        }
    }

    /** Writes {@code total} staged bytes across the WQE's SGEs in order; false when one refuses. */
    private boolean scatter(RoceQp q, int total) {
        int from = 0;
        int slots = Math.min(rqWqe.fragmentSlots(), 15);
        for (int s = 0; s < slots && from < total; s++) {
            int len = (int) Math.min(rqWqe.fragmentLength(s), total - from);
            if (len <= 0) {
                continue;
            }
            if (buffers.write(q, rqWqe.fragmentStag(s), rqWqe.fragmentAddress(s), staging, from, len)
                    != MemoryRegions.OK) {
                return false;
            }
            from += len;
        }
        return from == total;
    }

    private RoceDrop complete(QueuePair qp, CompletionQueue cq, RoceFrame f, int total, int wqeIndex) {
        if (!cqs.wrapReceiveSlots(cq, qp.id(), f.ethernet(), cqe, ext)) {
            return RoceDrop.NO_CQ_ROOM;
        }
        Bth bth = f.bth();
        boolean imm = bth.opcode().orElseThrow().carriesImmediate();
        if (imm) {
            ext.immediateData(f.headers().immDt().immediate() & 0xffff_ffffL);
        }
        ext.valid(Cqe.extensionValidBit(cq.polarity(0), cq.slotIndex(1)));
        boolean solicited = bth.solicitedEvent();
        cqe.clear().payloadLength(total)
                .completionContext(qp.completionContext()).qpId(qp.id()).invalidatedStag(f.headers().deth().sourceQp())
                .wqeIndex(wqeIndex).ipv4(!f.isIpv6()).sq(false).opType(bth.opcodeCode() & 0x1f)
                .solicitedEvent(solicited).extended(true).valid(cq.polarity(0));
        cq.produced(2, solicited);
        return null;
    }
}
