package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.SetMacLoopback;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The port MAC's internal loopback as set_mac_lb (direct 0x0620, struct ice_aqc_set_mac_lb in ice_adminq_cmd.h)
 * turns it on and off: ice_ethtool.c's offline self-test (ice_loopback_test) enables it, sends 32 frames on a
 * loopback VSI's Tx ring and counts them back on its Rx ring, then disables it. While it is on, what the LAN queues
 * transmit comes back into the receive side instead of leaving the port ({@link LanRegisters#macLoopback}).
 *
 * <p>Refused with EINVAL: a buffer, or lb_mode bits other than ICE_AQ_MAC_LB_EN and ICE_AQ_MAC_LB_OSC_CLK. The
 * loopback is MAC state: a PF reset keeps it (ice turns it off itself), a global or EMP reset and power-on clear it.
 */
final class MacLoopback {
    private final AqRefusals refusals;
    private final java.util.function.Consumer<Boolean> apply;
    private boolean on;
    private long changes;

    /** @param apply told of each change (the LAN queues' loopback) */
    MacLoopback(AqRefusals refusals, java.util.function.Consumer<Boolean> apply) {
        this.refusals = refusals;
        this.apply = apply;
    }

    void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.SET_MAC_LB, this::setMacLoopback);
    }

    private int setMacLoopback(AqDescriptor d, Bytes<?> b) {
        if (b != null || d.flag(AqDescriptor.BUF)) {
            return refusals.refuse("set_mac_lb", "a direct command sent with a buffer", AqError.EINVAL);
        }
        int mode = d.paramU8(SetMacLoopback.LB_MODE);
        if ((mode & ~(SetMacLoopback.LB_EN | SetMacLoopback.LB_OSC_CLK)) != 0) {
            return refusals.refuse("set_mac_lb", "lb_mode 0x" + Integer.toHexString(mode) + " has reserved bits",
                    AqError.EINVAL);
        }
        set((mode & SetMacLoopback.LB_EN) != 0);
        return AqError.OK;
    }

    /** A global or EMP reset, or power-on: the MAC back to its defaults, loopback off. */
    void macReset() {
        set(false);
    }

    private void set(boolean enable) {
        if (enable != on) {
            changes++;
        }
        on = enable;
        apply.accept(enable);
    }

    boolean on() {
        return on;
    }

    long changes() {
        return changes;
    }
}
