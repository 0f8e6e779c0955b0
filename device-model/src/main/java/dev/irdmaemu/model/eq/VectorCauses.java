package dev.irdmaemu.model.eq;

/**
 * Where a block raises a cause on an MSI-X vector together with the ITR index the cause waits on (QINT_RQCTL /
 * QINT_TQCTL ITR_INDX, ice_lib.c ice_cfg_rxq_interrupt / ice_cfg_txq_interrupt; 3 is no ITR): the PF's
 * {@link InterruptController}.
 */
@FunctionalInterface
public interface VectorCauses {
    VectorCauses NONE = (vector, itrIndex) -> false;

    /** Answers false when the vector is outside the controller's array. */
    boolean cause(int vector, int itrIndex);
}
