package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.SetPortIdLed;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The port's identify LED as set_port_id_led (direct 0x06E9, struct ice_aqc_set_port_id_led in ice_adminq_cmd.h)
 * drives it: {@code ethtool -p DEV} makes ice_ethtool.c ice_set_phys_id send ident_mode BLINK on ETHTOOL_ID_ACTIVE
 * and ORIG (0, back to what the netlist gives the LED) on ETHTOOL_ID_INACTIVE; ice turns any error into -EIO.
 *
 * <p>The port is this PF's (lport_num_valid clear); a valid lport_num naming another port, ident_mode bits other
 * than BLINK, or a buffer are refused with EINVAL. The blinking state and the number of times it started are kept
 * for tests and the trace; a PF reset keeps the LED as it is, power-on puts it back.
 */
final class PortIdentifyLed {
    private final int port;
    private final AqRefusals refusals;
    private boolean blinking;
    private long blinks;

    PortIdentifyLed(int port, AqRefusals refusals) {
        this.port = port;
        this.refusals = refusals;
    }

    void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.SET_PORT_ID_LED, this::setLed);
    }

    private int setLed(AqDescriptor d, Bytes<?> b) {
        if (b != null || d.flag(AqDescriptor.BUF)) {
            return refusals.refuse("set_port_id_led", "a direct command sent with a buffer", AqError.EINVAL);
        }
        if ((d.paramU8(SetPortIdLed.LPORT_NUM_VALID) & 1) != 0 && d.paramU8(SetPortIdLed.LPORT_NUM) != port) {
            return refusals.refuse("set_port_id_led", "lport " + d.paramU8(SetPortIdLed.LPORT_NUM)
                    + " is not this PF's port " + port, AqError.EINVAL);
        }
        int mode = d.paramU8(SetPortIdLed.IDENT_MODE);
        if ((mode & ~SetPortIdLed.IDENT_BLINK) != 0) {
            return refusals.refuse("set_port_id_led", "ident_mode 0x" + Integer.toHexString(mode)
                    + " has reserved bits", AqError.EINVAL);
        }
        boolean blink = mode == SetPortIdLed.IDENT_BLINK;
        if (blink && !blinking) {
            blinks++;
        }
        blinking = blink;
        return AqError.OK;
    }

    void powerOn() {
        blinking = false;
    }

    boolean blinking() {
        return blinking;
    }

    /** How often the LED started blinking. */
    long blinks() {
        return blinks;
    }
}
