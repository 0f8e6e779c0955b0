package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.SchedElement;
import dev.irdmaemu.fw.aq.SchedGroup;
import dev.irdmaemu.fw.aq.SchedMoveElements;
import dev.irdmaemu.fw.aq.SchedResources;
import dev.irdmaemu.fw.aq.TeidList;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The E810 Tx scheduler tree of one port as the firmware keeps it, and the AQ commands ice_sched.c sends it:
 * query_sched_res (0x0412), get_dflt_topo (0x0400), add/get/cfg/move/suspend/resume/delete sched elems
 * (0x0401/0x0404/0x0403/0x0408/0x0409/0x040A/0x040F).
 *
 * <p>The tree has {@link #LAYERS} logical layers (ICE_AQC_TOPO_MAX_LEVEL_NUM; ice_sched.c ice_sched_get_qgrp_layer
 * and ice_sched_get_vsi_layer put the queue groups at layer 7 and the VSIs at 6 for 9 layers). At power-on and
 * after a PF reset it holds the default branch ice_sched_init_port reads: root (ROOT_PORT) at layer 0, a TC node at
 * 1, the ENTRY_POINT at 2 (ice's sw_entry_point_layer), SE_GENERIC nodes down to 7 and a LEAF at 8. The entry point
 * sits right below the TC because ice parents the first node it adds on the entry layer to the TC node itself
 * (ice_sched.c ice_sched_add_vsi_support_nodes, ice_sched_add_agg_cfg start from the TC); with an SE_GENERIC
 * between them the stock ice.ko of Linux 7.3 corrupted its own tree and crashed (found by booting it on the model). ice then deletes the leaf and everything from the entry point down (ice_sched_rm_dflt_nodes) and builds its
 * own VSI branches with add sched elems. Leaves (LAN queues, RDMA qsets) are added only by {@link TxQueues}.
 *
 * <p>Rules the model enforces: a node's parent exists and is not a leaf; a node sits one layer below its parent;
 * a parent has at most the child layer's max sibling group size (what query_sched_res reports and ice sizes its
 * children arrays by); ROOT_PORT and TC nodes cannot be added or deleted; a node with children cannot be deleted
 * (ice deletes bottom-up, ice_free_sched_node); queue and qset leaves leave only through dis_txqs (0x0C31). A
 * command either applies whole or changes nothing, and answers the libie AQ error of the rule it broke.
 */
public final class TxScheduler {
    /** Where refused commands are reported: the function's, shared by its command handlers (AqRefusals). */
    private AqRefusals refusals = new AqRefusals();

    public static final int LAYERS = SchedGroup.MAX_LEVELS;
    /** Layer of the queue group nodes (ice_sched_get_qgrp_layer: layers - 2). */
    public static final int QGROUP_LAYER = LAYERS - 2;
    public static final int LEAF_LAYER = LAYERS - 1;
    /** The layer of the default ENTRY_POINT element (ice's sw_entry_point_layer). */
    public static final int ENTRY_POINT_LAYER = 2;
    /**
     * struct ice_aqc_layer_props max_sibl_grp_sz per layer: how many children a node of the layer above may
     * have (ice_sched_query_res_alloc). Layer 1 holds the 8 TCs; 8 queues per queue group.
     */
    private static final int[] MAX_SIBLINGS = {1, 8, 8, 8, 32, 32, 32, 8, 8};
    /** A bound on the nodes of one port, so a hostile driver cannot grow the tree without limit. */
    public static final int MAX_NODES = 4096;
    /** TEIDs start here; 0 and ICE_INVAL_TEID (0xFFFFFFFF) are never handed out. */
    private static final int FIRST_TEID = 0x10;
    private static final long INVALID_TEID = 0xFFFFFFFFL;
    /** ICE_AQC_ELEM_FLAG_SUSPEND_M in the element's flags byte. */
    private static final int FLAG_SUSPEND = 0x1;

    /** Who owns a node: the scheduler commands, a LAN Tx queue, or an RDMA qset. */
    public enum Kind {
        SCHED, LAN_QUEUE, RDMA_QSET
    }

    /** One scheduler element as the firmware stores it. */
    public static final class Node {
        final int teid;
        int parent;
        final int layer;
        final Kind kind;
        final byte[] info = new byte[SchedElement.INFO_SIZE];
        final List<Node> children = new ArrayList<>();

        Node(int teid, int parent, int layer, Kind kind) {
            this.teid = teid;
            this.parent = parent;
            this.layer = layer;
            this.kind = kind;
        }

        public int teid() {
            return teid;
        }

        public int parentTeid() {
            return parent;
        }

        public int layer() {
            return layer;
        }

        public Kind kind() {
            return kind;
        }

        public int elemType() {
            return info[0] & 0xFF;
        }

        public int childCount() {
            return children.size();
        }
    }

    private final int lport;
    private final Map<Integer, Node> nodes = new HashMap<>();
    private final SchedElement element = new SchedElement();
    private final SchedGroup group = new SchedGroup();
    private final SchedMoveElements moveView = new SchedMoveElements();
    private final TeidList teidView = new TeidList();
    private final SchedResources resources = new SchedResources();
    private int nextTeid;
    private Node root;

    public TxScheduler(int lport) {
        this.lport = lport;
        reset();
    }

    /** Power-on and PF reset: the default tree and nothing else. */
    public void reset() {
        nodes.clear();
        nextTeid = FIRST_TEID;
        root = newNode(0, 0, Kind.SCHED, SchedElement.TYPE_ROOT_PORT);
        root.parent = root.teid;
        Node parent = root;
        for (int layer = 1; layer < LAYERS; layer++) {
            int type = layer == 1 ? SchedElement.TYPE_TC
                    : layer == ENTRY_POINT_LAYER ? SchedElement.TYPE_ENTRY_POINT
                    : layer == LEAF_LAYER ? SchedElement.TYPE_LEAF : SchedElement.TYPE_SE_GENERIC;
            Node n = newNode(parent.teid, layer, Kind.SCHED, type);
            parent.children.add(n);
            parent = n;
        }
    }

    public void install(BiConsumer<Integer, AqCommandHandler> register) {
        register.accept(AqOpcode.QUERY_SCHED_RES, this::querySchedResources);
        register.accept(AqOpcode.GET_DFLT_TOPO, this::getDefaultTopology);
        register.accept(AqOpcode.ADD_SCHED_ELEMS, this::addElements);
        register.accept(AqOpcode.GET_SCHED_ELEMS, this::getElements);
        register.accept(AqOpcode.CFG_SCHED_ELEMS, this::configureElements);
        register.accept(AqOpcode.MOVE_SCHED_ELEMS, this::moveElements);
        register.accept(AqOpcode.SUSPEND_SCHED_ELEMS, (d, b) -> suspendResume(d, b, true));
        register.accept(AqOpcode.RESUME_SCHED_ELEMS, (d, b) -> suspendResume(d, b, false));
        register.accept(AqOpcode.DELETE_SCHED_ELEMS, this::deleteElements);
    }

    // ---- queries for the other rooms and for tests

    public Node root() {
        return root;
    }

    /** The node with this TEID, or null. */
    public Node node(long teid) {
        return teid < 0 || teid > 0xFFFFFFFFL ? null : nodes.get((int) teid);
    }

    public Collection<Node> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    public int size() {
        return nodes.size();
    }

    public static int maxSiblings(int layer) {
        return MAX_SIBLINGS[layer];
    }

    /**
     * Why a leaf (a queue or qset) may not be added under {@code parentTeid}: {@link AqError#OK} when it may,
     * counting {@code count} new leaves.
     */
    int checkLeafParent(long parentTeid, int count) {
        Node p = node(parentTeid);
        if (p == null) {
            return AqError.ENOENT;
        }
        if (p.layer != QGROUP_LAYER) {
            return AqError.EINVAL;
        }
        if (p.children.size() + count > MAX_SIBLINGS[LEAF_LAYER] || nodes.size() + count > MAX_NODES) {
            return AqError.ENOSPC;
        }
        return AqError.OK;
    }

    /** Adds a leaf under a parent {@link #checkLeafParent} accepted; answers its TEID. */
    int addLeaf(long parentTeid, Kind kind, byte[] info) {
        Node p = node(parentTeid);
        Node n = newNode(p.teid, LEAF_LAYER, kind, SchedElement.TYPE_LEAF);
        System.arraycopy(info, 0, n.info, 0, SchedElement.INFO_SIZE);
        n.info[0] = (byte) SchedElement.TYPE_LEAF;
        p.children.add(n);
        return n.teid;
    }

    void removeLeaf(int teid) {
        Node n = nodes.get(teid);
        if (n != null && n.children.isEmpty() && n != root) {
            unlink(n);
        }
    }

    // ---- 0x0412

    private int querySchedResources(AqDescriptor desc, Bytes<?> buf) {
        long len = CommandBuffer.length(desc, buf);
        resources.wrap(buf == null ? null : buf, CommandBuffer.start(buf), len);
        if (buf == null || !resources.complete()) {
            return refusals.refuse("query_sched_res", "reply buffer of " + len + " bytes, needs " + SchedResources.SIZE,
                    AqError.ENOMEM);
        }
        resources.generic(LAYERS, LAYERS, 4, 0);
        for (int layer = 0; layer < LAYERS; layer++) {
            resources.layer(layer, MAX_NODES, MAX_NODES, MAX_SIBLINGS[layer]);
        }
        desc.datalen(SchedResources.SIZE);
        return AqError.OK;
    }

    // ---- 0x0400

    private int getDefaultTopology(AqDescriptor desc, Bytes<?> buf) {
        int port = desc.paramU8(SchedGroup.PARAM_TOPO_PORT);
        if (port != lport) {
            return refusals.refuse("get_dflt_topo", "port " + port + " is not lport " + lport, AqError.EINVAL);
        }
        int branches = root.children.size();
        long len = CommandBuffer.length(desc, buf);
        long need = (long) branches * SchedGroup.TOPO_BRANCH_SIZE;
        if (buf == null || len < need) {
            return refusals.refuse("get_dflt_topo", "reply buffer of " + len + " bytes, needs " + need, AqError.ENOMEM);
        }
        long at = CommandBuffer.start(buf);
        for (int b = 0; b < branches; b++) {
            long branch = at + (long) b * SchedGroup.TOPO_BRANCH_SIZE;
            group.wrap(buf, branch, SchedGroup.TOPO_BRANCH_SIZE);
            for (int i = 0; i < SchedGroup.TOPO_BRANCH_SIZE; i++) {
                buf.writeByte(branch + i, (byte) 0);
            }
            // One branch per TC: the root, then the path that follows each node's first child.
            int count = 0;
            Node n = root;
            while (n != null && count < LAYERS) {
                writeElement(buf, group.elementAt(count++), n);
                n = n == root ? root.children.get(b) : n.children.isEmpty() ? null : n.children.get(0);
            }
            group.header(root.teid, count);
        }
        desc.paramU8(SchedGroup.PARAM_TOPO_BRANCHES, branches);
        desc.datalen((int) need);
        return AqError.OK;
    }

    // ---- 0x0401

    private int addElements(AqDescriptor desc, Bytes<?> buf) {
        int groups = desc.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ);
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || groups == 0) {
            return refusals.refuse("add_sched_elems", "no groups", AqError.EINVAL);
        }
        long at = CommandBuffer.start(buf);
        long end = at + len;
        // First pass: every group well formed, parents valid, room for all of it.
        Map<Integer, Integer> added = new HashMap<>();
        int total = 0;
        long g = at;
        for (int i = 0; i < groups; i++) {
            group.wrap(buf, g, end - g);
            SchedGroup.Status s = group.validate(SchedElement.SIZE);
            if (!s.accepted()) {
                return refusals.refuse("add_sched_elems", "group " + i + ": " + s.describe(), AqError.EINVAL);
            }
            Node parent = node(group.parentTeid());
            if (parent == null) {
                return refusals.refuse("add_sched_elems", "parent TEID 0x" + Long.toHexString(group.parentTeid())
                        + " does not exist", AqError.ENOENT);
            }
            if (parent.layer >= QGROUP_LAYER) {
                return refusals.refuse("add_sched_elems", "parent at layer " + parent.layer + " cannot take scheduler"
                        + " nodes (queues go through add_txqs)", AqError.EINVAL);
            }
            int n = group.numElems();
            int children = parent.children.size() + added.getOrDefault(parent.teid, 0) + n;
            if (children > MAX_SIBLINGS[parent.layer + 1]) {
                return refusals.refuse("add_sched_elems", "parent 0x" + Integer.toHexString(parent.teid) + " would have "
                        + children + " children, at most " + MAX_SIBLINGS[parent.layer + 1], AqError.ENOSPC);
            }
            for (int e = 0; e < n; e++) {
                element.wrap(buf, group.elementAt(e));
                int type = element.elemType();
                if (type != SchedElement.TYPE_SE_GENERIC && type != SchedElement.TYPE_SE_PADDED
                        && type != SchedElement.TYPE_ENTRY_POINT) {
                    return refusals.refuse("add_sched_elems", "element type " + type + " cannot be added",
                            AqError.EINVAL);
                }
            }
            added.merge(parent.teid, n, Integer::sum);
            total += n;
            g += SchedGroup.HEADER + (long) n * SchedElement.SIZE;
        }
        if (nodes.size() + total > MAX_NODES) {
            return refusals.refuse("add_sched_elems", "the tree is full", AqError.ENOSPC);
        }
        // Second pass: apply, writing each new TEID into its element.
        g = at;
        byte[] info = new byte[SchedElement.INFO_SIZE];
        for (int i = 0; i < groups; i++) {
            group.wrap(buf, g, end - g);
            Node parent = node(group.parentTeid());
            int n = group.numElems();
            for (int e = 0; e < n; e++) {
                element.wrap(buf, group.elementAt(e));
                element.readInfo(info);
                Node child = newNode(parent.teid, parent.layer + 1, Kind.SCHED, element.elemType());
                System.arraycopy(info, 0, child.info, 0, info.length);
                parent.children.add(child);
                element.parentTeid(parent.teid).nodeTeid(child.teid);
            }
            g += SchedGroup.HEADER + (long) n * SchedElement.SIZE;
        }
        desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP, groups);
        return AqError.OK;
    }

    // ---- 0x0404

    private int getElements(AqDescriptor desc, Bytes<?> buf) {
        int count = desc.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ);
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || count == 0 || (long) count * SchedElement.SIZE > len) {
            return refusals.refuse("get_sched_elems", count + " elements in a " + len + "-byte buffer", AqError.EINVAL);
        }
        long at = CommandBuffer.start(buf);
        for (int i = 0; i < count; i++) {
            element.wrap(buf, at + (long) i * SchedElement.SIZE);
            if (node(element.nodeTeid()) == null) {
                desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP, 0);
                return refusals.refuse("get_sched_elems", "TEID 0x" + Long.toHexString(element.nodeTeid())
                        + " does not exist", AqError.ENOENT);
            }
        }
        for (int i = 0; i < count; i++) {
            long e = at + (long) i * SchedElement.SIZE;
            element.wrap(buf, e);
            writeElement(buf, e, node(element.nodeTeid()));
        }
        desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP, count);
        return AqError.OK;
    }

    // ---- 0x0403: the element's generic/CIR/EIR/shared sections, as valid_sections names them

    private int configureElements(AqDescriptor desc, Bytes<?> buf) {
        int count = desc.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ);
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || count == 0 || (long) count * SchedElement.SIZE > len) {
            return refusals.refuse("cfg_sched_elems", count + " elements in a " + len + "-byte buffer", AqError.EINVAL);
        }
        long at = CommandBuffer.start(buf);
        for (int i = 0; i < count; i++) {
            element.wrap(buf, at + (long) i * SchedElement.SIZE);
            if (node(element.nodeTeid()) == null) {
                return refusals.refuse("cfg_sched_elems", "TEID 0x" + Long.toHexString(element.nodeTeid())
                        + " does not exist", AqError.ENOENT);
            }
        }
        byte[] info = new byte[SchedElement.INFO_SIZE];
        for (int i = 0; i < count; i++) {
            element.wrap(buf, at + (long) i * SchedElement.SIZE);
            Node n = node(element.nodeTeid());
            element.readInfo(info);
            int valid = info[1] & 0xFF;
            n.info[1] = (byte) ((n.info[1] & 0xFF) | valid);
            if ((valid & SchedElement.VALID_GENERIC) != 0) {
                n.info[2] = info[2];
            }
            if ((valid & SchedElement.VALID_CIR) != 0) {
                System.arraycopy(info, 4, n.info, 4, 4);
            }
            if ((valid & SchedElement.VALID_EIR) != 0) {
                System.arraycopy(info, 8, n.info, 8, 4);
            }
            if ((valid & SchedElement.VALID_SHARED) != 0) {
                System.arraycopy(info, 12, n.info, 12, 2);
            }
        }
        desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP, count);
        return AqError.OK;
    }

    // ---- 0x0408: struct ice_aqc_move_elem (SchedMoveElements)

    private int moveElements(AqDescriptor desc, Bytes<?> buf) {
        int groups = desc.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ);
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || groups != 1 || len < SchedMoveElements.HEADER) {
            return refusals.refuse("move_sched_elems", groups + " groups in a " + len + "-byte buffer", AqError.EINVAL);
        }
        SchedMoveElements move = moveView.wrap(buf, CommandBuffer.start(buf), len);
        int n = move.numElems();
        if (n == 0 || !move.complete()) {
            return refusals.refuse("move_sched_elems", n + " TEIDs in a " + len + "-byte buffer", AqError.EINVAL);
        }
        Node from = node(move.sourceParent());
        Node to = node(move.destinationParent());
        if (from == null || to == null) {
            return refusals.refuse("move_sched_elems", "source or destination parent does not exist", AqError.ENOENT);
        }
        if (to.layer != from.layer || to.kind != Kind.SCHED || to.layer >= LEAF_LAYER) {
            return refusals.refuse("move_sched_elems", "destination parent at another layer or a leaf", AqError.EINVAL);
        }
        if (to != from && to.children.size() + n > MAX_SIBLINGS[to.layer + 1]) {
            return refusals.refuse("move_sched_elems", "destination parent has no room", AqError.ENOSPC);
        }
        List<Node> moving = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Node m = node(move.teid(i));
            if (m == null || m.parent != from.teid || moving.contains(m)) {
                return refusals.refuse("move_sched_elems", "TEID " + i + " is not a child of the source parent",
                        AqError.ENOENT);
            }
            moving.add(m);
        }
        for (Node m : moving) {
            from.children.remove(m);
            to.children.add(m);
            m.parent = to.teid;
        }
        desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP, 1);
        return AqError.OK;
    }

    // ---- 0x0409 / 0x040A: an array of le32 TEIDs (ice_sched.c ice_sched_suspend_resume_elems)

    private int suspendResume(AqDescriptor desc, Bytes<?> buf, boolean suspend) {
        String op = suspend ? "suspend_sched_elems" : "resume_sched_elems";
        int count = desc.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ);
        long len = CommandBuffer.length(desc, buf);
        TeidList teids = buf == null ? null : teidView.wrap(buf, CommandBuffer.start(buf), len);
        if (teids == null || count == 0 || !teids.holds(count)) {
            return refusals.refuse(op, count + " TEIDs in a " + len + "-byte buffer", AqError.EINVAL);
        }
        for (int i = 0; i < count; i++) {
            if (node(teids.teid(i)) == null) {
                return refusals.refuse(op, "TEID " + i + " does not exist", AqError.ENOENT);
            }
        }
        for (int i = 0; i < count; i++) {
            Node n = node(teids.teid(i));
            n.info[3] = (byte) (suspend ? n.info[3] | FLAG_SUSPEND : n.info[3] & ~FLAG_SUSPEND);
        }
        desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP, count);
        return AqError.OK;
    }

    // ---- 0x040F

    private int deleteElements(AqDescriptor desc, Bytes<?> buf) {
        int groups = desc.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ);
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || groups == 0) {
            return refusals.refuse("delete_sched_elems", "no groups", AqError.EINVAL);
        }
        long at = CommandBuffer.start(buf);
        long end = at + len;
        java.util.LinkedHashSet<Node> doomedSet = new java.util.LinkedHashSet<>();
        long g = at;
        for (int i = 0; i < groups; i++) {
            group.wrap(buf, g, end - g);
            SchedGroup.Status s = group.validate(4);
            if (!s.accepted()) {
                return refusals.refuse("delete_sched_elems", "group " + i + ": " + s.describe(), AqError.EINVAL);
            }
            long parent = group.parentTeid();
            for (int e = 0; e < group.numElems(); e++) {
                Node n = node(group.teid(e));
                if (n == null || n.parent != parent || n == root) {
                    return refusals.refuse("delete_sched_elems", "TEID 0x" + Long.toHexString(group.teid(e))
                            + " is not a child of 0x" + Long.toHexString(parent), AqError.ENOENT);
                }
                if (n.elemType() == SchedElement.TYPE_TC || n.kind != Kind.SCHED) {
                    return refusals.refuse("delete_sched_elems", "TEID 0x" + Integer.toHexString(n.teid)
                            + " is a TC, a queue or a qset", AqError.EPERM);
                }
                doomedSet.add(n);
            }
            g += SchedGroup.HEADER + 4L * group.numElems();
        }
        // A node may go only once all its children go in the same command, deepest first.
        List<Node> doomed = new ArrayList<>(doomedSet);
        doomed.sort((a, b) -> Integer.compare(b.layer, a.layer));
        for (Node n : doomed) {
            for (Node c : n.children) {
                if (!doomedSet.contains(c)) {
                    return refusals.refuse("delete_sched_elems", "TEID 0x" + Integer.toHexString(n.teid)
                            + " still has children", AqError.EBUSY);
                }
            }
        }
        for (Node n : doomed) {
            unlink(n);
        }
        desc.paramU16(SchedGroup.PARAM_NUM_ELEM_RESP, groups);
        return AqError.OK;
    }

    // ---- plumbing

    private Node newNode(int parent, int layer, Kind kind, int type) {
        int teid = nextTeid;
        while (nodes.containsKey(teid) || teid < FIRST_TEID || (teid & INVALID_TEID) == INVALID_TEID) {
            teid = teid + 1 < FIRST_TEID ? FIRST_TEID : teid + 1;
        }
        nextTeid = teid + 1;
        Node n = new Node(teid, parent, layer, kind);
        n.info[0] = (byte) type;
        nodes.put(teid, n);
        return n;
    }

    private void unlink(Node n) {
        Node p = nodes.get(n.parent);
        if (p != null) {
            p.children.remove(n);
        }
        nodes.remove(n.teid);
    }

    private void writeElement(Bytes<?> buf, long offset, Node n) {
        element.wrap(buf, offset);
        element.parentTeid(n == root ? 0 : n.parent).nodeTeid(n.teid).writeInfo(n.info);
    }


    /** Reports refused commands to {@code r} (the function's shared {@link AqRefusals}). */
    void reportRefusalsTo(AqRefusals r) {
        this.refusals = r;
    }
}
