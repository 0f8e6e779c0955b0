package dev.irdmaemu.cm.ucmatose;

import dev.irdmaemu.cm.CmNode;
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
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.sim.SimTimer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of a ucmatose run and its resources (cmatose.c struct cmatest_node), made as init_node makes them:
 * a PD; a send and a receive CQ of {@link UcmatoseOptions#queueDepth()} entries; an RC QP with that many send and
 * receive work requests of one SGE, every send signalled (sq_sig_all), moved to INIT as rdma_create_qp leaves it;
 * and with messages, one buffer of {@code -S} bytes registered for local write (create_message), which every Send
 * reads and every receive lands in. It counts its completions (cmatose.c poll_cqs counts them per connection and
 * never looks at their status; this peer does, and a failed one fails the run) and tells its run. Nothing is
 * allocated per message.
 */
public final class UcmatoseConnection {
    private static final Logger LOG = LoggerFactory.getLogger(UcmatoseConnection.class);
    /** Work request ids, for the trace (cmatose uses the node's address). */
    static final long WR_RECV = 1;
    static final long WR_SEND = 2;

    /** The connection's index in its run (cmatest_node.id). */
    public final int id;
    private final UcmatoseRun run;
    private final IrdmaVerbs verbs;
    private final int messages;
    private final int size;
    private ProtectionDomain pd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private QueuePair qp;
    private long buffer;
    private MemoryRegion mr;
    private final SendWorkRequest sendWr = new SendWorkRequest();
    private final ReceiveWorkRequest recvWr = new ReceiveWorkRequest();
    private final WorkCompletion wc = new WorkCompletion();
    private boolean polling;
    private boolean pollAgain;
    private boolean released;
    private SimTimer sendTimer;

    /** The CM node of the connection, once connecting or accepted. */
    CmNode node;
    /** cmatest_node.connected: established and not yet disconnected by this side. */
    boolean connected;
    /** The connection came up (ESTABLISHED or a good CONNECT_REPLY). */
    boolean established;
    /** Its disconnect was counted (cmatose.c disconnects_left). */
    boolean disconnectCounted;
    /** The CM reported CLOSE: the node is gone. */
    boolean closed;
    /** This side asked the CM to disconnect it. */
    boolean disconnectRequested;
    int sendsCompleted;
    int receivesCompleted;
    long bytesReceived;

    private UcmatoseConnection(UcmatoseRun run, IrdmaVerbs verbs, int id, UcmatoseOptions options) {
        this.run = run;
        this.verbs = verbs;
        this.id = id;
        this.messages = options.messages();
        this.size = options.size();
    }

    /**
     * cmatose.c init_node (and create_message): the connection's PD, CQs, QP and message buffer. What was made is
     * freed again when a step fails.
     *
     * @throws VerbsException the verb that failed
     */
    static UcmatoseConnection create(UcmatoseRun run, IrdmaVerbs verbs, int id, UcmatoseOptions options) {
        UcmatoseConnection c = new UcmatoseConnection(run, verbs, id, options);
        try {
            c.setUp(options.queueDepth());
        } catch (VerbsException e) {
            c.release();
            throw e;
        }
        return c;
    }

    private void setUp(int depth) {
        pd = verbs.allocatePd();
        sendCq = verbs.createCq(depth);
        recvCq = verbs.createCq(depth);
        sendCq.onCompletion(cq -> poll());
        recvCq.onCompletion(cq -> poll());
        sendCq.requestNotify(false);
        recvCq.requestNotify(false);
        qp = verbs.createQp(new QpInit(pd, sendCq, recvCq, depth, depth, 1, 1, 0, true));
        qp.onEvent((q, e) -> {
            if (!released) {
                run.qpEvent(this, e);
            }
        });
        qp.modify(IbQpState.INIT);
        if (messages > 0) {
            buffer = verbs.allocateBuffer(size);
            mr = verbs.registerBuffer(pd, buffer, size, Access.LOCAL_WRITE);
            // cmatose.c post_recvs / post_sends: one SGE over the whole message buffer, the same for every post
            recvWr.clear().wrId(WR_RECV).sge(mr.address(), size, mr.lkey());
            sendWr.clear().wrId(WR_SEND).opcode(WrOpcode.SEND).flags(0).sge(mr.address(), size, mr.lkey());
        }
    }

    /** The QP's number (the connect's and the accept's qpn). */
    public int qpId() {
        return qp.id();
    }

    /** cmatose.c post_recvs: {@code -C} receives; the first refused post's status, or OK. */
    PostStatus postReceives() {
        for (int i = 0; i < messages; i++) {
            PostStatus s = qp.postRecv(recvWr);
            if (s != PostStatus.OK) {
                return s;
            }
        }
        return PostStatus.OK;
    }

    /** Runs {@code sends} {@code delayNanos} from now on the scheduler (once; nothing when released by then). */
    void sendLater(long delayNanos, Runnable sends) {
        if (sendTimer == null) {
            sendTimer = verbs.driver().scheduler().newTimer("ucmatose-send-" + id, () -> {
                if (!released) {
                    sends.run();
                }
            });
        }
        sendTimer.scheduleIn(delayNanos);
    }

    /** cmatose.c post_sends: {@code -C} Sends of the message buffer, on a connected connection only. */
    PostStatus postSends() {
        if (!connected) {
            return PostStatus.OK;
        }
        for (int i = 0; i < messages; i++) {
            PostStatus s = qp.postSend(sendWr);
            if (s != PostStatus.OK) {
                return s;
            }
        }
        return PostStatus.OK;
    }

    /**
     * Re-arm, then take every completion (as a CQ handler does); one that arrives meanwhile asks for a round more.
     * The guard is the connection's, not only the CQ's: a CQ keeps its own handler from re-entering, but both CQs
     * run this loop, and an event on the other CQ while it runs must not start a nested one.
     */
    private void poll() {
        if (polling) {
            pollAgain = true;
            return;
        }
        polling = true;
        try {
            do {
                pollAgain = false;
                if (released) {
                    return;
                }
                sendCq.requestNotify(false);
                recvCq.requestNotify(false);
                drain(sendCq);
                drain(recvCq);
            } while (pollAgain);
        } finally {
            polling = false;
        }
    }

    private void drain(CompletionQueue cq) {
        while (!released && cq.poll(wc)) {
            if (wc.status() != WcStatus.SUCCESS) {
                if (wc.status() != WcStatus.WR_FLUSH_ERR) {
                    run.completionFailed(this, wc.status() + " " + wc.opcode());
                }
                continue;
            }
            if (wc.opcode() == WcOpcode.SEND && cq == sendCq) {
                sendsCompleted++;
            } else if (wc.opcode() == WcOpcode.RECV && cq == recvCq) {
                receivesCompleted++;
                bytesReceived += wc.byteLen();
                if (wc.byteLen() != size) {
                    run.completionFailed(this, "a message of " + wc.byteLen() + " bytes, not " + size);
                    continue;
                }
            } else {
                run.completionFailed(this, "unexpected " + wc.opcode() + " completion");
                continue;
            }
            run.progress(this);
        }
    }

    /** cmatose.c destroy_node: QP, CQs, MR and buffer, PD; each step tried, a failure logged, the rest still freed. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        if (sendTimer != null) {
            sendTimer.cancel();
        }
        if (qp != null) {
            try {
                qp.destroy();
            } catch (VerbsException e) {
                LOG.warn("ucmatose: destroy {}: {}", qp, e.getMessage());
            }
        }
        destroy(sendCq);
        destroy(recvCq);
        if (mr != null) {
            try {
                verbs.deregister(mr);
            } catch (VerbsException e) {
                LOG.warn("ucmatose: deregister {}: {}", mr, e.getMessage());
            }
        }
        if (buffer > 0) {
            verbs.freeBuffer(buffer, size);
        }
        if (pd != null) {
            verbs.deallocatePd(pd);
        }
    }

    private static void destroy(CompletionQueue cq) {
        if (cq != null) {
            try {
                cq.destroy();
            } catch (VerbsException e) {
                LOG.warn("ucmatose: destroy {}: {}", cq, e.getMessage());
            }
        }
    }

    boolean isReleased() {
        return released;
    }

    /** The messages this connection sent and received both completed ({@code -C} each way). */
    boolean exchanged() {
        return sendsCompleted >= messages && receivesCompleted >= messages;
    }

    @Override
    public String toString() {
        return "ucmatose connection " + id + (node == null ? "" : " " + node.local() + " -> " + node.remote());
    }
}
