package dev.irdmaemu.driver;

import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.QhashFields;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.queue.Cqe;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The CQP as the CM and the verbs use it, reached as {@link IrdmaDriver#cqp()}: the commands as utils.c and hw.c wrap
 * them (irdma_cqp_manage_apbvt_cmd, irdma_manage_qhash, irdma_manage_arp_cache, irdma_hw_flush_wqes, the QP, CQ and
 * STag ops of ctrl.c), each one's WQE written by {@link CqpWqeWriter} from the caller's fields and waited for on the
 * {@link CqpChannel}, or posted with a callback; any other WQE waited for ({@link #op}) or posted ({@link #post}) the
 * same way; and the counts irdma keeps over the requests (cqp->requested_ops, the timeouts of utils.c
 * irdma_wait_event, the requests posted without waiting). The per-connection ops' writers are made once, so that
 * issuing them allocates nothing.
 */
public final class CqpCommands {
    static final int QHASH_ADD = CqpWqe.QHASH_MANAGE_ADD;
    static final int QHASH_DELETE = CqpWqe.QHASH_MANAGE_DELETE;

    private final IrdmaHw hw;
    private final BytesStore<?, ?> store;
    private final CqpChannel cqp;
    private final CqpRequests requests;
    private final WorkScheduler ws;
    private final CqOpFields cqf = new CqOpFields();
    private final QhashFields qhf = new QhashFields();
    // the per-connection ops' writers, made once (a capturing lambda per op would allocate)
    private final IrdmaDriver.WqeWriter nopWriter;
    private final IrdmaDriver.WqeWriter qhashWriter;

    CqpCommands(IrdmaHw hw, CqpChannel cqp, CqpRequests requests, WorkScheduler ws) {
        this.hw = hw;
        this.store = hw.store;
        this.cqp = cqp;
        this.requests = requests;
        this.ws = ws;
        this.nopWriter = (o, v) -> CqpWqeWriter.nop(store, o, v);
        this.qhashWriter = (o, v) -> CqpWqeWriter.manageQhash(store, o, qhf, v);
    }

    /** cm.c irdma_manage_apbvt (utils.c irdma_cqp_manage_apbvt_cmd): mark or unmark a local TCP port. */
    public void manageApbvt(int port, boolean add) {
        cqp.op("MANAGE_APBVT", (o, v) -> CqpWqeWriter.manageApbvt(store, o, port, add, v));
    }

    /**
     * cm.c irdma_manage_qhash, waited for: an IPv4 or IPv6 entry (address words most significant first), listen
     * when {@code established} is false (local address and port only), steering to {@code qpn} (1 = the ILQ).
     */
    public void manageQhash(boolean add, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                            boolean established, int vlan, long mac, int qpn) {
        manageQhash(add ? QHASH_ADD : QHASH_DELETE, ipv4, local, localPort, remote, remotePort, established, vlan,
                mac, qpn);
    }

    /** The same with an explicit manage code (CqpWqe.QHASH_MANAGE_ADD / _MODIFY / _DELETE). */
    public void manageQhash(int manage, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                            boolean established, int vlan, long mac, int qpn) {
        qhashFields(manage, ipv4, local, localPort, remote, remotePort, established, vlan, mac, qpn);
        cqp.op("MANAGE_QUAD_HASH_TABLE_ENTRY", qhashWriter);
    }

    /**
     * hw.c irdma_manage_qhash with wait = false and a cm_node (cm.c irdma_add_conn_est_qh, called from the passive
     * side's AH callback): the same WQE, posted without waiting; {@code done} runs from its completion (hw.c
     * irdma_send_syn_cqp_callback). Answers the WQE index.
     *
     * @throws CqpException when nothing could be posted (a reset was requested: irdma_handle_cqp_op's -EBUSY)
     */
    public int postManageQhash(int manage, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                               boolean established, int vlan, long mac, int qpn, IrdmaDriver.CqpCallback done) {
        qhashFields(manage, ipv4, local, localPort, remote, remotePort, established, vlan, mac, qpn);
        return cqp.post("MANAGE_QUAD_HASH_TABLE_ENTRY", qhashWriter, done);
    }

    /** ctrl.c irdma_sc_manage_qhash_table_entry's fields (struct irdma_qhash_table_info) into {@link #qhf}. */
    private void qhashFields(int manage, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                             boolean established, int vlan, long mac, int qpn) {
        qhf.clear();
        qhf.ipv4 = ipv4;
        System.arraycopy(local, 0, qhf.destIp, 0, ipv4 ? 1 : 4);
        qhf.destPort = localPort;
        qhf.entryType = established ? CqpWqe.QHASH_TYPE_TCP_ESTABLISHED : CqpWqe.QHASH_TYPE_TCP_SYN;
        if (established) {
            System.arraycopy(remote, 0, qhf.srcIp, 0, ipv4 ? 1 : 4);
            qhf.srcPort = remotePort;
        }
        qhf.vlanValid = vlan >= 0;
        qhf.vlanId = Math.max(vlan, 0);
        qhf.qpNumber = qpn;
        // ctrl.c irdma_sc_manage_qhash_table_entry: IRDMA_CQPSQ_QHASH_QS_HANDLE = vsi->qos[user_pri].qs_handle
        qhf.qsHandle = ws.qsHandle();
        qhf.manage = manage;
        qhf.mac = mac;
    }

    /** utils.c irdma_manage_arp_cache: add (valid, {@code mac}) or delete the ARP cache entry {@code index}. */
    public void manageArp(int index, long mac, boolean add) {
        if (add) {
            cqp.op("MANAGE_ARP", (o, v) -> CqpWqeWriter.addArpEntry(store, o, index, 0, mac, true, v));
        } else {
            cqp.op("MANAGE_ARP", (o, v) -> CqpWqeWriter.deleteArpEntry(store, o, index, v));
        }
    }

    /**
     * verbs.c irdma_create_cq / ctrl.c irdma_sc_cq_create: a CQ of {@code entries} CQEs on CEQ 0. Answers its
     * ring's guest-physical address (the shadow area follows the ring).
     */
    public long createCq(int id, int entries) {
        long ring = hw.allocate((long) entries * Cqe.SIZE + 64);
        CeqZeroCq.fields(cqf, id, entries, ring, ring + (long) entries * Cqe.SIZE).checkOverflow = false;
        cqp.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, cqf, v));
        return ring;
    }

    /** ctrl.c irdma_sc_qp_create / _modify / _destroy with the caller's fields. */
    public void createQp(QpOpFields f) {
        cqp.op("CREATE_QP", (o, v) -> CqpWqeWriter.createQp(store, o, f, v));
    }

    public void modifyQp(QpOpFields f) {
        cqp.op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(store, o, f, v));
    }

    public void destroyQp(QpOpFields f) {
        cqp.op("DESTROY_QP", (o, v) -> CqpWqeWriter.destroyQp(store, o, f, v));
    }

    /** ctrl.c irdma_sc_cq_create / irdma_sc_cq_destroy with the caller's fields (verbs.c irdma_create_cq). */
    public void createCq(CqOpFields f) {
        cqp.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, f, v));
    }

    public void destroyCq(CqOpFields f) {
        cqp.op("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(store, o, f, v));
    }

    /** ctrl.c irdma_sc_alloc_stag / irdma_sc_mr_reg_non_shared / irdma_sc_dealloc_stag. */
    public void allocStag(StagFields f) {
        cqp.op("ALLOC_STAG", (o, v) -> CqpWqeWriter.allocStag(store, o, f, v));
    }

    public void registerMr(StagFields f) {
        cqp.op("REG_MR", (o, v) -> CqpWqeWriter.registerMr(store, o, f, v));
    }

    public void deallocStag(StagFields f) {
        cqp.op("DEALLOC_STAG", (o, v) -> CqpWqeWriter.deallocStag(store, o, f, v));
    }

    /**
     * ctrl.c irdma_sc_qp_flush_wqes through hw.c irdma_hw_flush_wqes (waiting): answers the completion's minor
     * code (main.h IRDMA_CQP_COMPL_RQ_WQE_FLUSHED / IRDMA_CQP_COMPL_SQ_WQE_FLUSHED, 0 for nothing flushed).
     */
    public int flushWqes(QpFlushFields f) {
        return cqp.op("FLUSH_WQES", (o, v) -> CqpWqeWriter.flushWqes(store, o, f, v)).minorCode();
    }

    /**
     * As {@link #flushWqes}, answering an error completion (Flush No WQE Pending for a QP with nothing posted, which
     * every graceful close meets) as {@link FlushCompletion#ERROR} instead of throwing: irdma_flush_wqes reads the
     * status. Throws only for a timeout or a refused post.
     */
    public FlushCompletion flushWqesCompletion(QpFlushFields f) {
        CcqCqeInfo c = cqp.answer("FLUSH_WQES", (o, v) -> CqpWqeWriter.flushWqes(store, o, f, v));
        return FlushCompletion.of(c.error(), c.minorCode());
    }

    /** A NOP through the CQP (ctrl.c irdma_sc_cqp_nop): the cheapest round trip. */
    public void nop() {
        cqp.op("NOP", nopWriter);
    }

    /**
     * Posts one CQP WQE, rings PFPE_CQPDB and runs the scheduler until its completion (ctrl.c
     * irdma_sc_cqp_post_sq + irdma_sc_poll_for_cqp_op_done). Answers the op's return value (CQE OPRETVAL).
     *
     * @throws CqpException a timeout, an error completion, or a reset already requested
     */
    public long op(String name, IrdmaDriver.WqeWriter writer) {
        return cqp.op(name, writer).opReturnValue();
    }

    /**
     * irdma_handle_cqp_op for a request allocated with wait = false: posts the WQE, rings PFPE_CQPDB and returns
     * without waiting. The CCQ completion, whenever it comes, runs {@code callback} from the interrupt handler
     * (hw.c irdma_cqp_ce_handler -> irdma_complete_cqp_request). Needs the CCQ (before it, ops poll registers).
     * Answers the WQE index.
     */
    public int post(String name, IrdmaDriver.WqeWriter writer, IrdmaDriver.CqpCallback callback) {
        return cqp.post(name, writer, callback);
    }

    /** CQP ops posted since the CQP was created. */
    public long opsPosted() {
        return cqp.opsPosted();
    }

    /** CQP timeouts seen: waited ops that gave up and watchdog expiries over posted requests. */
    public long timeouts() {
        return requests.timeouts();
    }

    /** Requests posted without waiting whose completion has not been handled yet. */
    public int requestsPending() {
        return requests.pending();
    }

    /** Callbacks of requests posted without waiting that have run. */
    public long callbacksRun() {
        return requests.callbacksRun();
    }
}
