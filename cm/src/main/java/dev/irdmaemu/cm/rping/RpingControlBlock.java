package dev.irdmaemu.cm.rping;

import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.ConnectionManager;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.VerbsException;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.sim.SimTimer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An rping side's resources on the verbs (rping.c struct rping_cb, rping_setup_qp and rping_setup_buffers): a PD, a
 * CQ of {@value RpingOptions#CQ_DEPTH} entries armed for the next completion, an RC QP with
 * {@value RpingOptions#SQ_DEPTH} send and {@value RpingOptions#RQ_DEPTH} receive work requests of one SGE and no
 * inline data (moved to INIT, as rdma_create_qp leaves it), and the buffers, each registered as rping registers it:
 * the receive buffer with local write, the send buffer with no access, rdma_buf and the client's start buffer with
 * local write, remote read and remote write. It posts rping's three work requests, polls the CQ on each completion
 * event (rping.c cq_thread: re-arm, then poll until empty) and hands the completions to the protocol, and talks to
 * the CM for the disconnect. Nothing is allocated per post or per completion.
 */
public final class RpingControlBlock implements RpingVerbs {
    private static final Logger LOG = LoggerFactory.getLogger(RpingControlBlock.class);
    /** Work request ids, for the trace (rping leaves them 0). */
    static final long WR_RECV = 1;
    static final long WR_SEND = 2;
    static final long WR_RDMA = 3;

    private final IrdmaVerbs verbs;
    private final int size;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private long recvBuf;
    private long sendBuf;
    private long rdmaBuf;
    private long startBuf;
    private MemoryRegion recvMr;
    private MemoryRegion sendMr;
    private MemoryRegion rdmaMr;
    private MemoryRegion startMr;
    private RpingBuffers buffers;
    private final ReceiveWorkRequest rqWr = new ReceiveWorkRequest();
    private final SendWorkRequest sqWr = new SendWorkRequest();
    private final SendWorkRequest rdmaSqWr = new SendWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();
    private final SimTimer teardown;
    private RpingCompletions sink;
    private ConnectionManager cm;
    private CmNode node;
    private boolean releasing;
    private boolean released;
    private Runnable whenReleased;

    private RpingControlBlock(IrdmaVerbs verbs, int size) {
        this.verbs = verbs;
        this.size = size;
        this.teardown = verbs.driver().scheduler().newTimer("rping-teardown", this::teardown);
    }

    /**
     * rping_setup_qp and rping_setup_buffers for a side with {@code size}-byte ping data; a client ({@code
     * server} false) also gets its start buffer. What was made is freed again when a step fails.
     *
     * @throws VerbsException the verb that failed
     */
    public static RpingControlBlock create(IrdmaVerbs verbs, int size, boolean server) {
        RpingControlBlock cb = new RpingControlBlock(verbs, size);
        try {
            cb.setUp(server);
        } catch (VerbsException e) {
            cb.teardown();
            throw e;
        }
        return cb;
    }

    private void setUp(boolean server) {
        pd = verbs.allocatePd();
        cq = verbs.createCq(RpingOptions.CQ_DEPTH);
        cq.onCompletion(c -> poll());
        cq.requestNotify(false);
        qp = verbs.createQp(new QpInit(pd, cq, cq, RpingOptions.SQ_DEPTH, RpingOptions.RQ_DEPTH, 1, 1, 0, false));
        qp.onEvent((q, e) -> {
            if (sink != null && !releasing) {
                sink.qpEvent(e);
            }
        });
        qp.modify(IbQpState.INIT);
        recvBuf = verbs.allocateBuffer(RpingInfo.SIZE);
        recvMr = verbs.registerBuffer(pd, recvBuf, RpingInfo.SIZE, Access.LOCAL_WRITE);
        sendBuf = verbs.allocateBuffer(RpingInfo.SIZE);
        sendMr = verbs.registerBuffer(pd, sendBuf, RpingInfo.SIZE, 0);
        int remote = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
        rdmaBuf = verbs.allocateBuffer(size);
        rdmaMr = verbs.registerBuffer(pd, rdmaBuf, size, remote);
        if (!server) {
            startBuf = verbs.allocateBuffer(size);
            startMr = verbs.registerBuffer(pd, startBuf, size, remote);
        }
        buffers = new RpingBuffers(verbs.driver().store(), size, place(recvMr), place(sendMr), place(rdmaMr),
                server ? null : place(startMr));
        // rping.c rping_setup_wr: the receive and the Send never change; the RDMA one is filled per post
        rqWr.clear().wrId(WR_RECV).sge(recvMr.address(), RpingInfo.SIZE, recvMr.lkey());
        sqWr.clear().wrId(WR_SEND).opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                .sge(sendMr.address(), RpingInfo.SIZE, sendMr.lkey());
    }

    private static RpingBuffers.Place place(MemoryRegion mr) {
        return new RpingBuffers.Place(mr.storeOffset(mr.address()), mr.address(), mr.rkey());
    }

    /** The protocol that hears this QP's completions and events. */
    void deliverTo(RpingCompletions completions) {
        this.sink = completions;
    }

    /** The connection this QP carries, for the disconnect. */
    void bind(ConnectionManager manager, CmNode connection) {
        this.cm = manager;
        this.node = connection;
    }

    public RpingBuffers buffers() {
        return buffers;
    }

    public int qpId() {
        return qp.id();
    }

    public QueuePair queuePair() {
        return qp;
    }

    public CompletionQueue completionQueue() {
        return cq;
    }

    /** rdma_buf's region (the client's sink, the server's Read target and Write source). */
    public MemoryRegion rdmaRegion() {
        return rdmaMr;
    }

    /** The client's start buffer's region (null on a server). */
    public MemoryRegion startRegion() {
        return startMr;
    }

    /** The CM node of the connection (null before the connect or accept). */
    public CmNode node() {
        return node;
    }

    @Override
    public PostStatus postRecv() {
        return qp.postRecv(rqWr);
    }

    @Override
    public PostStatus postSend() {
        return qp.postSend(sqWr);
    }

    @Override
    public PostStatus postRead(long remoteAddress, int rkey, int length) {
        return qp.postSend(rdma(WrOpcode.RDMA_READ, remoteAddress, rkey, length));
    }

    @Override
    public PostStatus postWrite(long remoteAddress, int rkey, int length) {
        return qp.postSend(rdma(WrOpcode.RDMA_WRITE, remoteAddress, rkey, length));
    }

    private SendWorkRequest rdma(WrOpcode op, long remoteAddress, int rkey, int length) {
        return rdmaSqWr.clear().wrId(WR_RDMA).opcode(op).flags(SendWorkRequest.SIGNALED)
                .sge(rdmaMr.address(), length, rdmaMr.lkey()).remote(remoteAddress, rkey);
    }

    @Override
    public void disconnect(boolean abortive) {
        if (cm != null && node != null && !node.isDestroyed()) {
            cm.disconnect(node, abortive);
        }
    }

    /**
     * rping.c cq_thread and rping_cq_event_handler: re-arm, then poll until the CQ is empty, each completion to the
     * protocol. A completion event while polling (the protocol's posts can make one) only asks for another round:
     * the CQ calls its handler again once this returns ({@link CompletionQueue#onCompletion}).
     */
    private void poll() {
        if (releasing) {
            return;
        }
        cq.requestNotify(false);
        while (!releasing && cq.poll(wc)) {
            if (sink != null) {
                sink.completion(wc.status(), wc.opcode(), wc.byteLen());
            }
        }
    }

    /** Frees everything on the next scheduler event (never inside the CQ's or the CM's handler), then tells. */
    @Override
    public void release(Runnable then) {
        if (releasing) {
            return;
        }
        releasing = true;
        whenReleased = then;
        teardown.scheduleIn(0);
    }

    /** rping_free_buffers, rping_free_qp: each step tried, a failure logged, the rest still freed. */
    private void teardown() {
        if (released) {
            return;
        }
        released = true;
        releasing = true;
        if (qp != null) {
            try {
                qp.destroy();
            } catch (VerbsException e) {
                LOG.warn("rping: destroy {}: {}", qp, e.getMessage());
            }
        }
        deregister(recvMr, recvBuf, RpingInfo.SIZE);
        deregister(sendMr, sendBuf, RpingInfo.SIZE);
        deregister(rdmaMr, rdmaBuf, size);
        deregister(startMr, startBuf, size);
        if (cq != null) {
            try {
                cq.destroy();
            } catch (VerbsException e) {
                LOG.warn("rping: destroy {}: {}", cq, e.getMessage());
            }
        }
        if (pd != null) {
            verbs.deallocatePd(pd);
        }
        if (whenReleased != null) {
            Runnable r = whenReleased;
            whenReleased = null;
            r.run();
        }
    }

    private void deregister(MemoryRegion mr, long buffer, long bytes) {
        if (mr != null) {
            try {
                verbs.deregister(mr);
            } catch (VerbsException e) {
                LOG.warn("rping: deregister {}: {}", mr, e.getMessage());
            }
        }
        if (buffer > 0) {
            verbs.freeBuffer(buffer, bytes);
        }
    }

    /** Everything was freed. */
    public boolean isReleased() {
        return released;
    }
}
