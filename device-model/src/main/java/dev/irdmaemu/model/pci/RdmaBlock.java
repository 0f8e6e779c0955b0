package dev.irdmaemu.model.pci;

import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.model.reg.RegisterFile;
import dev.irdmaemu.model.trace.Trace;

/**
 * The RDMA block of the PF (the function's E810RdmaFunction) as the PCI function sees it: the registers irdma drives
 * behind BAR0, whose offsets win over the ice block's, the MSI-X messages it sends (which the PCI function takes over
 * and gates on its capability's enable bit), its reset, and the trace both share. An interface here, so that the PCI
 * function sits below the blocks it dispatches to.
 */
public interface RdmaBlock extends FunctionBlock {
    /** The block's register table: BAR0 offsets it defines (its doorbell page aside). */
    RegisterFile registers();

    /** Sends the block's MSI-X messages to {@code sink} from now on. */
    void routeInterrupts(InterruptSink sink);

    /** The function's trace (the PCI function traces its config space and BAR refusals on it too). */
    Trace trace();
}
