package dev.irdmaemu.model.ws;

import java.util.Arrays;
import java.util.BitSet;
import java.util.OptionalInt;

/**
 * The work-scheduler node table behind IRDMA_CQP_OP_WORK_SCHED_NODE (ctrl.c irdma_sc_manage_ws_node). ws.c
 * irdma_ws_add builds it top down: a root that names itself as parent (node 0, irdma_alloc_node without a parent),
 * a node per VSI under it, and a leaf per traffic class under that; ws.c irdma_remove_leaf takes it down bottom up.
 * Node ids are the driver's (utils.c irdma_alloc_ws_node_id over a bitmap of IRDMA_MAX_WS_NODES, type.h); the
 * device answers a leaf's add with its qs_handle in the CCQ completion's op_ret_val (utils.c irdma_cqp_ws_node_cmd),
 * which the driver then writes into QP contexts (IRDMAQPC_QSHANDLE, 10 bits) and quad-hash WQEs
 * (IRDMA_CQPSQ_QHASH_QS_HANDLE, 9:0). The handles come from an allocator, lowest free first, and return to it when
 * the leaf is deleted. Each op answers a {@link Result}; a refused op changes nothing.
 */
public final class WorkSchedulerTree {
    /** type.h IRDMA_MAX_WS_NODES: the driver's node id space (ids 0 .. 0x3fe). */
    public static final int MAX_WS_NODES = 0x3ff;
    /** The qs_handle space: the 10 bits of IRDMAQPC_QSHANDLE (defs.h, 25:16) / IRDMA_CQPSQ_QHASH_QS_HANDLE (9:0). */
    public static final int QS_HANDLES = 1 << 10;
    /** enum irdma_sched_prio_type (type.h): IRDMA_PRIO_WEIGHTED_RR 1 .. IRDMA_PRIO_WEIGHTED_STRICT 3. */
    public static final int PRIO_MIN = 1;
    public static final int PRIO_MAX = 3;

    /** What an op answered. */
    public enum Result {
        OK("done"),
        BAD_NODE_ID("node or parent id beyond IRDMA_MAX_WS_NODES"),
        BAD_FIELD("a field outside what the driver writes (priority type 0, weight 0)"),
        EXISTS("the node id is in use"),
        ROOT_EXISTS("a second root (a node that is its own parent)"),
        LEAF_ROOT("a leaf cannot be the root"),
        NO_PARENT("the parent does not exist"),
        PARENT_IS_LEAF("a leaf cannot have children"),
        FULL("the tree or the qs_handle pool is full"),
        NO_SUCH_NODE("no such node"),
        MODIFY_MOVES_NODE("modify changes the node's parent or type"),
        HAS_CHILDREN("the node still has children");

        private final String text;

        Result(String text) {
            this.text = text;
        }

        public String describe() {
            return text;
        }
    }

    private final int capacity;
    private final int qsHandleCount;
    private final boolean[] live = new boolean[MAX_WS_NODES];
    private final boolean[] leaf = new boolean[MAX_WS_NODES];
    private final boolean[] enabled = new boolean[MAX_WS_NODES];
    private final int[] parent = new int[MAX_WS_NODES];
    private final int[] children = new int[MAX_WS_NODES];
    private final int[] prio = new int[MAX_WS_NODES];
    private final int[] tc = new int[MAX_WS_NODES];
    private final int[] vsi = new int[MAX_WS_NODES];
    private final int[] weight = new int[MAX_WS_NODES];
    private final int[] qsHandle = new int[MAX_WS_NODES];
    private final BitSet qsInUse;
    private int liveCount;
    private int root = -1;
    private int lastQsHandle = -1;

    /** A tree of IRDMA_MAX_WS_NODES nodes and the whole 10-bit qs_handle space. */
    public WorkSchedulerTree() {
        this(MAX_WS_NODES, QS_HANDLES);
    }

    /** A smaller tree (tests reach "full" with it): at most {@code capacity} nodes and {@code qsHandles} leaves. */
    public WorkSchedulerTree(int capacity, int qsHandles) {
        if (capacity < 1 || capacity > MAX_WS_NODES || qsHandles < 1 || qsHandles > QS_HANDLES) {
            throw new IllegalArgumentException("capacity " + capacity + ", qs handles " + qsHandles);
        }
        this.capacity = capacity;
        this.qsHandleCount = qsHandles;
        this.qsInUse = new BitSet(qsHandles);
    }

    /**
     * Adds node {@code id} under {@code parentId} ({@code parentId == id}: the root). A leaf gets a qs_handle
     * ({@link #lastQsHandle()}).
     */
    public Result add(int id, int parentId, boolean isLeaf, boolean enable, int prioType, int trafficClass,
                      int vsiIndex, int nodeWeight) {
        lastQsHandle = -1;
        if (!inRange(id) || !inRange(parentId)) {
            return Result.BAD_NODE_ID;
        }
        if (prioType < PRIO_MIN || prioType > PRIO_MAX || nodeWeight == 0) {
            return Result.BAD_FIELD;
        }
        if (live[id]) {
            return Result.EXISTS;
        }
        if (parentId == id) {
            if (isLeaf) {
                return Result.LEAF_ROOT;
            }
            if (root >= 0) {
                return Result.ROOT_EXISTS;
            }
        } else if (!live[parentId]) {
            return Result.NO_PARENT;
        } else if (leaf[parentId]) {
            return Result.PARENT_IS_LEAF;
        }
        if (liveCount == capacity) {
            return Result.FULL;
        }
        int qs = -1;
        if (isLeaf) {
            qs = qsInUse.nextClearBit(0);
            if (qs >= qsHandleCount) {
                return Result.FULL;
            }
            qsInUse.set(qs);
        }
        live[id] = true;
        leaf[id] = isLeaf;
        parent[id] = parentId;
        children[id] = 0;
        qsHandle[id] = qs;
        set(id, enable, prioType, trafficClass, vsiIndex, nodeWeight);
        if (parentId == id) {
            root = id;
        } else {
            children[parentId]++;
        }
        liveCount++;
        lastQsHandle = qs;
        return Result.OK;
    }

    /** Changes a node's enable, priority type, TC, VSI and weight; its parent and type must stay as they are. */
    public Result modify(int id, int parentId, boolean isLeaf, boolean enable, int prioType, int trafficClass,
                         int vsiIndex, int nodeWeight) {
        if (!inRange(id) || !inRange(parentId)) {
            return Result.BAD_NODE_ID;
        }
        if (prioType < PRIO_MIN || prioType > PRIO_MAX || nodeWeight == 0) {
            return Result.BAD_FIELD;
        }
        if (!live[id]) {
            return Result.NO_SUCH_NODE;
        }
        if (parent[id] != parentId || leaf[id] != isLeaf) {
            return Result.MODIFY_MOVES_NODE;
        }
        set(id, enable, prioType, trafficClass, vsiIndex, nodeWeight);
        return Result.OK;
    }

    /** Deletes a node without children; a leaf's qs_handle goes back to the pool. */
    public Result delete(int id) {
        if (!inRange(id)) {
            return Result.BAD_NODE_ID;
        }
        if (!live[id]) {
            return Result.NO_SUCH_NODE;
        }
        if (children[id] != 0) {
            return Result.HAS_CHILDREN;
        }
        if (qsHandle[id] >= 0) {
            qsInUse.clear(qsHandle[id]);
            qsHandle[id] = -1;
        }
        if (root == id) {
            root = -1;
        } else {
            children[parent[id]]--;
        }
        live[id] = false;
        liveCount--;
        return Result.OK;
    }

    /** Back to power-on: no nodes, every qs_handle free. */
    public void reset() {
        Arrays.fill(live, false);
        Arrays.fill(children, 0);
        qsInUse.clear();
        liveCount = 0;
        root = -1;
        lastQsHandle = -1;
    }

    private void set(int id, boolean enable, int prioType, int trafficClass, int vsiIndex, int nodeWeight) {
        enabled[id] = enable;
        prio[id] = prioType;
        tc[id] = trafficClass;
        vsi[id] = vsiIndex;
        weight[id] = nodeWeight;
    }

    private static boolean inRange(int id) {
        return id >= 0 && id < MAX_WS_NODES;
    }

    /** The qs_handle the last op allocated: present after a successful leaf add, empty after any other op. */
    public OptionalInt lastQsHandle() {
        return lastQsHandle >= 0 ? OptionalInt.of(lastQsHandle) : OptionalInt.empty();
    }

    public int liveCount() {
        return liveCount;
    }

    public int qsHandlesInUse() {
        return qsInUse.cardinality();
    }

    public boolean live(int id) {
        return inRange(id) && live[id];
    }

    public boolean leaf(int id) {
        return live(id) && leaf[id];
    }

    public boolean enabled(int id) {
        return live(id) && enabled[id];
    }

    /**
     * The node's parent (itself for the root). Like the other accessors of one node's fields, it asks for a node
     * that is {@link #live}: callers check that first.
     *
     * @throws IllegalArgumentException when node {@code id} is not live
     */
    public int parent(int id) {
        return parent[liveNode(id)];
    }

    /**
     * A leaf's qs_handle.
     *
     * @throws IllegalArgumentException when node {@code id} is not a live {@link #leaf}
     */
    public int qsHandle(int id) {
        if (!leaf(id)) {
            throw new IllegalArgumentException("no leaf node " + id);
        }
        return qsHandle[id];
    }

    public int trafficClass(int id) {
        return tc[liveNode(id)];
    }

    public int vsi(int id) {
        return vsi[liveNode(id)];
    }

    public int weight(int id) {
        return weight[liveNode(id)];
    }

    public int prioType(int id) {
        return prio[liveNode(id)];
    }

    /** {@code id}, checked to name a live node. */
    private int liveNode(int id) {
        if (!live(id)) {
            throw new IllegalArgumentException("no live node " + id);
        }
        return id;
    }

    /** The root's id, if the tree has one. */
    public OptionalInt root() {
        return root >= 0 ? OptionalInt.of(root) : OptionalInt.empty();
    }
}
