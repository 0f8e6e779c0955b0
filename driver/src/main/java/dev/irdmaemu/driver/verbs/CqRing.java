package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.CqeExtension;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.reg.Gen2Registers;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The driver's software side of a CQ (user.h struct irdma_cq_uk, uk.c): the ring of 32-byte CQEs in host memory,
 * the head and the valid-bit polarity it expects, and the shadow area it reports its head through. {@link #poll}
 * is uk.c irdma_uk_cq_poll_cmpl followed by verbs.c irdma_process_cqe: the CQE names its QP by completion context,
 * the wr_id comes from that QP's SQ or RQ tracking array (never from the device), flushed CQEs are parked and
 * re-read while the QP has unprocessed WQEs (gen2), and the connection WQEs' completions are skipped.
 *
 * <p>Everything the device wrote is checked before use: an unknown completion context, a WQE index outside the
 * ring, an op type irdma does not know all end in a skipped CQE or a GENERAL_ERR completion, never an exception.
 * Nothing is allocated.
 */
final class CqRing {
    /**
     * uk.c irdma_uk_cq_poll_cmpl reports the head in the shadow area unless it sits on a multiple of 64 (the
     * kernel's literal 0x3F), or whenever the ring went empty.
     */
    static final int SHADOW_REPORT_MASK = 0x3f;
    /** What one {@link #poll} came to: a completion was filled in, the ring is empty, or a CQE was dropped. */
    enum Result {
        POLLED,
        EMPTY,
        SKIPPED
    }

    static final Result POLLED = Result.POLLED;
    static final Result EMPTY = Result.EMPTY;
    static final Result SKIPPED = Result.SKIPPED;

    /** Finds the QP a CQE's completion context names (null: unknown, the CQE is dropped as irdma does for -EFAULT). */
    @FunctionalInterface
    interface QpLookup {
        QpQueues byHandle(long completionContext);
    }

    private static final int STATUS_SUCCESS = 0;
    private static final int STATUS_FLUSHED = 1;
    private static final int STATUS_UNKNOWN = 2;

    final int cqId;
    final BytesStore<?, ?> store;
    final QueueMemory memory;
    final int size;
    final long shadowBase;
    int head;
    boolean polarity = true;
    private final Cqe cqe = new Cqe();
    private final CqeExtension ext = new CqeExtension();
    private final PollInfo info = new PollInfo();

    /**
     * uk.c's struct irdma_cq_poll_info for the CQE being polled, with what the queue side decided about the head
     * (reused: nothing is allocated per CQE).
     */
    private static final class PollInfo {
        boolean extValid;
        boolean immValid;
        int imm;
        boolean sq;
        boolean error;
        int major;
        int minor;
        int compStatus;
        int wqeIdx;
        int opType;
        boolean moveHead;
        int ringTail;
        boolean ringMoreWork;

        boolean flushed() {
            return compStatus == STATUS_FLUSHED;
        }
    }

    /** How the SQ or RQ side of a CQE ended: completed (filled into the WC), or {@link #poll}'s answer, or next CQE. */
    private enum Step {
        COMPLETE(Result.POLLED),
        EMPTY(Result.EMPTY),
        SKIPPED(Result.SKIPPED),
        NEXT(null);

        final Result result;

        Step(Result result) {
            this.result = result;
        }
    }

    /** uk.c irdma_uk_cq_init: {@code ringBase} and {@code shadowBase} are store offsets; the polarity starts at 1. */
    CqRing(int cqId, BytesStore<?, ?> store, long ringBase, int size, long shadowBase) {
        this(cqId, store, QueueMemory.contiguous(ringBase), size, shadowBase);
    }

    /** A ring on {@code memory}: one buffer, or pinned pages (a CQ created with VIRTMAP). */
    CqRing(int cqId, BytesStore<?, ?> store, QueueMemory memory, int size, long shadowBase) {
        this.cqId = cqId;
        this.store = store;
        this.memory = memory;
        this.size = size;
        this.shadowBase = shadowBase;
    }

    private long slot(int index) {
        return memory.at((long) index * Cqe.SIZE);
    }

    /** uk.c irdma_uk_cq_empty. */
    boolean empty() {
        cqe.wrap(store, slot(head), Cqe.SIZE);
        return cqe.valid() != polarity;
    }

    /**
     * One completion: uk.c irdma_uk_cq_poll_cmpl, then verbs.c irdma_process_cqe into {@code wc}. Answers
     * {@link #POLLED}, {@link #EMPTY} or {@link #SKIPPED}.
     */
    Result poll(WorkCompletion wc, QpLookup qps) {
        while (true) {
            if (!readCqe()) {
                return Result.EMPTY;
            }
            QpQueues qp = qps.byHandle(cqe.completionContext());
            if (qp == null || qp.destroyPending) {
                consume(info.extValid);
                return Result.SKIPPED;
            }
            wc.clear();
            wc.qpNum = cqe.qpId();
            wc.solicited = cqe.solicitedEvent();
            info.wqeIdx = cqe.wqeIndex();
            info.opType = cqe.opType();
            info.moveHead = true;
            Step step = info.sq ? sqCompletion(wc, qp) : rqCompletion(wc, qp);
            if (step == Step.COMPLETE) {
                finish(wc);
            }
            if (step != Step.NEXT) {
                return step.result;
            }
        }
    }

    /**
     * The CQE at the head, with its extension, into {@link #info}; false when the device has not written it (or
     * not yet its extension). A flush's first CQE is rewritten to the standard flush code for the next polls.
     */
    private boolean readCqe() {
        cqe.wrap(store, slot(head), Cqe.SIZE);
        if (cqe.valid() != polarity) {
            return false;
        }
        info.extValid = cqe.extended();
        info.immValid = false;
        info.imm = 0;
        if (info.extValid) {
            int peek = (head + 1) % size;
            ext.wrap(store, slot(peek), CqeExtension.SIZE);
            if (ext.valid() != Cqe.extensionValidBit(polarity, peek)) {
                return false;
            }
            info.immValid = ext.immediateValid();
            if (info.immValid) {
                info.imm = ext.immediateDataLow32();
            }
        }
        info.sq = cqe.sq();
        info.error = cqe.error();
        info.major = 0;
        info.minor = 0;
        info.compStatus = STATUS_SUCCESS;
        if (info.error) {
            info.major = cqe.majorError();
            info.minor = cqe.minorError();
            if (info.major == FlushCode.FLUSH_MAJOR_ERR || info.major == FlushCode.SRQ_FLUSH_RSVD_MAJOR_ERR) {
                if (info.major == FlushCode.SRQ_FLUSH_RSVD_MAJOR_ERR) {
                    info.minor = FlushCode.fromAe(info.minor);
                }
                // later CQEs of this flush report the standard flush code (uk.c rewrites the CQE)
                if (info.minor != FlushCode.GENERAL_ERR) {
                    cqe.error(info.major, FlushCode.GENERAL_ERR);
                }
                info.compStatus = STATUS_FLUSHED;
            } else {
                info.compStatus = STATUS_UNKNOWN;
            }
        }
        return true;
    }

    /** An RQ CQE: the wr_id from the RQ's tracking array (the tail's, for a flushed one), the tail moved on. */
    private Step rqCompletion(WorkCompletion wc, QpQueues qp) {
        int arrayIdx = info.wqeIdx / qp.rqMultiplier;
        if (info.compStatus != STATUS_SUCCESS) {
            if (!qp.rqMoreWork()) {
                consume(info.extValid);
                return Step.EMPTY;
            }
            arrayIdx = qp.rqTail;
        } else if (arrayIdx >= qp.rqSize) {
            // an index outside the RQ cannot name a posted WQE: the CQE is dropped
            consume(info.extValid);
            return Step.SKIPPED;
        }
        wc.wrId = qp.rqWrid[arrayIdx];
        wc.byteLen = cqe.payloadLength();
        if (cqe.stagInvalidated()) {
            wc.withInvalidate = true;
            wc.invalidatedRkey = cqe.invalidatedStag();
        }
        qp.rqTail = (arrayIdx + 1) % qp.rqSize;
        if (info.flushed()) {
            if (!qp.rqMoreWork()) {
                qp.rqFlushComplete = true;
            } else {
                info.moveHead = false;
            }
        }
        info.ringTail = qp.rqTail;
        info.ringMoreWork = qp.rqMoreWork();
        return Step.COMPLETE;
    }

    /**
     * An SQ CQE: the connection WQEs' completions skipped, then the wr_id from the SQ's tracking array (an unsignaled
     * WQE's completion dropped), or for a flushed one the next unprocessed WQE's.
     */
    private Step sqCompletion(WorkCompletion wc, QpQueues qp) {
        int wqeIdx = info.wqeIdx;
        if (qp.firstSqWq) {
            if (wqeIdx + 1 >= qp.connWqes) {
                qp.firstSqWq = false;
            }
            if (wqeIdx < qp.connWqes && qp.sqHead == qp.sqTail) {
                // a completion of the LSMM / RTR / RTS-AE WQEs: nobody posted them, nobody sees them
                // (uk.c moves the head and reports it without flipping the polarity on a wrap; this does)
                advance();
                store.writeLong(shadowBase, head & Gen2Registers.CQ_DBSA_CQEIDX);
                return Step.NEXT;
            }
        }
        Step step = info.flushed() ? sqFlushed(wc, qp) : sqCompleted(wc, qp, wqeIdx);
        if (step == Step.COMPLETE) {
            info.ringTail = qp.sqTail;
            info.ringMoreWork = qp.sqMoreWork();
        }
        return step;
    }

    private Step sqCompleted(WorkCompletion wc, QpQueues qp, int wqeIdx) {
        if (wqeIdx >= qp.sqSize) {
            consume(info.extValid);
            return Step.SKIPPED;
        }
        wc.wrId = qp.sqWrid[wqeIdx];
        if (info.compStatus == STATUS_SUCCESS) {
            wc.byteLen = Integer.toUnsignedLong(qp.sqWrLen[wqeIdx]);
        }
        if (!qp.sqSignaled[wqeIdx]) {
            consume(info.extValid);
            return Step.SKIPPED;
        }
        qp.retireSq(wqeIdx);
        return Step.COMPLETE;
    }

    private Step sqFlushed(WorkCompletion wc, QpQueues qp) {
        if (!qp.sqMoreWork()) {
            consume(info.extValid);
            return Step.EMPTY;
        }
        int tail = qp.retireFlushedSq();
        if (tail >= 0) {
            info.opType = qp.sqOpcodeAt(tail);
            wc.wrId = qp.sqWrid[tail];
            wc.byteLen = Integer.toUnsignedLong(qp.sqWrLen[tail]);
        } else {
            // only NOPs were left: the completion reports the last of them
            info.opType = SqOpcode.NOP.code();
        }
        if (info.opType == SqOpcode.BIND_MW.code() && info.minor == FlushCode.PROT_ERR) {
            info.minor = FlushCode.MW_BIND_ERR;
        }
        if (!qp.sqMoreWork()) {
            qp.sqFlushComplete = true;
        }
        return Step.COMPLETE;
    }

    /** The head moved past the CQE, or (gen2) parked on a flushed one while its queue has work; the WC filled. */
    private void finish(WorkCompletion wc) {
        if (info.flushed() && info.ringMoreWork) {
            // gen2: park the CQ head on the flushed CQE so each poll flushes the next unprocessed WQE
            info.moveHead = false;
        }
        if (info.moveHead) {
            consume(info.extValid);
        } else {
            cqe.wqeIndex(info.ringTail);
        }
        processCqe(wc, info.error, info.compStatus, info.major, info.minor, info.sq, info.opType, info.immValid,
                info.imm);
    }

    /** verbs.c irdma_process_cqe: status, vendor error, opcode (set_ib_wc_op_sq / set_ib_wc_op_rq, gen2 iWARP). */
    private static void processCqe(WorkCompletion wc, boolean error, int compStatus, int major, int minor,
                                   boolean sq, int opType, boolean immValid, int imm) {
        if (error) {
            wc.status = compStatus == STATUS_FLUSHED ? FlushCode.status(minor) : WcStatus.GENERAL_ERR;
            wc.vendorErr = major << 16 | minor;
        } else {
            wc.status = WcStatus.SUCCESS;
            if (immValid) {
                wc.immData = imm;
                wc.withImm = true;
            }
        }
        if (sq) {
            wc.opcode = WcOpcode.fromSq(opType);
            if (wc.opcode == WcOpcode.UNKNOWN) {
                wc.status = WcStatus.GENERAL_ERR;
            }
        } else {
            // iWARP has no Send with Immediate: immediate data can only be a Write with Immediate
            wc.opcode = immValid ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
        }
    }

    /**
     * Moves the head past the current CQE (and its extension), flipping the polarity on wrap, and reports the head
     * in the shadow area as uk.c does (every 64 entries, or when the ring went empty).
     */
    private void consume(boolean extValid) {
        advance();
        if (extValid) {
            advance();
        }
        if ((head & SHADOW_REPORT_MASK) != 0 || empty()) {
            store.writeLong(shadowBase, head & Gen2Registers.CQ_DBSA_CQEIDX);
        }
    }

    private void advance() {
        head++;
        if (head == size) {
            head = 0;
            polarity = !polarity;
        }
    }

    /**
     * uk.c irdma_uk_clean_cq: CQEs still in the ring for a QP being destroyed get their completion context cleared,
     * so that polling drops them.
     */
    void clean(long qpHandle) {
        int h = head;
        boolean p = polarity;
        for (int n = 0; n < size; n++) {
            cqe.wrap(store, slot(h), Cqe.SIZE);
            if (cqe.valid() != p) {
                return;
            }
            if (cqe.completionContext() == qpHandle) {
                store.writeLong(slot(h) + Cqe.OFF_COMPLETION_CONTEXT, 0L);
            }
            h++;
            if (h == size) {
                h = 0;
                p = !p;
            }
        }
    }
}
