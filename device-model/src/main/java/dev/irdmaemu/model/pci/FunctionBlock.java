package dev.irdmaemu.model.pci;

import dev.irdmaemu.fw.bus.Mmio;

/**
 * A block of the E810 PF behind BAR0 (the ice side: admin queue, PFGEN_CTRL, GLNVM_*, PFINT_*, the LAN queues),
 * as the PCI function's BAR0 dispatcher and its resets see it. The RDMA block is the other one ({@link
 * RdmaBlock}); its offsets win, GLINT_DYN_CTL included (one array for every vector of the PF: the ice block raises
 * its causes through the RDMA block's interrupt controller).
 */
public interface FunctionBlock extends Mmio {
    /** Back to power-on state: the transport's device reset calls it. */
    void reset();

    /**
     * The PCI function's FLR: the function's own state back to power-on; a block that keeps adapter-wide state
     * (the ice block: the downloaded DDP package, the global config lock) keeps it. By default a {@link #reset()}.
     */
    default void functionLevelReset() {
        reset();
    }

    /**
     * Whether the block backs BAR0 offset {@code offset}. The dispatcher answers offsets nobody backs itself (reads
     * 0, writes dropped, each offset traced once); a block that answers true for everything handles its own
     * unknown offsets.
     */
    default boolean defines(long offset) {
        return true;
    }

    /** A block with no registers: every offset it is asked about is unknown. For tests and RDMA-only setups. */
    FunctionBlock NONE = new FunctionBlock() {
        @Override
        public int read32(long offset) {
            return 0;
        }

        @Override
        public void write32(long offset, int value) {
        }

        @Override
        public void reset() {
        }

        @Override
        public boolean defines(long offset) {
            return false;
        }
    };
}
