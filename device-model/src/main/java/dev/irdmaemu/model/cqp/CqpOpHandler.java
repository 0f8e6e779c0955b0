package dev.irdmaemu.model.cqp;

import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;

/** Executes one validated CQP WQE; fills {@code result}. Must not throw for any guest input. */
@FunctionalInterface
public interface CqpOpHandler {
    void execute(CqpOpcode op, CqpWqe wqe, int wqeIndex, CqpResult result);
}
