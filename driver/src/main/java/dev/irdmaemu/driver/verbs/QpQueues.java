package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The driver's software side of a QP's work queues (user.h struct irdma_qp_uk, uk.c): the SQ ring in 32-byte quanta
 * with its per-quantum tracking array (sq_wrtrk_array: wr_id, length, quanta, signaled), the RQ ring in WQEs with
 * its wr_id array, the two valid-bit polarities, and the iWARP connection WQEs the SQ starts behind. Pure host
 * memory: it finds where a WQE goes and remembers what was posted; the WQE bytes are written by the caller with
 * the fw.queue writers. Single-threaded, nothing allocated after construction.
 */
final class QpQueues {
    /** defs.h IRDMA_MAX_QUANTA_PER_WR: gen2's max_hw_sq_chunk, a WQE never straddles such a chunk. */
    static final int SQ_CHUNK = 8;
    /** IRDMA_SQ_RING_FREE_QUANTA keeps 257 quanta in reserve. */
    static final int SQ_RESERVED = 257;
    /** uk.c irdma_clr_wqes: every 128 quanta the next 128 are pre-set to the not-yet-valid pattern. */
    static final int CLEAR_AHEAD = 128;

    final int qpId;
    /** The CQE completion context that names this QP (irdma_sc_qp_setctx's qp_compl_ctx). */
    final long handle;
    final BytesStore<?, ?> store;

    final QueueMemory sqMemory;
    final int sqSize;
    int sqHead;
    int sqTail;
    boolean swqePolarity;
    final long[] sqWrid;
    final int[] sqWrLen;
    final byte[] sqQuanta;
    final boolean[] sqSignaled;
    boolean firstSqWq;
    int connWqes;

    final QueueMemory rqMemory;
    final int rqSize;
    final int rqMultiplier;
    int rqHead;
    int rqTail;
    boolean rwqePolarity;
    final long[] rqWrid;

    final int maxSqFrag;
    final int maxRqFrag;
    final int maxInline;

    boolean destroyPending;
    boolean sqFlushComplete;
    boolean rqFlushComplete;
    private final SqWqe wqe = new SqWqe();
    /** The arrays above, handed to the next QP once this one is destroyed. */
    final WorkRequestTracking tracking;

    /**
     * uk.c irdma_uk_qp_init for an iWARP kernel QP (first_sq_wq): {@code sqBase} / {@code rqBase} are store
     * offsets, {@code sqSize} the SQ depth in quanta, {@code rqSize} the RQ depth in WQEs of
     * {@code rqMultiplier} quanta.
     */
    QpQueues(int qpId, long handle, BytesStore<?, ?> store, long sqBase, int sqSize, long rqBase, int rqSize,
             int rqMultiplier, int maxSqFrag, int maxRqFrag, int maxInline) {
        this(qpId, handle, store, QueueMemory.contiguous(sqBase), sqSize, QueueMemory.contiguous(rqBase), rqSize,
                rqMultiplier, maxSqFrag, maxRqFrag, maxInline, new WorkRequestTracking(sqSize, rqSize));
    }

    /** As above, the rings on {@code sq} / {@code rq}: buffers, or pinned pages (a QP created with VQ). */
    QpQueues(int qpId, long handle, BytesStore<?, ?> store, QueueMemory sq, int sqSize, QueueMemory rq, int rqSize,
             int rqMultiplier, int maxSqFrag, int maxRqFrag, int maxInline, WorkRequestTracking tracking) {
        this.qpId = qpId;
        this.handle = handle;
        this.store = store;
        this.sqMemory = sq;
        this.sqSize = sqSize;
        this.tracking = tracking;
        this.sqWrid = tracking.sqWrid;
        this.sqWrLen = tracking.sqWrLen;
        this.sqQuanta = tracking.sqQuanta;
        this.sqSignaled = tracking.sqSignaled;
        this.rqMemory = rq;
        this.rqSize = rqSize;
        this.rqMultiplier = rqMultiplier;
        this.rqWrid = tracking.rqWrid;
        this.maxSqFrag = maxSqFrag;
        this.maxRqFrag = maxRqFrag;
        this.maxInline = maxInline;
        // irdma_setup_connection_wqes: head and tail move past the connection WQEs, which sit at 0..2
        connWqes = SqWqe.CONNECTION_WQES;
        sqHead = SqWqe.CONNECTION_WQES;
        sqTail = SqWqe.CONNECTION_WQES;
        for (int i = 0; i < SqWqe.CONNECTION_WQES; i++) {
            sqQuanta[i] = 1;
        }
        swqePolarity = true;
        firstSqWq = true;
        rwqePolarity = false;
    }

    // ------------------------------------------------------------------------------------------------ the SQ

    int sqUsed() {
        return (sqHead + sqSize - sqTail) % sqSize;
    }

    boolean sqMoreWork() {
        return sqUsed() != 0;
    }

    /**
     * IRDMA_SQ_RING_FREE_QUANTA. The kernel computes it in u32 and relies on max_send_wr to keep it positive; here
     * a negative value is no room.
     */
    int sqFreeQuanta() {
        return Math.max(0, sqSize - sqUsed() - SQ_RESERVED);
    }

    /** Store offset of SQ quantum {@code index}. */
    long sqWqe(int index) {
        return sqMemory.at((long) index * SqWqe.QUANTUM);
    }

    /**
     * uk.c irdma_qp_get_next_send_wqe: pads with NOPs to the next chunk when the WQE would straddle one, flips the
     * polarity when the head wraps to 0, records the work request, and answers the store offset of the WQE, or -1
     * when the ring has no room. Also runs irdma_clr_wqes for the index.
     */
    long nextSendWqe(int quanta, int totalSize, long wrId, boolean signaled) {
        int avail = SQ_CHUNK - sqHead % SQ_CHUNK;
        if (quanta <= avail) {
            if (quanta > sqFreeQuanta()) {
                return -1;
            }
        } else {
            if (quanta + avail > sqFreeQuanta()) {
                return -1;
            }
            for (int i = 0; i < avail; i++) {
                nop(sqHead);
                sqHead = (sqHead + 1) % sqSize;
            }
        }
        int idx = sqHead;
        if (idx == 0) {
            swqePolarity = !swqePolarity;
        }
        sqHead = (sqHead + quanta) % sqSize;
        sqWrid[idx] = wrId;
        sqWrLen[idx] = totalSize;
        sqQuanta[idx] = (byte) quanta;
        sqSignaled[idx] = signaled;
        clearAhead(idx);
        return sqWqe(idx);
    }

    /** uk.c irdma_nop_1: an unsignaled NOP at {@code index} (skipped at index 0, as the kernel does). */
    private void nop(int index) {
        if (sqHead == 0) {
            return;
        }
        sqQuanta[index] = 1;
        wqe.wrap(store, sqWqe(index), SqWqe.QUANTUM).writeNop(swqePolarity, false);
    }

    /**
     * uk.c irdma_clr_wqes: when a WQE starts a 128-quantum block, the block 128 quanta ahead is filled with the
     * pattern whose valid bits read "not posted" for the polarity that block will be used with.
     */
    private void clearAhead(int idx) {
        if ((idx & (CLEAR_AHEAD - 1)) != 0 || sqSize < 2 * CLEAR_AHEAD) {
            return;
        }
        int at = (idx + CLEAR_AHEAD) % sqSize;
        boolean ones = at != 0 ? !swqePolarity : swqePolarity;
        // 128 quanta are 4 KiB from a 4 KiB-aligned offset: one page of pinned pages, contiguous
        long from = sqWqe(at);
        long to = from + (long) CLEAR_AHEAD * SqWqe.QUANTUM;
        if (ones) {
            for (long o = from; o < to; o += 8) {
                store.writeLong(o, -1L);
            }
        } else {
            store.zeroOut(from, to);
        }
    }

    /** The opcode in the header of the SQ WQE at {@code index} (what a flush reports, uk.c flush loop). */
    int sqOpcodeAt(int index) {
        return wqe.wrap(store, sqWqe(index), SqWqe.QUANTUM).opcode();
    }

    /** Retires the SQ WQE at {@code index}: the tail moves past its quanta (at least one). */
    void retireSq(int index) {
        sqTail = (index + Math.max(1, sqQuanta[index])) % sqSize;
    }

    /**
     * The flush loop of uk.c irdma_uk_cq_poll_cmpl (and utils.c irdma_generate_flush_completions): retires WQEs
     * from the SQ tail, skipping NOPs, and answers the index of the first other WQE retired, or -1 when the SQ
     * ran empty (or was) with only NOPs.
     */
    int retireFlushedSq() {
        while (sqMoreWork()) {
            int tail = sqTail;
            retireSq(tail);
            if (sqOpcodeAt(tail) != SqOpcode.NOP.code()) {
                return tail;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------------------------------------ the RQ

    int rqUsed() {
        return (rqHead + rqSize - rqTail) % rqSize;
    }

    boolean rqMoreWork() {
        return rqUsed() != 0;
    }

    /**
     * uk.c irdma_qp_get_next_recv_wqe: the store offset of the next RQ WQE (its wr_id recorded), or -1 when the
     * ring is full (IRDMA_RING_FULL_ERR: one slot always stays free).
     */
    long nextRecvWqe(long wrId) {
        if (rqUsed() == rqSize - 1) {
            return -1;
        }
        int idx = rqHead;
        rqHead = (rqHead + 1) % rqSize;
        if (idx == 0) {
            rwqePolarity = !rwqePolarity;
        }
        rqWrid[idx] = wrId;
        return rqMemory.at((long) idx * rqMultiplier * SqWqe.QUANTUM);
    }

    /** Bytes of one RQ WQE. */
    int rqWqeBytes() {
        return rqMultiplier * SqWqe.QUANTUM;
    }
}
