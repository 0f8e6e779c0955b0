package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.bus.Mmio;

/**
 * The LAN queues' registers (QRX_*, QTX_COMM_*, QINT_*, GLINT_ITR / GLINT_RATE, the Rx queue contexts) as the ice
 * block forwards them: the offsets they own, their reset with the PF's, and their MDD events. The model.lan queues implement it, so the
 * firmware sits below the rings it fronts.
 */
public interface LanRegisters extends Mmio {
    /** Whether BAR0 offset {@code offset} is one of the LAN queues'. */
    boolean owns(long offset);

    /** Back to the state a PF reset leaves. */
    void reset();

    /**
     * The port MAC's loopback (set_mac_lb): while on, transmitted frames come back into the receive side instead of
     * leaving the port.
     */
    void macLoopback(boolean on);

    /** Calls {@code hook} on each malicious driver detection event (the firmware raises PFINT_OICR MAL_DETECT). */
    void onMdd(Runnable hook);
}
