package dev.irdmaemu.driver;

import static dev.irdmaemu.driver.IrdmaDriver.VSI_NUM;
import static dev.irdmaemu.driver.IrdmaDriver.WS_ROOT_NODE;

import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import java.util.BitSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work-scheduler tree of ws.c for the one TC this driver uses: root, VSI node, TC leaf (irdma_ws_add,
 * irdma_ws_remove / irdma_remove_leaf), the node ids from rf->allocated_ws_nodes (utils.c irdma_alloc_ws_node_id)
 * and vsi->qos[0] (valid, qs_handle), each node op through the CQP (irdma_ws_cqp_cmd -> utils.c
 * irdma_cqp_ws_node_cmd -> ctrl.c irdma_sc_manage_ws_node). Callers reach it as
 * {@link IrdmaDriver#workScheduler()}.
 */
public final class WorkScheduler {
    private static final Logger LOG = LoggerFactory.getLogger(IrdmaDriver.class);
    /** defs.h IRDMA_MAX_WS_NODES: the size of rf->allocated_ws_nodes. */
    static final int IRDMA_MAX_WS_NODES = 0x3ff;
    /** type.h enum irdma_sched_prio_type: IRDMA_PRIO_WEIGHTED_RR, the type irdma_alloc_node gives every node. */
    static final int IRDMA_PRIO_WEIGHTED_RR = 1;
    /**
     * ice's QoS parameters without DCB (ice_dcb_lib.c ice_setup_dcb_qos_info from the default ETS table): every
     * user priority maps to TC 0 (up2tc[] = 0) and TC 0 has all the bandwidth (tcbwtable[0] = ICE_TC_MAX_BW).
     * irdma_sc_vsi_init copies them into vsi->qos[]; the leaf's weight is that rel_bw.
     */
    static final int UP0_TRAFFIC_CLASS = 0;
    static final int TC0_REL_BW = 100;
    private static final int NONE = -1;

    private final CqpChannel cqp;
    private final IrdmaHw hw;
    private final BitSet nodeIds = new BitSet(IRDMA_MAX_WS_NODES);
    private int root = NONE;
    private int vsiNode = NONE;
    private int leaf = NONE;
    private boolean qosValid;
    private int qsHandle;

    WorkScheduler(IrdmaHw hw, CqpChannel cqp) {
        this.hw = hw;
        this.cqp = cqp;
    }

    /** vsi->qos[0].qs_handle: the leaf's qs_handle the device answered (0 before the tree exists). */
    public int qsHandle() {
        return qsHandle;
    }

    /** The WS node ids this driver holds: root, VSI node, leaf (-1 where there is none). */
    public int[] nodes() {
        return new int[] {root, vsiNode, leaf};
    }

    /**
     * ws.c irdma_ws_add for a user priority: nothing when vsi->qos[up] is already valid; otherwise add the root
     * (node 0, its own parent, enabled) if there is none, a node for the VSI under it if there is none, then the TC
     * leaf (disabled; the device answers its qs_handle in op_ret_val) and enable it. A failed step deletes the nodes
     * this call added, leaf first, as irdma_ws_add's error path does.
     */
    void add() {
        if (qosValid) {
            return;
        }
        boolean rootAdded = false;
        boolean vsiAdded = false;
        try {
            if (root == NONE) {
                nodeCmd(CqpWqe.WS_NODE_OP_ADD, WS_ROOT_NODE, WS_ROOT_NODE, false, true, 0, 1);
                root = WS_ROOT_NODE;
                rootAdded = true;
            }
            if (vsiNode == NONE) {
                vsiNode = addNode(root, false, 0, 1);
                vsiAdded = true;
            }
            if (leaf == NONE) {
                addLeaf();
            }
        } catch (CqpException e) {
            if (vsiAdded) {
                deleteQuietly(vsiNode);
                nodeIds.clear(vsiNode);
                vsiNode = NONE;
            }
            if (rootAdded) {
                deleteQuietly(root);
                root = NONE;
            }
            throw e;
        }
        // every user priority of this TC (all of them, without DCB) now uses the leaf's qs_handle
        qosValid = true;
    }

    /** A node with a fresh id under {@code parent}, enabled unless a leaf; answers its id (op_ret_val aside). */
    private int addNode(int parent, boolean isLeaf, int tc, int weight) {
        int id = allocNodeId();
        try {
            long qs = nodeCmd(CqpWqe.WS_NODE_OP_ADD, id, parent, isLeaf, !isLeaf, tc, weight);
            if (isLeaf) {
                qsHandle = (int) qs;
            }
        } catch (CqpException e) {
            nodeIds.clear(id);
            throw e;
        }
        return id;
    }

    /** The TC leaf: added disabled (its qs_handle answered), then enabled; a refused enable deletes it again. */
    private void addLeaf() {
        int weight = Math.max(TC0_REL_BW, 1);
        int id = addNode(vsiNode, true, UP0_TRAFFIC_CLASS, weight);
        leaf = id;
        // Here irdma calls vsi->register_qset (ice_add_rdma_qset: AQ 0x0C33 adds the LAN Tx qset whose id is this
        // qs_handle). The ice side is not part of this emulator, so nothing happens between the add and the enable;
        // a model of ice's admin queue would be driven from here.
        try {
            nodeCmd(CqpWqe.WS_NODE_OP_MODIFY, id, vsiNode, true, true, UP0_TRAFFIC_CLASS, weight);
        } catch (CqpException e) {
            deleteQuietly(leaf);
            nodeIds.clear(leaf);
            leaf = NONE;
            throw e;
        }
    }

    /**
     * ws.c irdma_ws_remove / irdma_remove_leaf for the TC of user priority 0: delete the leaf (and, in irdma, the
     * ice qset), then the VSI node once it has no children, then the root once it has none. Nothing when there is
     * no leaf. irdma runs it when the last QP of the TC goes (puda.c irdma_puda_free_qp for the PUDA QPs).
     */
    public void remove() {
        qosValid = false;
        if (root == NONE || vsiNode == NONE || leaf == NONE) {
            return;
        }
        deleteQuietly(leaf);
        nodeIds.clear(leaf);
        leaf = NONE;
        deleteQuietly(vsiNode);
        nodeIds.clear(vsiNode);
        vsiNode = NONE;
        deleteQuietly(root);
        root = NONE;
    }

    /** utils.c irdma_alloc_ws_node_id: the lowest free id from 1 (bit 0 is the root's). */
    private int allocNodeId() {
        nodeIds.set(WS_ROOT_NODE);
        int id = nodeIds.nextClearBit(1);
        if (id >= IRDMA_MAX_WS_NODES) {
            throw new CqpException(CqpException.Kind.OP_ERROR, "WORK_SCHED_NODE", 0, 0);
        }
        nodeIds.set(id);
        return id;
    }

    /**
     * ws.c irdma_ws_cqp_cmd -> utils.c irdma_cqp_ws_node_cmd -> ctrl.c irdma_sc_manage_ws_node: every node carries
     * the VSI, IRDMA_PRIO_WEIGHTED_RR and its weight (rel_bw); answers op_ret_val (a leaf add's qs_handle).
     */
    private long nodeCmd(int nodeOp, int nodeId, int parentId, boolean isLeaf, boolean enable, int tc, int weight) {
        return cqp.op("WORK_SCHED_NODE", (o, v) -> CqpWqeWriter.workSchedNode(hw.store, o, nodeOp, nodeId, parentId,
                isLeaf, enable, IRDMA_PRIO_WEIGHTED_RR, tc, VSI_NUM, weight, v)).opReturnValue();
    }

    private void deleteQuietly(int nodeId) {
        int parent = nodeId == root ? root : nodeId == vsiNode ? root : vsiNode;
        boolean isLeaf = nodeId == leaf;
        try {
            nodeCmd(CqpWqe.WS_NODE_OP_DELETE, nodeId, parent, isLeaf, true, isLeaf ? UP0_TRAFFIC_CLASS : 0,
                    isLeaf ? Math.max(TC0_REL_BW, 1) : 1);
        } catch (CqpException e) {
            LOG.debug("WS node {} delete refused: {}", nodeId, e.getMessage());
        }
    }
}
