package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DisableTxqItem;
import dev.irdmaemu.fw.aq.RdmaQsetGroup;
import dev.irdmaemu.fw.aq.SchedElement;
import dev.irdmaemu.fw.aq.TxQueueContext;
import dev.irdmaemu.fw.aq.TxQueueGroup;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The leaves of the Tx scheduler: LAN Tx queues (add_txqs 0x0C30) and RDMA queue sets (add_rdma_qset 0x0C33), both
 * taken down by dis_txqs (0x0C31; an RDMA qset by its qs_handle with ICE_AQC_Q_DIS_BUF_ELEM_TYPE_RDMA_QSET, as
 * ice_common.c ice_dis_vsi_rdma_qset sends it).
 *
 * <p>Each queue is named by its PF queue number (txq_id) and gets a leaf TEID under a queue-group node
 * ({@link TxScheduler#QGROUP_LAYER}); its 22-byte Tx queue context is kept as bytes for the LAN path, read through
 * {@link TxQueueContext} ({@link #wrapContext}). Each qset is named by the qs_handle irdma passed as tx_qset_id and
 * gets a leaf TEID the same way; ice then queries both kinds of TEID with get_sched_elems. A command applies whole or
 * not at all.
 */
public final class TxQueues {
    /** Where refused commands are reported: the function's, shared by its command handlers (AqRefusals). */
    private AqRefusals refusals = new AqRefusals();

    /** PF Tx queues the model serves (the func cap TXQS number the firmware reports must not exceed this). */
    public static final int DEFAULT_QUEUES = 256;
    /** qs_handle space: 10 bits (IRDMAQPC_QSHANDLE); bit 15 of a dis_txqs q_id marks a qset. */
    public static final int QS_HANDLES = 1 << 10;
    private static final int PARAM_NUM_GROUPS = 0;

    /** A LAN Tx queue. */
    public static final class TxQueue {
        final int id;
        final int teid;
        final long parent;
        final BytesStore<?, ?> context;

        TxQueue(int id, int teid, long parent, BytesStore<?, ?> context) {
            this.id = id;
            this.teid = teid;
            this.parent = parent;
            this.context = context;
        }

        public int id() {
            return id;
        }

        public int teid() {
            return teid;
        }

        public long parentTeid() {
            return parent;
        }
    }

    /** An RDMA queue set. */
    public static final class Qset {
        final int qsHandle;
        final int teid;
        final long parent;

        Qset(int qsHandle, int teid, long parent) {
            this.qsHandle = qsHandle;
            this.teid = teid;
            this.parent = parent;
        }

        public int qsHandle() {
            return qsHandle;
        }

        public int teid() {
            return teid;
        }

        public long parentTeid() {
            return parent;
        }
    }

    private final TxScheduler scheduler;
    private final int queueCount;
    private final Map<Integer, TxQueue> queues = new HashMap<>();
    private final Map<Integer, Qset> qsets = new HashMap<>();
    private final TxQueueGroup txGroup = new TxQueueGroup();
    private final RdmaQsetGroup qsetGroup = new RdmaQsetGroup();
    private final DisableTxqItem disItem = new DisableTxqItem();
    private final SchedElement element = new SchedElement();

    public TxQueues(TxScheduler scheduler) {
        this(scheduler, DEFAULT_QUEUES);
    }

    public TxQueues(TxScheduler scheduler, int queueCount) {
        this.scheduler = scheduler;
        this.queueCount = queueCount;
    }

    /** PF reset: the scheduler drops every leaf itself. */
    public void reset() {
        queues.clear();
        qsets.clear();
    }

    public void install(BiConsumer<Integer, AqCommandHandler> register) {
        register.accept(AqOpcode.ADD_TXQS, this::addTxQueues);
        register.accept(AqOpcode.DIS_TXQS, this::disableTxQueues);
        register.accept(AqOpcode.ADD_RDMA_QSET, this::addRdmaQsets);
    }

    public TxQueue queue(int id) {
        return queues.get(id);
    }

    public Qset qset(int qsHandle) {
        return qsets.get(qsHandle);
    }

    /** The enabled Tx queues, by PF queue number. */
    public java.util.Collection<TxQueue> queues() {
        return java.util.Collections.unmodifiableCollection(queues.values());
    }

    public java.util.Collection<Qset> qsets() {
        return java.util.Collections.unmodifiableCollection(qsets.values());
    }

    public int queueCount() {
        return queues.size();
    }

    public int qsetCount() {
        return qsets.size();
    }

    /** Wraps {@code view} over queue {@code id}'s Tx context; false (view untouched) when the queue is not enabled. */
    public boolean wrapContext(int id, TxQueueContext view) {
        TxQueue q = queues.get(id);
        if (q == null) {
            return false;
        }
        view.wrap(q.context, 0);
        return true;
    }

    // ---- 0x0C30

    private int addTxQueues(AqDescriptor desc, Bytes<?> buf) {
        int groups = desc.paramU8(PARAM_NUM_GROUPS);
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || groups == 0 || groups > TxQueueGroup.MAX_QGRPS) {
            return refusals.refuse("add_txqs", groups + " queue groups", AqError.EINVAL);
        }
        long start = CommandBuffer.start(buf);
        long end = start + len;
        Map<Long, Integer> perParent = new HashMap<>();
        List<Integer> ids = new ArrayList<>();
        long g = start;
        for (int i = 0; i < groups; i++) {
            txGroup.wrap(buf, g, end - g);
            TxQueueGroup.Status s = txGroup.validate();
            if (!s.accepted()) {
                return refusals.refuse("add_txqs", "group " + i + ": " + s.describe(), AqError.EINVAL);
            }
            long parent = txGroup.parentTeid();
            int n = txGroup.numTxqs();
            int code = scheduler.checkLeafParent(parent, perParent.getOrDefault(parent, 0) + n);
            if (code != AqError.OK) {
                return refusals.refuse("add_txqs", "group " + i + ": parent TEID 0x" + Long.toHexString(parent)
                        + " cannot take " + n + " queues", code);
            }
            for (int q = 0; q < n; q++) {
                int id = txGroup.txqId(q);
                if (id >= queueCount) {
                    return refusals.refuse("add_txqs", "queue " + id + " beyond the PF's " + queueCount, AqError.EINVAL);
                }
                if (queues.containsKey(id) || ids.contains(id)) {
                    return refusals.refuse("add_txqs", "queue " + id + " is already enabled", AqError.EEXIST);
                }
                ids.add(id);
            }
            perParent.merge(parent, n, Integer::sum);
            g += txGroup.size();
        }
        g = start;
        byte[] info = new byte[SchedElement.INFO_SIZE];
        for (int i = 0; i < groups; i++) {
            txGroup.wrap(buf, g, end - g);
            for (int q = 0; q < txGroup.numTxqs(); q++) {
                element.wrapInfo(buf, txGroup.infoAt(q)).readInfo(info);
                int teid = scheduler.addLeaf(txGroup.parentTeid(), TxScheduler.Kind.LAN_QUEUE, info);
                BytesStore<?, ?> ctx = BytesStore.wrap(new byte[TxQueueContext.SIZE]);
                long c = txGroup.contextAt(q);
                for (int b = 0; b < TxQueueContext.SIZE; b++) {
                    ctx.writeByte(b, buf.readByte(c + b));
                }
                int id = txGroup.txqId(q);
                queues.put(id, new TxQueue(id, teid, txGroup.parentTeid(), ctx));
                txGroup.queueTeid(q, teid);
            }
            g += txGroup.size();
        }
        return AqError.OK;
    }

    // ---- 0x0C31

    private int disableTxQueues(AqDescriptor desc, Bytes<?> buf) {
        int items = desc.paramU8(DisableTxqItem.PARAM_NUM_ENTRIES);
        if (buf == null) {
            // ice_aq_dis_lan_txq sends no list only for a VM/VF reset: nothing of the PF's to stop here.
            return AqError.OK;
        }
        if (items == 0 || items > TxQueueGroup.MAX_QGRPS) {
            return refusals.refuse("dis_txqs", items + " items", AqError.EINVAL);
        }
        long start = CommandBuffer.start(buf);
        long end = start + CommandBuffer.length(desc, buf);
        List<TxQueue> lan = new ArrayList<>();
        List<Qset> rdma = new ArrayList<>();
        long a = start;
        for (int i = 0; i < items; i++) {
            disItem.wrap(buf, a, end - a);
            DisableTxqItem.Status s = disItem.validate();
            if (!s.accepted()) {
                return refusals.refuse("dis_txqs", "item " + i + ": " + s.describe(), AqError.EINVAL);
            }
            long parent = disItem.parentTeid();
            for (int q = 0; q < disItem.numQueues(); q++) {
                int id = disItem.queueId(q);
                if ((id & DisableTxqItem.RDMA_QSET) != 0) {
                    Qset qs = qsets.get(id & ~DisableTxqItem.RDMA_QSET);
                    if (qs == null || qs.parent != parent) {
                        return refusals.refuse("dis_txqs", "no RDMA qset " + (id & 0x7FFF) + " under 0x"
                                + Long.toHexString(parent), AqError.ENOENT);
                    }
                    if (!rdma.contains(qs)) {
                        rdma.add(qs);
                    }
                } else {
                    TxQueue tq = queues.get(id);
                    if (tq == null || tq.parent != parent) {
                        return refusals.refuse("dis_txqs", "no Tx queue " + id + " under 0x" + Long.toHexString(parent),
                                AqError.ENOENT);
                    }
                    if (!lan.contains(tq)) {
                        lan.add(tq);
                    }
                }
            }
            a += disItem.size();
        }
        for (TxQueue q : lan) {
            queues.remove(q.id);
            scheduler.removeLeaf(q.teid);
        }
        for (Qset q : rdma) {
            qsets.remove(q.qsHandle);
            scheduler.removeLeaf(q.teid);
        }
        return AqError.OK;
    }

    // ---- 0x0C33

    private int addRdmaQsets(AqDescriptor desc, Bytes<?> buf) {
        int groups = desc.paramU8(PARAM_NUM_GROUPS);
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || groups == 0) {
            return refusals.refuse("add_rdma_qset", groups + " qset groups", AqError.EINVAL);
        }
        long start = CommandBuffer.start(buf);
        long end = start + len;
        Map<Long, Integer> perParent = new HashMap<>();
        List<Integer> handles = new ArrayList<>();
        long g = start;
        for (int i = 0; i < groups; i++) {
            qsetGroup.wrap(buf, g, end - g);
            RdmaQsetGroup.Status s = qsetGroup.validate();
            if (!s.accepted()) {
                return refusals.refuse("add_rdma_qset", "group " + i + ": " + s.describe(), AqError.EINVAL);
            }
            long parent = qsetGroup.parentTeid();
            int n = qsetGroup.numQsets();
            int code = scheduler.checkLeafParent(parent, perParent.getOrDefault(parent, 0) + n);
            if (code != AqError.OK) {
                return refusals.refuse("add_rdma_qset", "group " + i + ": parent TEID 0x" + Long.toHexString(parent)
                        + " cannot take " + n + " qsets", code);
            }
            for (int q = 0; q < n; q++) {
                int h = qsetGroup.qsetId(q);
                if (h >= QS_HANDLES) {
                    return refusals.refuse("add_rdma_qset", "qs_handle " + h + " beyond 10 bits", AqError.EINVAL);
                }
                if (qsets.containsKey(h) || handles.contains(h)) {
                    return refusals.refuse("add_rdma_qset", "qs_handle " + h + " already has a qset", AqError.EEXIST);
                }
                handles.add(h);
            }
            perParent.merge(parent, n, Integer::sum);
            g += qsetGroup.size();
        }
        g = start;
        byte[] info = new byte[SchedElement.INFO_SIZE];
        for (int i = 0; i < groups; i++) {
            qsetGroup.wrap(buf, g, end - g);
            for (int q = 0; q < qsetGroup.numQsets(); q++) {
                element.wrapInfo(buf, qsetGroup.infoAt(q)).readInfo(info);
                int teid = scheduler.addLeaf(qsetGroup.parentTeid(), TxScheduler.Kind.RDMA_QSET, info);
                int h = qsetGroup.qsetId(q);
                qsets.put(h, new Qset(h, teid, qsetGroup.parentTeid()));
                qsetGroup.qsetTeid(q, teid);
            }
            g += qsetGroup.size();
        }
        return AqError.OK;
    }


    /** Reports refused commands to {@code r} (the function's shared {@link AqRefusals}). */
    void reportRefusalsTo(AqRefusals r) {
        this.refusals = r;
    }
}
