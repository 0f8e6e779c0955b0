package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A QP's data path: verbs.c irdma_post_send / irdma_post_recv for one work request, the WQE written as uk.c writes
 * it (irdma_uk_send, irdma_uk_rdma_write, irdma_uk_rdma_read, irdma_uk_inline_*, irdma_uk_stag_local_invalidate,
 * irdma_uk_post_receive; ctrl.c irdma_sc_mr_fast_register for IB_WR_REG_MR) and PFPE_WQEALLOC rung
 * (irdma_uk_qp_post_wr); and the connection's first SQ WQEs (ctrl.c irdma_sc_send_lsmm, irdma_sc_send_rtt,
 * irdma_sc_gen_rts_ae). Reused flyweights and a scratch buffer for inline data: nothing is allocated per WR.
 */
final class QpPost {
    private final QueuePair qp;
    private final QpQueues queues;
    private final BytesStore<?, ?> store;
    private final SqWqe sqWqe = new SqWqe();
    private final RqWqe rqWqe = new RqWqe();
    private final BytesStore<?, ?> inline = BytesStore.wrap(new byte[SqWqe.MAX_INLINE]);

    QpPost(QueuePair qp) {
        this.qp = qp;
        this.queues = qp.queues;
        this.store = qp.store;
    }

    /** verbs.c irdma_post_send: the WQE, then the doorbell unless a flush was issued or {@code postSq} is false. */
    PostStatus postSend(SendWorkRequest wr, boolean postSq) {
        PostStatus s = writeSend(wr);
        if (s != PostStatus.OK) {
            return s;
        }
        if (!qp.flushIssued) {
            if (postSq && qp.hwIwarpState <= QueuePair.STATE_RTS && !qp.destroyed) {
                qp.driver.ringSqDoorbell(qp.id);
            }
        } else {
            qp.flusher.schedule();
        }
        return s;
    }

    private PostStatus writeSend(SendWorkRequest wr) {
        if (qp.destroyed) {
            return PostStatus.INVALID;
        }
        boolean signaled = (wr.flags & SendWorkRequest.SIGNALED) != 0 || qp.signalAll;
        int flags = (signaled ? SqWqe.SIGNALED : 0) | ((wr.flags & SendWorkRequest.FENCE) != 0 ? SqWqe.READ_FENCE : 0);
        boolean solicited = (wr.flags & SendWorkRequest.SOLICITED) != 0;
        boolean inlineData = (wr.flags & SendWorkRequest.INLINE) != 0;
        return switch (wr.opcode) {
            case SEND -> send(wr, solicited ? SqOpcode.RDMA_SEND_SOL_EVENT : SqOpcode.RDMA_SEND, flags, signaled,
                    inlineData);
            case SEND_WITH_INV -> send(wr, solicited ? SqOpcode.RDMA_SEND_SOL_EVENT_INV : SqOpcode.RDMA_SEND_INV,
                    flags, signaled, inlineData);
            case RDMA_WRITE -> send(wr, solicited ? SqOpcode.RDMA_WRITE_SOL : SqOpcode.RDMA_WRITE, flags, signaled,
                    inlineData);
            case RDMA_READ, RDMA_READ_WITH_INV -> read(wr, flags, signaled, inlineData);
            case LOCAL_INV -> localInvalidate(wr, flags, signaled);
            case REG_MR -> fastRegister(wr, flags, signaled);
            default -> PostStatus.INVALID;
        };
    }

    /** uk.c irdma_uk_send / irdma_uk_rdma_write, or their inline forms (irdma_uk_inline_send / _rdma_write). */
    private PostStatus send(SendWorkRequest wr, SqOpcode op, int flags, boolean signaled, boolean inlineData) {
        SgeList sges = wr.sges;
        int n = sges.count();
        if (n > queues.maxSqFrag) {
            return PostStatus.INVALID;
        }
        boolean write = wr.opcode == WrOpcode.RDMA_WRITE;
        int inv = wr.opcode == WrOpcode.SEND_WITH_INV ? wr.invalidateRkey : 0;
        long total = sges.totalLength();
        if (inlineData) {
            if (total > queues.maxInline || !gatherInline(sges, (int) total)) {
                return PostStatus.INVALID;
            }
            SqWqe w = slot(SqWqe.inlineQuanta((int) total), total, wr, signaled);
            if (w == null) {
                return PostStatus.QUEUE_FULL;
            }
            if (write) {
                w.writeInlineRdmaWrite(queues.swqePolarity, op, inline, 0, (int) total, wr.rkey, wr.remoteAddress,
                        flags, 0);
            } else {
                w.writeInlineSend(queues.swqePolarity, op, inline, 0, (int) total, inv, flags, 0);
            }
            return PostStatus.OK;
        }
        SqWqe w = slot(SqWqe.fragmentQuanta(n), total, wr, signaled);
        if (w == null) {
            return PostStatus.QUEUE_FULL;
        }
        if (write) {
            w.writeRdmaWrite(queues.swqePolarity, op, sges, wr.rkey, wr.remoteAddress, flags, 0);
        } else {
            w.writeSend(queues.swqePolarity, op, sges, flags, 0, inv);
        }
        return PostStatus.OK;
    }

    /** uk.c irdma_uk_rdma_read: at most IRDMA_MAX_SGE_RD SGEs, never inline. */
    private PostStatus read(SendWorkRequest wr, int flags, boolean signaled, boolean inlineData) {
        int n = wr.sges.count();
        if (n > QueuePair.MAX_READ_SGES || n > queues.maxSqFrag || inlineData) {
            return PostStatus.INVALID;
        }
        SqWqe w = slot(SqWqe.fragmentQuanta(n), wr.sges.totalLength(), wr, signaled);
        if (w == null) {
            return PostStatus.QUEUE_FULL;
        }
        w.writeRdmaRead(queues.swqePolarity, wr.sges, wr.rkey, wr.remoteAddress,
                wr.opcode == WrOpcode.RDMA_READ_WITH_INV, flags);
        return PostStatus.OK;
    }

    /** uk.c irdma_uk_stag_local_invalidate: verbs.c fences IB_WR_LOCAL_INV locally, always. */
    private PostStatus localInvalidate(SendWorkRequest wr, int flags, boolean signaled) {
        SqWqe w = slot(1, 0, wr, signaled);
        if (w == null) {
            return PostStatus.QUEUE_FULL;
        }
        w.writeLocalInvalidate(queues.swqePolarity, wr.invalidateRkey, flags | SqWqe.LOCAL_FENCE);
        return PostStatus.OK;
    }

    /**
     * verbs.c IB_WR_REG_MR / ctrl.c irdma_sc_mr_fast_register: VA-based, the first page's address as reg_addr_pa,
     * the PBL chunk only with more than one page (IRDMA_MIN_PAGES_PER_FMR), local fence.
     */
    private PostStatus fastRegister(SendWorkRequest wr, int flags, boolean signaled) {
        MemoryRegion mr = wr.mr;
        if (mr == null || mr.kind != MemoryRegion.Kind.FAST_REGISTER || mr.deregistered
                || mr.pageCount == 0 || StagFields.stagIndexOf(wr.key) != StagFields.stagIndexOf(mr.stag)) {
            return PostStatus.INVALID;
        }
        SqWqe w = slot(1, 0, wr, signaled);
        if (w == null) {
            return PostStatus.QUEUE_FULL;
        }
        int chunk = mr.pageCount > 1 ? PbleLayout.CHUNK_LEVEL_1 : PbleLayout.CHUNK_NONE;
        w.writeFastRegister(queues.swqePolarity, mr.iova, true, mr.pages[0], mr.pbles.first, mr.length,
                StagFields.stagKeyOf(wr.key), StagFields.stagIndexOf(wr.key), chunk, 0, Access.hardwareRights(wr.access),
                false, flags | SqWqe.LOCAL_FENCE);
        mr.stag = wr.key;
        return PostStatus.OK;
    }

    /**
     * uk.c irdma_qp_get_next_send_wqe: room for a WQE of {@code quanta} at the SQ head (tracking the request's wr_id,
     * length and signaling), {@link #sqWqe} wrapped over it; null when the SQ is full.
     */
    private SqWqe slot(int quanta, long total, SendWorkRequest wr, boolean signaled) {
        long o = queues.nextSendWqe(quanta, (int) total, wr.wrId, signaled);
        return o < 0 ? null : sqWqe.wrap(store, o, (long) quanta * SqWqe.QUANTUM);
    }

    /**
     * uk.c irdma_copy_inline_data's source: the SGEs' bytes (addresses in the iova space of the region each lkey
     * names) gathered into the scratch buffer. False when an SGE is not inside a region of this QP's PD.
     */
    private boolean gatherInline(SgeList sges, int total) {
        int at = 0;
        for (int i = 0; i < sges.count(); i++) {
            int len = sges.length(i);
            MemoryRegion mr = qp.verbs.regionOf(sges.stag(i));
            if (len < 0 || at + len > total || mr == null || mr.pd != qp.pd) {
                return false;
            }
            long addr = sges.address(i);
            for (int b = 0; b < len; b++) {
                long pa = mr.physicalAddress(addr + b);
                if (pa < 0) {
                    return false;
                }
                inline.writeByte(at + b, store.readByte(qp.driver.offsetOf(pa)));
            }
            at += len;
        }
        return true;
    }

    /** verbs.c irdma_post_recv / uk.c irdma_uk_post_receive: not rung, the device takes RQ WQEs as data arrives. */
    PostStatus postRecv(ReceiveWorkRequest wr) {
        if (qp.destroyed || wr.sges.count() > queues.maxRqFrag) {
            return PostStatus.INVALID;
        }
        long o = queues.nextRecvWqe(wr.wrId);
        if (o < 0) {
            return PostStatus.QUEUE_FULL;
        }
        rqWqe.wrap(store, o, queues.rqWqeBytes()).write(queues.rwqePolarity, wr.sges);
        if (qp.flushIssued) {
            qp.flusher.schedule();
        }
        return PostStatus.OK;
    }

    /**
     * ctrl.c irdma_sc_send_lsmm: the MPA reply as the SQ's first WQE (index 0), streaming mode, waiting for the
     * peer's first FPDU, then irdma_sc_gen_rts_ae's NOP with local fence (index 1) and GEN_RTS_AE (index 2).
     */
    void writeLsmm(long buffer, int size, int lkey) {
        sqWqe.wrap(store, queues.sqWqe(0), SqWqe.QUANTUM).writeLsmm(queues.swqePolarity, buffer, size, lkey);
        writeRtsAe();
    }

    /** ctrl.c irdma_sc_send_rtt: the RTR (a zero-length RDMA Read or Write) at index 0, then the RTS-AE WQEs. */
    void writeRtr(boolean read) {
        sqWqe.wrap(store, queues.sqWqe(0), SqWqe.QUANTUM).writeRtr(queues.swqePolarity, read);
        writeRtsAe();
    }

    private void writeRtsAe() {
        sqWqe.wrap(store, queues.sqWqe(1), SqWqe.QUANTUM).writeRtsAeRequest(queues.swqePolarity, false);
        sqWqe.wrap(store, queues.sqWqe(2), SqWqe.QUANTUM).writeRtsAeRequest(queues.swqePolarity, true);
    }
}
