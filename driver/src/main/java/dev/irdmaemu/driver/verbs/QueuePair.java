package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.AsyncEvent;
import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.cqp.CqpErrorCode;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.hmc.PbleLayout;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.sim.SimTimer;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An iWARP RC queue pair of a kernel consumer, as irdma keeps it (verbs.h struct irdma_qp): its SQ, RQ and shadow
 * area in one host buffer, its Q2 buffer and QP context in another, its state in the verbs' terms and the iWARP
 * terms, the state the device reported in its last AE, and what a terminate or flush left behind.
 *
 * <p>The data path ({@link #postSend}, {@link #postRecv}) writes WQEs as uk.c does and rings PFPE_WQEALLOC; it
 * answers a {@link PostStatus} and allocates nothing. The control path ({@link #modify}, {@link #destroy}) issues
 * CQP ops as verbs.c irdma_modify_qp / irdma_destroy_qp do. Asynchronous events are handled as hw.c
 * irdma_process_aeq does ({@link #asyncEvent}), with the terminate handling of ctrl.c / utils.c and the disconnect
 * work of cm.c irdma_cm_disconn_true; the connection a QP carries hears the outcome through its
 * {@link ConnectionEvents}, the consumer through its {@link QpEventHandler}.
 */
public final class QueuePair {
    private static final Logger LOG = LoggerFactory.getLogger(QueuePair.class);

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
    private final IrdmaDriver driver;
    private final BytesStore<?, ?> store;
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
    /** The flush worker found the CQ empty: the rest of the queue completes as generated flush completions. */
    boolean generateSqFlush;
    boolean generateRqFlush;

    // the connection this QP carries (cm_id / cm_node) and its consumer
    ConnectionEvents connection;
    private QpEventHandler eventHandler;
    /** The LSMM's buffer and region (irdma_accept's ietf_mem / lsmm_mr), freed with the QP. */
    long lsmmBuffer;
    long lsmmBufferBytes;
    MemoryRegion lsmmRegion;
    IwarpOffloadInfo iwarpInfo;
    TcpOffloadInfo tcpInfo;
    private int arpIndex;

    private final SimTimer terminateTimer;
    private final SimTimer flushTimer;
    private final SimTimer disconnectWork;
    private boolean disconnectQueued;

    // reused flyweights and fields: nothing allocated per WR or per event
    private final SqWqe sqWqe = new SqWqe();
    private final RqWqe rqWqe = new RqWqe();
    private final QpOpFields qpf = new QpOpFields();
    private final QpFlushFields flushFields = new QpFlushFields();
    private final QpContext context = new QpContext();
    private final Q2Buffer q2 = new Q2Buffer();
    private final TerminateBuilder terminate = new TerminateBuilder();
    private final BytesStore<?, ?> inline = BytesStore.wrap(new byte[SqWqe.MAX_INLINE]);
    /**
     * The AEs the QP raises itself: the BAD_CLOSE of a refused modify, and a received Terminate's substitute code
     * (terminateConnection reads it before its modify, which may reuse it for BAD_CLOSE).
     */
    private final AsyncEvent synthetic = new AsyncEvent();

    QueuePair(IrdmaVerbs verbs, int id, QpInit init, int sqShift, int sqDepth, int rqShift, int rqDepth,
              long ringAddress, long ringBytes, long q2Address) {
        this(verbs, id, init, sqShift, sqDepth, rqShift, rqDepth, ringAddress, ringBytes, q2Address, null, 0);
    }

    /**
     * A user-space QP (verbs.c irdma_setup_virt_qp): SQ on {@code pinned} pages {@code [0, sqPages)}, RQ after it,
     * the shadow area on the last page; VQ with the PBLE indexes when {@code pinned} has a PBL.
     */
    QueuePair(IrdmaVerbs verbs, int id, QpInit init, int sqShift, int sqDepth, int rqShift, int rqDepth,
              PinnedRing pinned, int sqPages, long q2Address) {
        this(verbs, id, init, sqShift, sqDepth, rqShift, rqDepth, pinned.pages[0], 0, q2Address, pinned, sqPages);
    }

    private QueuePair(IrdmaVerbs verbs, int id, QpInit init, int sqShift, int sqDepth, int rqShift, int rqDepth,
                      long ringAddress, long ringBytes, long q2Address, PinnedRing pinned, int sqPages) {
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
        this.ringAddress = ringAddress;
        this.ringBytes = ringBytes;
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
        long sqBase = driver.offsetOf(ringAddress);
        QueueMemory sqMemory = pinned == null ? QueueMemory.contiguous(sqBase) : pinned.memory(driver, 0, sqPages);
        QueueMemory rqMemory = pinned == null ? QueueMemory.contiguous(sqBase + (long) sqDepth * SqWqe.QUANTUM)
                : pinned.memory(driver, sqPages, rqPages);
        this.queues = new QpQueues(id, IrdmaVerbs.qpHandle(id), store, sqMemory, sqDepth, rqMemory,
                rqDepth >> rqShift, 1 << rqShift, init.maxSendSge(), init.maxRecvSge(), init.maxInlineData());
        this.terminateTimer = driver.scheduler().newTimer("qp-terminate", () -> terminateDone(true));
        this.flushTimer = driver.scheduler().newTimer("qp-flush", this::flushWorker);
        this.disconnectWork = driver.scheduler().newTimer("qp-disconnect", this::disconnectWorker);
    }

    // ------------------------------------------------------------------------------------------------ accessors

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

    // ------------------------------------------------------------------------------------------------ the context

    /**
     * verbs.c irdma_iw_fill_and_set_qpctx_info then ctrl.c irdma_sc_qp_setctx: the context the QP is created with,
     * the iWARP half only (kernel consumer: privileged mode and fast registration on; ECN on, RTO floor 5).
     */
    void writeCreateContext() {
        iwarpInfo = new IwarpOffloadInfo(0, 0, 1, 1, 0, 0, 0, 0, true, false, false, false, false, false, true,
                false, true, true, true, false, true, false, 0, 0, 0, verbs.macAddress(), 5);
        writeContext(false, 0);
    }

    /**
     * cm.c irdma_cm_init_tsa_conn: the negotiated IRD / ORD, reads on, the PD, and the TCP half from
     * irdma_init_tcp_ctx ({@code tcp}); written with irdma_sc_qp_setctx.
     */
    void writeConnectionContext(TcpOffloadInfo tcp, int ord, int ird, int arp) {
        IwarpOffloadInfo w = iwarpInfo;
        iwarpInfo = iwarpInfo(w, 1, 1, w.errRqIdx(), w.errRqIdxValid(), pd.id(), ord, ird, true);
        tcpInfo = tcp;
        arpIndex = arp;
        writeContext(true, 0);
    }

    /**
     * {@code w} with the fields a connection (versions, PD, ORD / IRD, reads) or an RQ error AE (err_rq_idx) sets;
     * every other field kept.
     */
    private static IwarpOffloadInfo iwarpInfo(IwarpOffloadInfo w, int ddpVer, int rdmapVer, int errRqIdx,
                                              boolean errRqIdxValid, int pdId, int ord, int ird, boolean rdEn) {
        return new IwarpOffloadInfo(w.rcvMarkOffset(), w.sndMarkOffset(), ddpVer, rdmapVer, errRqIdx, pdId, ord, ird,
                w.ibRdEn(), w.alignHdrs(), w.rcvNoMpaCrc(), errRqIdxValid, w.sndMarkEn(), w.rcvMarkEn(),
                w.wrRdrespEn(), w.bindEn(), w.fastRegEn(), w.privModeEn(), rdEn, w.timelyEn(), w.ecnEn(),
                w.dctcpEn(), w.tHigh(), w.tLow(), w.lastByteSent(), w.macAddr(), w.rtomin());
    }

    private void writeContext(boolean withTcp, int remEndpoint) {
        var r = new QpResources(rqShift, false, false, false, false, QpResources.NO_PUSH_PAGE, sqPa, rqPa, encodedSize(queues.rqSize << rqShift),
                encodedSize(queues.sqSize), q2Address, 0, 0, driver.qsHandle(), IrdmaDriver.IEQ_QP);
        var info = new QpHostContextInfo(queues.handle, sendCq.id, recvCq.id, remEndpoint, 0, false, withTcp, true);
        context.wrap(store, driver.offsetOf(hostContextAddress), QpContext.SIZE)
                .write(r, info, iwarpInfo, withTcp ? tcpInfo : null);
    }

    /** ctrl.c irdma_get_encoded_wqe_size for an SQ/RQ: log2(quanta / 4). */
    static int encodedSize(int quanta) {
        int size = quanta >>> 2;
        int e = 0;
        while ((size >>>= 1) != 0) {
            e++;
        }
        return e;
    }

    // ------------------------------------------------------------------------------------------------ connection WQEs

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

    /**
     * The fields every QP op of this QP carries (ctrl.c irdma_sc_qp_modify / _destroy take them from the QP: its
     * id, type, host context and shadow area), the rest cleared, into {@link #qpf}.
     */
    private void qpOp() {
        qpf.clear();
        qpf.qpId = id;
        qpf.qpType = QP_TYPE_IWARP;
        qpf.hostContextAddress = hostContextAddress;
        qpf.shadowAreaAddress = shadowAddress;
        // ctrl.c irdma_sc_qp_modify writes IRDMA_CQPSQ_QP_VQ from the QP (the destroy op has no such field)
        qpf.virtualMap = virtualMap;
    }

    /**
     * verbs.c irdma_modify_qp to IB_QPS_RTS for a connection: Modify QP with the TCP context, ORD, ARP index and CQ
     * numbers valid. The device starts the connection WQEs at SQ index 0 once the QP is in RTS.
     */
    void moveToRts(ConnectionEvents events) {
        if (iwarpState > STATE_RTS) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP " + id + " is past RTS");
        }
        connection = events;
        hwTcpState = TCP_ESTABLISHED;
        hteAdded = true;
        qpOp();
        qpf.nextIwarpState = STATE_RTS;
        qpf.tcpContextValid = true;
        qpf.ordValid = true;
        qpf.arpIndexValid = true;
        qpf.cqNumValid = true;
        try {
            driver.modifyQp(qpf);
        } catch (CqpException e) {
            connection = null;
            throw new VerbsException("modify QP " + id + " to RTS", e);
        }
        iwarpState = STATE_RTS;
        ibState = IbQpState.RTS;
    }

    /** Forgets the connection (cm.c irdma_destroy_connection: iwqp->cm_node = NULL). */
    void unbind() {
        connection = null;
    }

    // ------------------------------------------------------------------------------------------------ the data path

    /**
     * verbs.c irdma_post_send for one work request: the WQE as uk.c writes it (or ctrl.c irdma_sc_mr_fast_register
     * for IB_WR_REG_MR), then PFPE_WQEALLOC when no flush was issued and the device's QP is at most RTS. Answers
     * {@link PostStatus#INVALID} for a malformed request and {@link PostStatus#QUEUE_FULL} when the SQ has no room.
     */
    public PostStatus postSend(SendWorkRequest wr) {
        return postSend(wr, true);
    }

    /**
     * The same with uk.c's {@code post_sq} (irdma_uk_send / _rdma_write ... take it from the caller): false writes
     * the WQE and moves the SQ head but rings no doorbell, as libirdma does when it rings the user doorbell page
     * itself, or batches WQEs behind one doorbell.
     */
    public PostStatus postSend(SendWorkRequest wr, boolean postSq) {
        PostStatus s = writeSend(wr);
        if (s != PostStatus.OK) {
            return s;
        }
        if (!flushIssued) {
            if (postSq && hwIwarpState <= STATE_RTS && !destroyed) {
                driver.ringSqDoorbell(id);
            }
        } else {
            flushTimer.scheduleIn(FLUSH_DELAY_NANOS);
        }
        return s;
    }

    private PostStatus writeSend(SendWorkRequest wr) {
        if (destroyed) {
            return PostStatus.INVALID;
        }
        boolean signaled = (wr.flags & SendWorkRequest.SIGNALED) != 0 || signalAll;
        int flags = (signaled ? SqWqe.SIGNALED : 0) | ((wr.flags & SendWorkRequest.FENCE) != 0 ? SqWqe.READ_FENCE : 0);
        boolean solicited = (wr.flags & SendWorkRequest.SOLICITED) != 0;
        boolean inline = (wr.flags & SendWorkRequest.INLINE) != 0;
        SgeList sges = wr.sges;
        int n = sges.count();
        switch (wr.opcode) {
            case SEND, SEND_WITH_INV -> {
                SqOpcode op = wr.opcode == WrOpcode.SEND
                        ? (solicited ? SqOpcode.RDMA_SEND_SOL_EVENT : SqOpcode.RDMA_SEND)
                        : (solicited ? SqOpcode.RDMA_SEND_SOL_EVENT_INV : SqOpcode.RDMA_SEND_INV);
                int inv = wr.opcode == WrOpcode.SEND_WITH_INV ? wr.invalidateRkey : 0;
                if (n > queues.maxSqFrag) {
                    return PostStatus.INVALID;
                }
                long total = sges.totalLength();
                if (inline) {
                    if (total > queues.maxInline || !gatherInline(sges, (int) total)) {
                        return PostStatus.INVALID;
                    }
                    SqWqe w = slot(SqWqe.inlineQuanta((int) total), total, wr, signaled);
                    if (w == null) {
                        return PostStatus.QUEUE_FULL;
                    }
                    w.writeInlineSend(queues.swqePolarity, op, inline(), 0, (int) total, inv, flags, 0);
                } else {
                    SqWqe w = slot(SqWqe.fragmentQuanta(n), total, wr, signaled);
                    if (w == null) {
                        return PostStatus.QUEUE_FULL;
                    }
                    w.writeSend(queues.swqePolarity, op, sges, flags, 0, inv);
                }
            }
            case RDMA_WRITE -> {
                SqOpcode op = solicited ? SqOpcode.RDMA_WRITE_SOL : SqOpcode.RDMA_WRITE;
                if (n > queues.maxSqFrag) {
                    return PostStatus.INVALID;
                }
                long total = sges.totalLength();
                if (inline) {
                    if (total > queues.maxInline || !gatherInline(sges, (int) total)) {
                        return PostStatus.INVALID;
                    }
                    SqWqe w = slot(SqWqe.inlineQuanta((int) total), total, wr, signaled);
                    if (w == null) {
                        return PostStatus.QUEUE_FULL;
                    }
                    w.writeInlineRdmaWrite(queues.swqePolarity, op, inline(), 0, (int) total, wr.rkey,
                            wr.remoteAddress, flags, 0);
                } else {
                    SqWqe w = slot(SqWqe.fragmentQuanta(n), total, wr, signaled);
                    if (w == null) {
                        return PostStatus.QUEUE_FULL;
                    }
                    w.writeRdmaWrite(queues.swqePolarity, op, sges, wr.rkey, wr.remoteAddress, flags, 0);
                }
            }
            case RDMA_READ, RDMA_READ_WITH_INV -> {
                if (n > MAX_READ_SGES || n > queues.maxSqFrag || inline) {
                    return PostStatus.INVALID;
                }
                long total = sges.totalLength();
                SqWqe w = slot(SqWqe.fragmentQuanta(n), total, wr, signaled);
                if (w == null) {
                    return PostStatus.QUEUE_FULL;
                }
                w.writeRdmaRead(queues.swqePolarity, sges, wr.rkey, wr.remoteAddress,
                        wr.opcode == WrOpcode.RDMA_READ_WITH_INV, flags);
            }
            case LOCAL_INV -> {
                // verbs.c: IB_WR_LOCAL_INV always fences locally
                SqWqe w = slot(1, 0, wr, signaled);
                if (w == null) {
                    return PostStatus.QUEUE_FULL;
                }
                w.writeLocalInvalidate(queues.swqePolarity, wr.invalidateRkey, flags | SqWqe.LOCAL_FENCE);
            }
            case REG_MR -> {
                MemoryRegion mr = wr.mr;
                if (mr == null || mr.kind != MemoryRegion.Kind.FAST_REGISTER || mr.deregistered
                        || mr.pageCount == 0 || StagFields.stagIndexOf(wr.key) != StagFields.stagIndexOf(mr.stag)) {
                    return PostStatus.INVALID;
                }
                SqWqe w = slot(1, 0, wr, signaled);
                if (w == null) {
                    return PostStatus.QUEUE_FULL;
                }
                // verbs.c IB_WR_REG_MR / ctrl.c irdma_sc_mr_fast_register: VA-based, the first page's address as
                // reg_addr_pa, the PBL chunk only with more than one page (IRDMA_MIN_PAGES_PER_FMR), local fence
                int chunk = mr.pageCount > 1 ? PbleLayout.CHUNK_LEVEL_1 : PbleLayout.CHUNK_NONE;
                w.writeFastRegister(queues.swqePolarity, mr.iova, true, mr.pages[0], mr.pbles.first, mr.length,
                        StagFields.stagKeyOf(wr.key), StagFields.stagIndexOf(wr.key), chunk, 0, Access.hardwareRights(wr.access), false,
                        flags | SqWqe.LOCAL_FENCE);
                mr.stag = wr.key;
            }
            default -> {
                return PostStatus.INVALID;
            }
        }
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
            MemoryRegion mr = verbs.regionOf(sges.stag(i));
            if (len < 0 || at + len > total || mr == null || mr.pd != pd) {
                return false;
            }
            long addr = sges.address(i);
            for (int b = 0; b < len; b++) {
                long pa = mr.physicalAddress(addr + b);
                if (pa < 0) {
                    return false;
                }
                inline.writeByte(at + b, store.readByte(driver.offsetOf(pa)));
            }
            at += len;
        }
        return true;
    }

    private BytesStore<?, ?> inline() {
        return inline;
    }

    /**
     * verbs.c irdma_post_recv / uk.c irdma_uk_post_receive for one work request. Receives are not rung: the device
     * takes RQ WQEs when data arrives.
     */
    public PostStatus postRecv(ReceiveWorkRequest wr) {
        if (destroyed || wr.sges.count() > queues.maxRqFrag) {
            return PostStatus.INVALID;
        }
        long o = queues.nextRecvWqe(wr.wrId);
        if (o < 0) {
            return PostStatus.QUEUE_FULL;
        }
        rqWqe.wrap(store, o, queues.rqWqeBytes()).write(queues.rwqePolarity, wr.sges);
        if (flushIssued) {
            flushTimer.scheduleIn(FLUSH_DELAY_NANOS);
        }
        return PostStatus.OK;
    }

    // ------------------------------------------------------------------------------------------------ modify, destroy

    /**
     * verbs.c irdma_modify_qp with IB_QP_STATE: INIT/RTR make an unused QP IDLE, SQD closes (CLOSING: the device
     * sends the FIN), SQE moves to TERMINATE, ERR (and RESET) to ERROR, resetting the TCP connection when one is
     * up (the device sends the RST). RTS comes only with a connection ({@link IwarpConnection}).
     *
     * @throws VerbsException INVALID_ARGUMENT for a transition irdma refuses, DEVICE_ERROR when the CQP op fails
     */
    public void modify(IbQpState target) {
        if (destroyed) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP " + id + " is destroyed");
        }
        int curr = iwarpState;
        int next = -1;
        boolean reset = false;
        boolean dontWait = false;
        switch (target) {
            case INIT, RTR -> {
                if (iwarpState > STATE_IDLE) {
                    throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP " + id + " is past IDLE");
                }
                if (iwarpState == STATE_INVALID) {
                    next = STATE_IDLE;
                }
            }
            case RTS -> throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT,
                    "RTS comes with a connection (irdma_modify_qp needs a cm_id)");
            case SQD -> {
                if (hwIwarpState > STATE_RTS || iwarpState == STATE_CLOSING || iwarpState < STATE_RTS) {
                    return;
                }
                if (iwarpState > STATE_CLOSING) {
                    throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP " + id + " is past CLOSING");
                }
                next = STATE_CLOSING;
            }
            case SQE -> {
                if (iwarpState >= STATE_TERMINATE) {
                    throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP " + id + " is terminating");
                }
                next = STATE_TERMINATE;
            }
            case ERR, RESET -> {
                if (iwarpState == STATE_ERROR) {
                    ibState = target;
                    return;
                }
                if (termFlags != 0) {
                    terminateDelTimer();
                }
                if (hwTcpState > TCP_CLOSED && hwTcpState != TCP_TIME_WAIT) {
                    reset = true;
                } else {
                    dontWait = true;
                }
                next = STATE_ERROR;
            }
        }
        ibState = target;
        if (next >= 0) {
            qpOp();
            qpf.nextIwarpState = next;
            qpf.resetConnection = reset;
            try {
                driver.modifyQp(qpf);
            } catch (CqpException e) {
                modifyFailed(next, curr);
                throw new VerbsException("modify QP " + id + " to " + target, e);
            }
            if (iwarpState == curr) {
                iwarpState = next;
            }
        }
        if (next >= 0 && ibState.compareTo(IbQpState.RTS) > 0) {
            if (dontWait) {
                if (hwTcpState != 0) {
                    hwTcpState = TCP_CLOSED;
                    lastAe = AeCode.RESET_SENT.code();
                }
                cmDisconnect();
            } else if (connection != null) {
                // the close timer is the CM's (its backstop for a QP close, cm.c IRDMA_TIMER_TYPE_CLOSE)
                closeTimerStarted++;
            }
        }
    }

    /**
     * utils.c irdma_hw_modify_qp's failure path (waiting): a close or terminate the device refused makes the QP
     * TERM_DONE and moves it to ERROR with a reset.
     */
    private void modifyFailed(int next, int curr) {
        if (next == STATE_RTS || next == STATE_IDLE || next == STATE_TERMINATE || next == STATE_CLOSING) {
            if (curr != STATE_IDLE) {
                termFlags = TERM_DONE;
            }
            qpf.nextIwarpState = STATE_ERROR;
            qpf.resetConnection = true;
            try {
                driver.modifyQp(qpf);
            } catch (CqpException e) {
                LOG.debug("QP {}: modify to ERROR after a failed modify: {}", id, e.getMessage());
            }
        }
    }

    /**
     * verbs.c irdma_destroy_qp (_irdma_destroy_qp): ERROR first when the QP was ever moved, its CQEs cleaned from
     * its CQs, the LSMM region freed, then Destroy QP with IRDMA_CQPSQ_QP_REMOVEHASHENTRY and the id and memory
     * returned.
     */
    public void destroy() {
        if (destroyed) {
            return;
        }
        queues.destroyPending = true;
        if (iwarpState >= STATE_IDLE && iwarpState != STATE_ERROR) {
            try {
                modify(IbQpState.ERR);
            } catch (VerbsException e) {
                LOG.debug("QP {}: to ERROR before destroy: {}", id, e.getMessage());
            }
        }
        destroyed = true;
        flushTimer.cancel();
        terminateTimer.cancel();
        disconnectWork.cancel();
        sendCq.ring.clean(queues.handle);
        if (recvCq != sendCq) {
            recvCq.ring.clean(queues.handle);
        }
        if (lsmmRegion != null) {
            verbs.deregister(lsmmRegion);
            lsmmRegion = null;
        }
        qpOp();
        qpf.removeHashEntry = true;
        CqpException failure = null;
        try {
            driver.destroyQp(qpf);
        } catch (CqpException e) {
            failure = e;
        }
        ConnectionEvents cm = connection;
        connection = null;
        verbs.released(this);
        if (cm != null) {
            // the consumer destroyed a QP that still carried a connection: irdma's ERROR with reset ends it (the
            // QP's close timer in cm.c); its events can no longer come from a QP that is gone, so the CM hears now
            cm.connectionEvent(this, QpEvent.RESET_SENT);
        }
        if (failure != null) {
            throw new VerbsException("destroy QP " + id, failure);
        }
    }

    // ------------------------------------------------------------------------------------------------ async events

    /**
     * hw.c irdma_process_aeq for an AE of this QP: the device's iWARP and TCP states are recorded, then the event
     * is handled as irdma does (RTS AE, FIN, close complete, resets, terminate sent / received, and every error AE
     * through irdma_terminate_connection).
     */
    void asyncEvent(AsyncEvent ae) {
        if (destroyed) {
            return;
        }
        hwTcpState = ae.tcpState;
        hwIwarpState = ae.iwarpState;
        if (ae.aeCode != AeCode.QP_SUSPEND_COMPLETE.code()) {
            lastAe = ae.aeCode;
        }
        AeCode code = AeCode.of(ae.aeCode);
        if (code == null) {
            errorEvent(ae);
            return;
        }
        switch (code) {
            case LLP_CONNECTION_ESTABLISHED -> {
                rtsAeReceived = true;
                notifyConnection(QpEvent.ESTABLISHED);
            }
            case LLP_FIN_RECEIVED, RDMAP_ROE_BAD_LLP_CLOSE -> {
                if (termFlags != 0) {
                    return;
                }
                if (++closeTimerStarted == 1) {
                    hwTcpState = TCP_CLOSE_WAIT;
                    if (ibState == IbQpState.RTS) {
                        nextIwState(STATE_CLOSING, false, 0, 0);
                        cmDisconnect();
                    }
                }
            }
            case LLP_CLOSE_COMPLETE -> {
                if (termFlags != 0) {
                    terminateDone(false);
                } else {
                    cmDisconnect();
                }
            }
            case BAD_CLOSE, RESET_SENT -> {
                nextIwState(STATE_ERROR, true, 0, 0);
                cmDisconnect();
            }
            case LLP_CONNECTION_RESET -> {
                if (closeTimerStarted > 0) {
                    return;
                }
                cmDisconnect();
            }
            case QP_SUSPEND_COMPLETE, RESET_NOT_SENT, LLP_DOUBT_REACHABILITY, RESOURCE_EXHAUSTION -> {
            }
            case TERMINATE_SENT -> terminateSendFin();
            case LLP_TERMINATE_RECEIVED -> terminateReceived(ae);
            default -> errorEvent(ae);
        }
    }

    /**
     * The default branch of irdma_process_aeq for iWARP: an RQ error names the failing RQ WQE in the context
     * (err_rq_idx), then a QP not in RTS or TERMINATE goes to ERROR and disconnects, one in RTS or TERMINATE
     * terminates the connection.
     */
    private void errorEvent(AsyncEvent ae) {
        LOG.debug("QP {}: abnormal AE {}", id, ae);
        if (ae.rq && iwarpInfo != null) {
            IwarpOffloadInfo w = iwarpInfo;
            iwarpInfo = iwarpInfo(w, w.ddpVer(), w.rdmapVer(), ae.wqeIndex, true, w.pdId(), w.ordSize(),
                    w.irdSize(), w.rdEn());
            writeContext(false, 0);
        }
        if (hwIwarpState != STATE_RTS && hwIwarpState != STATE_TERMINATE) {
            nextIwState(STATE_ERROR, true, 0, 0);
            cmDisconnect();
        } else {
            terminateConnection(ae);
        }
    }

    /** ctrl.c irdma_terminate_connection: the Terminate header in Q2, the timer, Modify QP to TERMINATE. */
    void terminateConnection(AsyncEvent ae) {
        if ((termFlags & TERM_SENT) != 0) {
            return;
        }
        q2.wrap(store, driver.offsetOf(q2Address));
        int termLen = terminate.build(q2, ae.aeCode, ae.q2DataWritten != 0);
        flushCode = terminate.flushCode();
        eventType = terminate.eventType();
        sqFlushCode = ae.sq;
        rqFlushCode = ae.rq;
        terminateStartTimer();
        termFlags |= TERM_SENT;
        nextIwState(STATE_TERMINATE, false, TERM_SEND_TERM_ONLY, termLen);
    }

    /** ctrl.c irdma_terminate_send_fin. */
    void terminateSendFin() {
        nextIwState(STATE_TERMINATE, false, TERM_SEND_FIN_ONLY, 0);
    }

    /**
     * ctrl.c irdma_terminate_received: a Terminate the device copied into Q2 is checked (DDP untagged last, version
     * 1, QN 2, MSN 1, MO 0, RDMAP version 1); a bad one is answered with a Terminate; a good one from the remote
     * peer's RDMAP ends the QP at once, otherwise the FIN follows and the timer runs.
     */
    void terminateReceived(AsyncEvent ae) {
        q2.wrap(store, driver.offsetOf(q2Address));
        int mpa = q2.locateMpa();
        if (ae.q2DataWritten != 0) {
            // the device did not validate the Terminate: irdma checks its DDP and RDMAP control as RFC 5040 §4.8
            // sends it (untagged, last, DDP version 1, queue 2, MSN 1, MO 0, RDMAP version 1)
            DdpHeader ddp = q2.frameDdp();
            int code = 0;
            if (mpa < 0 || ddp.tagged() || !ddp.last()) {
                code = AeCode.LCE_QP_CATASTROPHIC.code();
            } else if (ddp.ddpVersion() != DdpHeader.DDP_VERSION) {
                code = AeCode.DDP_UBE_INVALID_DDP_VERSION.code();
            } else if (ddp.queueNumber() != RdmapOpcode.QN_TERMINATE) {
                code = AeCode.DDP_UBE_INVALID_QN.code();
            } else if (ddp.msn() != 1) {
                code = AeCode.DDP_INVALID_MSN_GAP_IN_MSN.code();
            } else if (ddp.messageOffset() != 0) {
                code = AeCode.DDP_UBE_INVALID_MO.code();
            } else if (ddp.rdmapVersion() != DdpHeader.RDMAP_VERSION) {
                code = AeCode.RDMAP_ROE_INVALID_RDMAP_VERSION.code();
            }
            if (code != 0) {
                // the Terminate is answered as an AE of this code would be: a copy of the AE in the QP's own event,
                // so the driver's (which it hands on after this) keeps the device's code
                synthetic.copyFrom(ae).aeCode = code;
                terminateConnection(synthetic);
                return;
            }
        }
        termFlags |= TERM_RCVD;
        eventType = FlushCode.EVENT_CATASTROPHIC;
        // irdma compares layer_etype with RDMAP_REMOTE_PROT / RDMAP_REMOTE_OP: layer RDMAP and one of those types
        Terminate peer = q2.frameTerminate();
        if (peer.layer() == Terminate.LAYER_RDMAP && (peer.errorType() == Terminate.Rdmap.ETYPE_REMOTE_PROTECTION
                || peer.errorType() == Terminate.Rdmap.ETYPE_REMOTE_OPERATION)) {
            terminateDone(false);
        } else {
            terminateStartTimer();
            terminateSendFin();
        }
    }

    /** The Terminate header last built for this QP, as it sits in Q2 (for observation). */
    public TerminateBuilder lastTerminate() {
        return terminate;
    }

    /** utils.c irdma_terminate_done. */
    void terminateDone(boolean timeout) {
        if (destroyed) {
            return;
        }
        boolean hte = hteAdded;
        hteAdded = false;
        boolean first = (termFlags & TERM_DONE) == 0;
        termFlags |= TERM_DONE;
        if (first) {
            if (!timeout) {
                terminateDelTimer();
            }
            nextIwState(STATE_ERROR, hte, 0, 0);
            cmDisconnect();
        }
    }

    private void terminateStartTimer() {
        terminateTimer.scheduleIn(TERMINATE_TIMEOUT_NANOS);
    }

    private void terminateDelTimer() {
        terminateTimer.cancel();
    }

    /**
     * hw.c irdma_next_iw_state: Modify QP (CQ numbers and ARP index valid) to {@code state}, removing the hash entry
     * when asked, sending a Terminate of {@code termLen} bytes and / or a FIN as {@code term} says, and resetting
     * the connection when a terminate is under way and the QP goes to ERROR. The device's answer is not awaited in
     * irdma; here the op completes before the call returns, and a refusal is handled as irdma_hw_modify_qp does.
     */
    void nextIwState(int state, boolean delHash, int term, int termLen) {
        boolean dontSendTerm = (term & TERM_SEND_TERM_ONLY) == 0;
        boolean dontSendFin = (term & TERM_SEND_FIN_ONLY) == 0;
        // ctrl.c irdma_sc_qp_modify: the term actions and the term length only for TERMINATE
        int termActions = 0;
        int len = 0;
        if (state == STATE_TERMINATE) {
            if (dontSendFin) {
                termActions += TERM_SEND_TERM_ONLY;
            }
            if (dontSendTerm) {
                termActions += TERM_SEND_FIN_ONLY;
            }
            if (termActions == 0 || termActions == TERM_SEND_TERM_ONLY) {
                len = termLen;
            }
        }
        qpOp();
        qpf.nextIwarpState = state;
        qpf.removeHashEntry = delHash;
        qpf.cqNumValid = true;
        qpf.arpIndexValid = true;
        qpf.termActions = termActions;
        qpf.termLength = len;
        qpf.resetConnection = termFlags != 0 && state == STATE_ERROR;
        hwIwarpState = state;
        try {
            driver.modifyQp(qpf);
        } catch (CqpException e) {
            LOG.debug("QP {}: modify to state {} refused: {}", id, state, e.getMessage());
            if (state != STATE_ERROR) {
                // utils.c irdma_hw_modify_qp (not waiting): TERM_DONE and a generated IRDMA_AE_BAD_CLOSE, which
                // irdma_process_aeq turns into ERROR and a disconnect
                termFlags = TERM_DONE;
                asyncEvent(synthetic.set(id, AeCode.BAD_CLOSE.code(), 0, hwIwarpState, hwTcpState, 0));
            }
            return;
        }
        iwarpState = state;
    }

    // ------------------------------------------------------------------------------------------------ disconnect

    /** cm.c irdma_cm_disconn: the disconnect work runs after the AE handler, on the scheduler (the work queue). */
    void cmDisconnect() {
        if (!disconnectQueued && !destroyed) {
            disconnectQueued = true;
            disconnectWork.scheduleIn(0);
        }
    }

    private void disconnectWorker() {
        disconnectQueued = false;
        if (!destroyed) {
            disconnectTrue();
        }
    }

    /**
     * cm.c irdma_cm_disconn_true (iWARP): from the terminate flags, the TCP state, the verbs state and the last AE,
     * whether the consumer hears DISCONNECT (with -ECONNRESET after a reset) and CLOSE, and whether the QP's WQEs
     * are flushed (with the QP event after a terminate).
     */
    void disconnectTrue() {
        int origTcp = hwTcpState;
        IbQpState origIb = ibState;
        int ae = lastAe;
        boolean issueDisconnect = false;
        boolean issueClose = false;
        boolean issueFlush = false;
        boolean reset = false;
        boolean terminated = termFlags != 0;
        ConnectionEvents cm = connection;
        if (termFlags != 0) {
            issueDisconnect = true;
            issueClose = true;
            connection = null;
            terminateDelTimer();
            if (!flushIssued) {
                flushIssued = true;
                issueFlush = true;
            }
        } else if (origTcp == TCP_CLOSE_WAIT
                || origIb == IbQpState.RTS && ae == AeCode.LLP_CONNECTION_RESET.code()) {
            issueDisconnect = true;
            reset = ae == AeCode.LLP_CONNECTION_RESET.code();
        }
        if (origTcp == TCP_CLOSED || origTcp == TCP_TIME_WAIT || ae == AeCode.RDMAP_ROE_BAD_LLP_CLOSE.code()
                || ae == AeCode.BAD_CLOSE.code() || ae == AeCode.LLP_CONNECTION_RESET.code() || cm == null) {
            issueClose = true;
            connection = null;
            termFlags = 0;
            if (!flushIssued) {
                flushIssued = true;
                issueFlush = true;
            }
        }
        if (issueFlush && !queues.destroyPending) {
            flush();
            if (termFlags != 0) {
                raiseQpEvent();
            }
        }
        if (cm == null) {
            return;
        }
        QpEvent event;
        if (issueDisconnect && issueClose) {
            event = reset ? QpEvent.CONNECTION_RESET : terminated ? QpEvent.TERMINATED : QpEvent.CLOSE_COMPLETE;
        } else if (issueDisconnect) {
            event = QpEvent.FIN_RECEIVED;
        } else if (issueClose) {
            event = ae == AeCode.RESET_SENT.code() || ae == AeCode.BAD_CLOSE.code() ? QpEvent.RESET_SENT
                    : QpEvent.CLOSE_COMPLETE;
        } else {
            return;
        }
        cm.connectionEvent(this, event);
    }

    private void raiseQpEvent() {
        if (eventHandler != null) {
            eventHandler.onEvent(this, QpEventType.of(eventType));
        }
    }

    private void notifyConnection(QpEvent e) {
        if (connection != null) {
            connection.connectionEvent(this, e);
        }
    }

    // ------------------------------------------------------------------------------------------------ flush

    /**
     * hw.c irdma_flush_wqes (SQ and RQ, waiting): Flush WQEs with user flush codes, the QP's flush code for the
     * queue the AE named; the flush worker is queued to generate completions for what the device leaves.
     */
    void flush() {
        boolean sq = !flushSq;
        boolean rq = !flushRq;
        flushSq = true;
        flushRq = true;
        flushTimer.scheduleIn(FLUSH_DELAY_NANOS);
        if (!sq && !rq) {
            return;
        }
        flushFields.clear();
        flushFields.qpId = id;
        flushFields.flushSq = sq;
        flushFields.flushRq = rq;
        flushFields.userFlushCode = true;
        flushFields.sqMajor = FlushCode.FLUSH_MAJOR_ERR;
        flushFields.rqMajor = FlushCode.FLUSH_MAJOR_ERR;
        flushFields.sqMinor = flushCode != 0 && sqFlushCode ? flushCode : FlushCode.GENERAL_ERR;
        flushFields.rqMinor = flushCode != 0 && rqFlushCode ? flushCode : FlushCode.GENERAL_ERR;
        try {
            int minor = driver.flushWqes(flushFields);
            if (rq && (minor == CqpErrorCode.COMPL_SQ_WQE_FLUSHED || minor == 0)) {
                queues.rqFlushComplete = true;
            }
        } catch (CqpException e) {
            // hw.c irdma_hw_flush_wqes: the flush is over as far as the device goes; the worker completes the rest
            LOG.debug("QP {}: flush refused: {}", id, e.getMessage());
            queues.sqFlushComplete = true;
            queues.rqFlushComplete = true;
        }
        flushIssued = true;
    }

    /**
     * verbs.c irdma_flush_worker / utils.c irdma_generate_flush_completions: for each queue whose CQ has no CQE
     * waiting, the WQEs still outstanding complete with IB_WC_WR_FLUSH_ERR, generated by the driver; otherwise the
     * worker tries again later.
     */
    private void flushWorker() {
        if (destroyed) {
            return;
        }
        boolean again = false;
        if (queues.sqMoreWork()) {
            if (sendCq.ring.empty()) {
                generateSqFlush = true;
                sendCq.generated();
            } else {
                again = true;
            }
        }
        if (queues.rqMoreWork()) {
            if (recvCq.ring.empty()) {
                generateRqFlush = true;
                recvCq.generated();
            } else {
                again = true;
            }
        }
        if (again) {
            flushTimer.scheduleIn(FLUSH_DELAY_NANOS);
        }
    }

    /** One generated flush completion for this QP's SQ (send) or RQ, or false when there is none left. */
    boolean generatedCompletion(WorkCompletion wc, boolean send) {
        if (send) {
            if (!generateSqFlush) {
                return false;
            }
            int tail = queues.retireFlushedSq();
            if (tail >= 0) {
                fillFlushed(wc, queues.sqWrid[tail], true, queues.sqOpcodeAt(tail));
                return true;
            }
            generateSqFlush = false;
            return false;
        }
        if (!generateRqFlush) {
            return false;
        }
        if (queues.rqMoreWork()) {
            int tail = queues.rqTail;
            queues.rqTail = (tail + 1) % queues.rqSize;
            fillFlushed(wc, queues.rqWrid[tail], false, 0);
            return true;
        }
        generateRqFlush = false;
        return false;
    }

    private void fillFlushed(WorkCompletion wc, long wrId, boolean sq, int op) {
        wc.clear();
        wc.wrId = wrId;
        wc.qpNum = id;
        wc.status = WcStatus.WR_FLUSH_ERR;
        wc.vendorErr = FlushCode.FLUSH_MAJOR_ERR << 16 | FlushCode.GENERAL_ERR;
        if (sq) {
            // as the ring's completions, except that the generated ones have always reported the atomics (which
            // an iWARP QP never posts) as UNKNOWN
            wc.opcode = op == SqOpcode.ATOMIC_FETCH_ADD.code() || op == SqOpcode.ATOMIC_COMPARE_SWAP_ADD.code()
                    ? WcOpcode.UNKNOWN : WcOpcode.fromSq(op);
        } else {
            wc.opcode = WcOpcode.RECV;
        }
    }

    int arpIndex() {
        return arpIndex;
    }

    @Override
    public String toString() {
        return "QP " + id + " " + ibState + " (iwarp " + iwarpState + ", hw " + hwIwarpState + "/tcp " + hwTcpState
                + ")";
    }
}
