package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.model.ws.WorkSchedulerTree;

/**
 * The Work Scheduler Node CQP op (ctrl.c irdma_sc_manage_ws_node, enum irdma_ws_node_op; sent by ws.c through
 * utils.c irdma_cqp_ws_node_cmd): the function's {@link WorkSchedulerTree}, each tree result answered with its CQP
 * error code.
 */
final class WorkSchedulerOps {
    private final WorkSchedulerTree ws;

    WorkSchedulerOps(WorkSchedulerTree ws) {
        this.ws = ws;
    }

    /**
     * Work scheduler node (ctrl.c irdma_sc_manage_ws_node, enum irdma_ws_node_op): add, modify or delete a node of
     * {@link WorkSchedulerTree}; a leaf's add answers its qs_handle in op_ret_val (utils.c irdma_cqp_ws_node_cmd).
     */
    void manageNode(CqpWqe w, CqpResult r) {
        int op = w.wsNodeOp();
        int id = w.wsNodeId();
        WorkSchedulerTree.Result res = switch (op) {
            case CqpWqe.WS_NODE_OP_ADD -> ws.add(id, w.wsParentId(), w.wsLeaf(), w.wsEnable(), w.wsPrioType(),
                    w.wsTrafficClass(), w.wsVsi(), w.wsWeight());
            case CqpWqe.WS_NODE_OP_MODIFY -> ws.modify(id, w.wsParentId(), w.wsLeaf(), w.wsEnable(),
                    w.wsPrioType(), w.wsTrafficClass(), w.wsVsi(), w.wsWeight());
            case CqpWqe.WS_NODE_OP_DELETE -> ws.delete(id);
            default -> null;
        };
        if (res == null) {
            r.fail(CqpFault.INVALID_FIELD, "IRDMA_CQPSQ_WS_NODEOP is no enum irdma_ws_node_op");
            return;
        }
        switch (res) {
            case OK -> {
                if (op == CqpWqe.WS_NODE_OP_ADD && w.wsLeaf()) {
                    r.returnValue(ws.qsHandle(id));
                }
            }
            case BAD_NODE_ID -> r.fail(CqpFault.INDEX_OUT_OF_RANGE, res.describe());
            case EXISTS, ROOT_EXISTS, HAS_CHILDREN -> r.fail(CqpFault.OBJECT_IN_USE, res.describe());
            case NO_PARENT, NO_SUCH_NODE -> r.fail(CqpFault.NO_SUCH_OBJECT, res.describe());
            case FULL -> r.fail(CqpFault.TABLE_FULL, res.describe());
            case BAD_FIELD, LEAF_ROOT, PARENT_IS_LEAF, MODIFY_MOVES_NODE -> r.fail(CqpFault.INVALID_FIELD,
                    res.describe());
        }
    }

}
