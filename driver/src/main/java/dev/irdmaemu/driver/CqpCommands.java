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
 * The CQP commands the CM and the verbs issue, as utils.c and hw.c wrap them (irdma_cqp_manage_apbvt_cmd,
 * irdma_manage_qhash, irdma_manage_arp_cache, irdma_hw_flush_wqes, the QP, CQ and STag ops of ctrl.c): each one's
 * WQE written by {@link CqpWqeWriter} from the caller's fields and waited for on the {@link CqpChannel}, or posted
 * with a callback. The per-connection ops' writers are made once, so that issuing them allocates nothing.
 */
final class CqpCommands {
    static final int QHASH_ADD = CqpWqe.QHASH_MANAGE_ADD;
    static final int QHASH_DELETE = CqpWqe.QHASH_MANAGE_DELETE;

    private final IrdmaHw hw;
    private final BytesStore<?, ?> store;
    private final CqpChannel cqp;
    private final WorkScheduler ws;
    private final CqOpFields cqf = new CqOpFields();
    private final QhashFields qhf = new QhashFields();
    // the per-connection ops' writers, made once (a capturing lambda per op would allocate)
    private final IrdmaDriver.WqeWriter nopWriter;
    private final IrdmaDriver.WqeWriter qhashWriter;

    CqpCommands(IrdmaHw hw, CqpChannel cqp, WorkScheduler ws) {
        this.hw = hw;
        this.store = hw.store;
        this.cqp = cqp;
        this.ws = ws;
        this.nopWriter = (o, v) -> CqpWqeWriter.nop(store, o, v);
        this.qhashWriter = (o, v) -> CqpWqeWriter.manageQhash(store, o, qhf, v);
    }

    /** cm.c irdma_manage_apbvt (utils.c irdma_cqp_manage_apbvt_cmd): mark or unmark a local TCP port. */
    void manageApbvt(int port, boolean add) {
        cqp.op("MANAGE_APBVT", (o, v) -> CqpWqeWriter.manageApbvt(store, o, port, add, v));
    }

    /** cm.c irdma_manage_qhash, waited for. */
    void manageQhash(int manage, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
                     boolean established, int vlan, long mac, int qpn) {
        qhashFields(manage, ipv4, local, localPort, remote, remotePort, established, vlan, mac, qpn);
        cqp.op("MANAGE_QUAD_HASH_TABLE_ENTRY", qhashWriter);
    }

    /** hw.c irdma_manage_qhash with wait = false: posted, {@code done} runs from its completion. */
    int postManageQhash(int manage, boolean ipv4, int[] local, int localPort, int[] remote, int remotePort,
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
    void manageArp(int index, long mac, boolean add) {
        if (add) {
            cqp.op("MANAGE_ARP", (o, v) -> CqpWqeWriter.addArpEntry(store, o, index, 0, mac, true, v));
        } else {
            cqp.op("MANAGE_ARP", (o, v) -> CqpWqeWriter.deleteArpEntry(store, o, index, v));
        }
    }

    /** verbs.c irdma_create_cq: a CQ of {@code entries} CQEs on CEQ 0, its shadow area after the ring. */
    long createCq(int id, int entries) {
        long ring = hw.allocate((long) entries * Cqe.SIZE + 64);
        cqf.clear();
        cqf.cqId = id;
        cqf.cqSize = entries;
        cqf.cqAddress = ring;
        cqf.shadowAreaAddress = ring + (long) entries * Cqe.SIZE;
        cqf.ceqId = 0;
        cqf.ceqIdValid = true;
        cqf.checkOverflow = false;
        cqp.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, cqf, v));
        return ring;
    }

    void createQp(QpOpFields f) {
        cqp.op("CREATE_QP", (o, v) -> CqpWqeWriter.createQp(store, o, f, v));
    }

    void modifyQp(QpOpFields f) {
        cqp.op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(store, o, f, v));
    }

    void destroyQp(QpOpFields f) {
        cqp.op("DESTROY_QP", (o, v) -> CqpWqeWriter.destroyQp(store, o, f, v));
    }

    void createCq(CqOpFields f) {
        cqp.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(store, o, f, v));
    }

    void destroyCq(CqOpFields f) {
        cqp.op("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(store, o, f, v));
    }

    void allocStag(StagFields f) {
        cqp.op("ALLOC_STAG", (o, v) -> CqpWqeWriter.allocStag(store, o, f, v));
    }

    void registerMr(StagFields f) {
        cqp.op("REG_MR", (o, v) -> CqpWqeWriter.registerMr(store, o, f, v));
    }

    void deallocStag(StagFields f) {
        cqp.op("DEALLOC_STAG", (o, v) -> CqpWqeWriter.deallocStag(store, o, f, v));
    }

    /** hw.c irdma_hw_flush_wqes (waiting): the completion, whose minor code says what was flushed. */
    CcqCqeInfo flushWqes(QpFlushFields f) {
        return cqp.op("FLUSH_WQES", (o, v) -> CqpWqeWriter.flushWqes(store, o, f, v));
    }

    /** ctrl.c irdma_sc_cqp_nop. */
    void nop() {
        cqp.op("NOP", nopWriter);
    }
}
