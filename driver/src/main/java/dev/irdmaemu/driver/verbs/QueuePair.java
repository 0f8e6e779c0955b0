package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.AsyncEvent;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.queue.SqWqe;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * An iWARP RC queue pair of a kernel consumer, as irdma keeps it (verbs.h struct irdma_qp): its SQ, RQ and shadow
 * area in one host buffer, its Q2 buffer and QP context in another, its state in the verbs' terms and the iWARP
 * terms, the state the device reported in its last AE, and what a terminate or flush left behind.
 *
 * <p>What irdma does with a QP is done by the parts it has in its own files, each over this state:
 * <ul>
 * <li>the data path ({@link #postSend}, {@link #postRecv}; {@code QpPost}: verbs.c irdma_post_send /
 * irdma_post_recv, uk.c), which answers a {@link PostStatus} and allocates nothing, and the connection WQEs
 * (ctrl.c irdma_sc_send_lsmm / irdma_sc_send_rtt);</li>
 * <li>the QP context ({@code QpCtxInfo}: verbs.c irdma_iw_fill_and_set_qpctx_info, cm.c irdma_cm_init_tsa_conn,
 * ctrl.c irdma_sc_qp_setctx);</li>
 * <li>the control path ({@link #modify}, {@link #destroy}; {@code QpModify}: verbs.c irdma_modify_qp /
 * irdma_destroy_qp, hw.c irdma_next_iw_state, utils.c irdma_hw_modify_qp);</li>
 * <li>asynchronous events ({@code QpAsyncEvents}: hw.c irdma_process_aeq) with the terminate handling of ctrl.c and
 * utils.c ({@code QpTerminate}), the disconnect work of cm.c irdma_cm_disconn_true ({@code CmDisconnect}) and the
 * flush ({@code QpFlush}: hw.c irdma_flush_wqes, verbs.c irdma_flush_worker, utils.c
 * irdma_generate_flush_completions).</li>
 * </ul>
 * The connection a QP carries hears the outcome through its {@link ConnectionEvents}, the consumer through its
 * {@link QpEventHandler}.
 */
public final class QueuePair {
    /** defs.h IRDMA_QP_STATE_*. */
    public static final int STATE_INVALID = 0;
    public static final int STATE_IDLE = 1;
    public static final int STATE_RTS = 2;
    public static final int STATE_CLOSING = 3;
    public static final int STATE_RTR = 4;
    public static final int STATE_TERMINATE = 5;
    public static final int STATE_ERROR = 6;
    /** defs.h IRDMA_TCP_STATE_*. */
    public static final int TCP_CLOSED = 1;
    public static final int TCP_ESTABLISHED = 5;
    public static final int TCP_CLOSE_WAIT = 6;
    public static final int TCP_TIME_WAIT = 11;
    /** defs.h IRDMA_TERM_SENT / _RCVD / _DONE (qp->term_flags). */
    public static final int TERM_SENT = 1;
    public static final int TERM_RCVD = 2;
    public static final int TERM_DONE = 4;
    /** defs.h IRDMAQP_TERM_* (irdma_next_iw_state's term argument). */
    static final int TERM_SEND_TERM_ONLY = 1;
    static final int TERM_SEND_FIN_ONLY = 2;
    /** defs.h IRDMA_QP_TYPE_IWARP. */
    static final int QP_TYPE_IWARP = 1;
    /** utils.c irdma_terminate_start_timer: HZ. */
    public static final long TERMINATE_TIMEOUT_NANOS = 1_000_000_000L;
    /** verbs.h IRDMA_FLUSH_DELAY_MS: the flush worker's delay. */
    public static final long FLUSH_DELAY_NANOS = 20_000_000L;
    /** user.h IRDMA_MAX_SGE_RD: gen2's max_hw_read_sges. */
    static final int MAX_READ_SGES = 13;

    final IrdmaVerbs verbs;
    final IrdmaDriver driver;
    final BytesStore<?, ?> store;
    final int id;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QpQueues queues;
    final boolean signalAll;
    final int maxSendWr;
    final int maxRecvWr;
    final int sqShift;
    final int rqShift;
    /** The ring buffer (SQ, RQ, shadow area) and the Q2 + context buffer, guest-physical. */
    final long ringAddress;
    final long ringBytes;
    final long q2Address;
    final long hostContextAddress;
    final long shadowAddress;
    /** A user-space QP's pinned pages (SQ, RQ, shadow area), else null; with a PBL the QP is created with VQ. */
    final PinnedRing pinned;
    final int sqPages;
    final boolean virtualMap;
    /** What the context's quadwords 1 and 2 name: the rings' addresses, or under VQ their first PBLE indexes. */
    final long sqPa;
    final long rqPa;

    // irdma_qp state (verbs.h): what the driver believes and what the device last said
    IbQpState ibState = IbQpState.RESET;
    int iwarpState = STATE_INVALID;
    int hwIwarpState = STATE_INVALID;
    int hwTcpState;
    int lastAe;
    int termFlags;
    int flushCode;
    int eventType = FlushCode.EVENT_CATASTROPHIC;
    boolean sqFlushCode;
    boolean rqFlushCode;
    boolean flushSq;
    boolean flushRq;
    boolean flushIssued;
    int closeTimerStarted;
    boolean rtsAeReceived;
    boolean hteAdded;
    boolean destroyed;

    // the connection this QP carries (cm_id / cm_node) and its consumer
    ConnectionEvents connection;
    QpEventHandler eventHandler;
    /** The LSMM's buffer and region (irdma_accept's ietf_mem / lsmm_mr), freed with the QP. */
    long lsmmBuffer;
    long lsmmBufferBytes;
    MemoryRegion lsmmRegion;
    /**
     * The AEs the QP raises itself: the BAD_CLOSE of a refused modify, and a received Terminate's substitute code
     * (terminateConnection reads it before its modify, which may reuse it for BAD_CLOSE).
     */
    final AsyncEvent synthetic = new AsyncEvent();

    // what irdma does with the QP, by concern (each over the state above)
    final QpCtxInfo ctx;
    final QpPost post;
    final QpTerminate term;
    final QpFlush flusher;
    final CmDisconnect disconnect;
    final QpModify modifier;
    final QpAsyncEvents events;

    /**
     * A kernel QP on {@code ringAddress} ({@code ringBytes} of SQ, RQ and shadow area), or, with {@code pinned}, a
     * user-space QP (verbs.c irdma_setup_virt_qp): SQ on {@code pinned} pages {@code [0, sqPages)}, RQ after it, the
     * shadow area on the last page; VQ with the PBLE indexes when {@code pinned} has a PBL.
     */
    QueuePair(IrdmaVerbs verbs, int id, QpInit init, int sqShift, int sqDepth, int rqShift, int rqDepth,
              long ringAddress, long ringBytes, PinnedRing pinned, int sqPages, long q2Address) {
        this.verbs = verbs;
        this.driver = verbs.driver();
        this.store = driver.store();
        this.id = id;
        this.pd = init.pd();
        this.sendCq = init.sendCq();
        this.recvCq = init.recvCq();
        this.signalAll = init.signalAll();
        this.sqShift = sqShift;
        this.rqShift = rqShift;
        this.ringAddress = pinned == null ? ringAddress : pinned.pages[0];
        this.ringBytes = pinned == null ? ringBytes : 0;
        this.q2Address = q2Address;
        this.hostContextAddress = q2Address + Q2Buffer.SIZE;
        this.pinned = pinned;
        this.sqPages = sqPages;
        this.virtualMap = pinned != null && pinned.pbl != null;
        int rqPages = pinned == null ? 0 : pinned.pages.length - 1 - sqPages;
        if (pinned == null) {
            this.shadowAddress = ringAddress + (long) (sqDepth + rqDepth) * SqWqe.QUANTUM;
            this.sqPa = ringAddress;
            this.rqPa = ringAddress + (long) sqDepth * SqWqe.QUANTUM;
        } else {
            // irdma_handle_q_mem: the shadow area is the page after the rings; the RQ's PBLEs follow the SQ's
            this.shadowAddress = pinned.pages[sqPages + rqPages];
            this.sqPa = virtualMap ? pinned.pbl.first : pinned.pages[0];
            this.rqPa = virtualMap ? pinned.pbl.first + sqPages : pinned.pages[sqPages];
        }
        // verbs.c irdma_setup_kmode_qp: what the consumer may post, the rest is the ring's reserve
        this.maxSendWr = (sqDepth - IrdmaVerbs.SQ_RSVD) >> sqShift;
        this.maxRecvWr = (rqDepth - IrdmaVerbs.RQ_RSVD) >> rqShift;
        long sqBase = driver.offsetOf(this.ringAddress);
        QueueMemory sqMemory = pinned == null ? QueueMemory.contiguous(sqBase) : pinned.memory(driver, 0, sqPages);
        QueueMemory rqMemory = pinned == null ? QueueMemory.contiguous(sqBase + (long) sqDepth * SqWqe.QUANTUM)
                : pinned.memory(driver, sqPages, rqPages);
        this.queues = new QpQueues(id, IrdmaVerbs.qpHandle(id), store, sqMemory, sqDepth, rqMemory,
                rqDepth >> rqShift, 1 << rqShift, init.maxSendSge(), init.maxRecvSge(), init.maxInlineData(),
                verbs.spareTracking.take(sqDepth, rqDepth >> rqShift));
        this.ctx = new QpCtxInfo(this);
        this.post = new QpPost(this);
        // the timers in the order irdma's QP has them: terminate, flush, disconnect work
        this.term = new QpTerminate(this);
        this.flusher = new QpFlush(this);
        this.disconnect = new CmDisconnect(this);
        this.modifier = new QpModify(this);
        this.events = new QpAsyncEvents(this);
    }

    public int id() {
        return id;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public CompletionQueue sendCq() {
        return sendCq;
    }

    public CompletionQueue recvCq() {
        return recvCq;
    }

    public int maxSendWr() {
        return maxSendWr;
    }

    public int maxRecvWr() {
        return maxRecvWr;
    }

    public IbQpState state() {
        return ibState;
    }

    /** The iWARP state the driver last moved the QP to (defs.h IRDMA_QP_STATE_*). */
    public int iwarpState() {
        return iwarpState;
    }

    /** The iWARP and TCP states from the device's last AE (iwqp->hw_iwarp_state / hw_tcp_state). */
    public int hwIwarpState() {
        return hwIwarpState;
    }

    public int hwTcpState() {
        return hwTcpState;
    }

    /** The AE code of the last AE for this QP (iwqp->last_aeq), 0 before any. */
    public int lastAe() {
        return lastAe;
    }

    /** IRDMA_TERM_SENT / _RCVD / _DONE bits. */
    public int termFlags() {
        return termFlags;
    }

    /** The QP's flush code after an error AE (user.h enum irdma_flush_opcode). */
    public int flushCode() {
        return flushCode;
    }

    public boolean flushIssued() {
        return flushIssued;
    }

    /** IRDMA_AE_LLP_CONNECTION_ESTABLISHED arrived (iwqp->rts_ae_rcvd). */
    public boolean rtsAeReceived() {
        return rtsAeReceived;
    }

    public boolean isDestroyed() {
        return destroyed;
    }

    public long hostContextAddress() {
        return hostContextAddress;
    }

    public long q2Address() {
        return q2Address;
    }

    /** Guest-physical address of SQ quantum {@code index}. */
    public long sqWqeAddress(int index) {
        long offset = (long) index * SqWqe.QUANTUM;
        return pinned == null ? ringAddress + offset : pinned.address(0, offset);
    }

    /** Created with VQ: the context names the SQ's and RQ's first PBLE indexes. */
    public boolean virtuallyMapped() {
        return virtualMap;
    }

    /** The SQ's first PBLE index under VQ, else -1. */
    public long sqPbleIndex() {
        return virtualMap ? sqPa : -1;
    }

    /** The quantum the next SQ WQE goes to (uk.c sq_ring.head; 3 after the connection WQEs at create). */
    public int sqHead() {
        return queues.sqHead;
    }

    /** The SQ ring's depth in quanta and the RQ's in WQEs. */
    public int sqDepth() {
        return queues.sqSize;
    }

    public int rqSize() {
        return queues.rqSize;
    }

    /** The consumer's handler of asynchronous QP events (QP_FATAL, QP_ACCESS_ERR, QP_REQ_ERR). */
    public QueuePair onEvent(QpEventHandler handler) {
        this.eventHandler = handler;
        return this;
    }

    public boolean connected() {
        return connection != null;
    }

    /** The Terminate header last built for this QP, as it sits in Q2 (for observation). */
    public TerminateBuilder lastTerminate() {
        return term.builder();
    }

    /**
     * verbs.c irdma_post_send for one work request: the WQE as uk.c writes it (or ctrl.c irdma_sc_mr_fast_register
     * for IB_WR_REG_MR), then PFPE_WQEALLOC when no flush was issued and the device's QP is at most RTS. Answers
     * {@link PostStatus#INVALID} for a malformed request and {@link PostStatus#QUEUE_FULL} when the SQ has no room.
     */
    public PostStatus postSend(SendWorkRequest wr) {
        return post.postSend(wr, true);
    }

    /**
     * The same with uk.c's {@code post_sq} (irdma_uk_send / _rdma_write ... take it from the caller): false writes
     * the WQE and moves the SQ head but rings no doorbell, as libirdma does when it rings the user doorbell page
     * itself, or batches WQEs behind one doorbell.
     */
    public PostStatus postSend(SendWorkRequest wr, boolean postSq) {
        return post.postSend(wr, postSq);
    }

    /**
     * verbs.c irdma_post_recv / uk.c irdma_uk_post_receive for one work request. Receives are not rung: the device
     * takes RQ WQEs when data arrives.
     */
    public PostStatus postRecv(ReceiveWorkRequest wr) {
        return post.postRecv(wr);
    }

    /**
     * verbs.c irdma_modify_qp with IB_QP_STATE: INIT/RTR make an unused QP IDLE, SQD closes (CLOSING: the device
     * sends the FIN), SQE moves to TERMINATE, ERR (and RESET) to ERROR, resetting the TCP connection when one is
     * up (the device sends the RST). RTS comes only with a connection ({@link IwarpConnection}).
     *
     * @throws VerbsException INVALID_ARGUMENT for a transition irdma refuses, DEVICE_ERROR when the CQP op fails
     */
    public void modify(IbQpState target) {
        modifier.modify(target);
    }

    /**
     * verbs.c irdma_destroy_qp (_irdma_destroy_qp): ERROR first when the QP was ever moved, its CQEs cleaned from
     * its CQs, the LSMM region freed, then Destroy QP with IRDMA_CQPSQ_QP_REMOVEHASHENTRY and the id and memory
     * returned.
     */
    public void destroy() {
        modifier.destroy();
    }

    @Override
    public String toString() {
        return "QP " + id + " " + ibState + " (iwarp " + iwarpState + ", hw " + hwIwarpState + "/tcp " + hwTcpState
                + ")";
    }
}
